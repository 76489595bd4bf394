"""analysis/nodes.py on result documents made by hand: which ranks count as aggregators, how they
are said per node, and each node's share (the runs across real nodes: test_cluster_bench.py)."""
from pario.analysis import nodes
from pario.report.terminal.nodes import aggregator_lines

HOSTS = ["node1", "node1", "node2", "node2", "node3", "node3"]


def _result(written, read=None, hosts=HOSTS, requested=None, effective=None, done=None):
    ranks = {"done": done or [1.0] * len(written), "fs_written": written, "fs_read": read or [0] * len(written)}
    case = {"name": "c", "phases": [{"op": "write", "rep": 0, "bytes": 6 << 20, "ranks": ranks}],
            "hints": {"requested": requested or {}, "effective": effective or {}}}
    mpi = {"ranks": len(hosts), "hosts": [{"name": h, "ranks": hosts.count(h)} for h in dict.fromkeys(hosts)],
           "placement": {"source": "openmpi", "ranks": [{"rank": r, "host": h} for r, h in enumerate(hosts)]}}
    return case, {"mpi": mpi, "cases": [case]}


def test_ranks_text_and_per_node():
    assert nodes.ranks_text([0, 2, 4]) == "0, 2, 4"
    assert nodes.ranks_text([0, 1, 2, 3, 8, 9, 10, 11, 13]) == "0-3, 8-11, 13"
    assert nodes.per_node_text([0, 2, 4], HOSTS) == "1 per node"
    assert nodes.per_node_text([0, 1, 2], HOSTS) == "2 on node1, 1 on node2, none on node3"
    assert nodes.per_node_text([0], ["vm"] * 4) == "1 on vm"


def test_metadata_bytes_do_not_make_an_aggregator():
    case, result = _result([2 << 20, 40, 2 << 20, 0, 2 << 20, 0])
    m = nodes.movers(case, "write", nodes.rank_hosts(result))
    assert m["ranks"] == [0, 2, 4] and m["minor"] == [1]
    assert nodes.text(m) == "ranks 0, 2, 4: 1 per node"
    assert abs(m["ratio"] - 1.0) < 1e-4


def test_everyone_wrote_and_one_wrote():
    case, result = _result([1 << 20] * 6)
    assert nodes.text(nodes.movers(case, "write", HOSTS)) == "all 6 ranks: 2 per node"
    case, result = _result([6 << 20, 0, 0, 0, 0, 0])
    assert nodes.text(nodes.movers(case, "write", HOSTS)) == "rank 0: 1 on node1, none on node2, none on node3"


def test_not_counted_is_none_not_zero():
    case, result = _result([0] * 6)
    del case["phases"][0]["ranks"]["fs_written"]
    assert nodes.movers(case, "write", HOSTS) is None
    assert "aggregators" not in nodes.figures(case, result)


def test_by_node_imbalance_is_the_last_node_over_the_first():
    case, result = _result([1 << 20] * 6, done=[1.0, 1.2, 1.1, 1.0, 2.0, 2.4])
    b = nodes.by_node(case, "write", HOSTS)
    assert [(n["node"], n["done_s"], n["fs_bytes"]) for n in b["nodes"]] == [
        ("node1", 1.2, 2 << 20), ("node2", 1.1, 2 << 20), ("node3", 2.4, 2 << 20)]
    assert b["last"] == "node3" and abs(b["imbalance"] - 2.4 / 1.1) < 1e-9
    assert nodes.by_node(case, "write", ["vm"] * 6) is None   # one node: nothing to compare


def test_the_line_says_what_was_asked_and_what_ompio_ignores():
    case, result = _result([6 << 20, 0, 0, 0, 0, 0], requested={"cb_config_list": "*:1"})
    row = {"name": "c", "collective": True, **nodes.figures(case, result)}
    (line,) = aggregator_lines([row], "ompio")
    assert line.startswith("c write: rank 0: 1 on node1, none on node2, none on node3 (asked: cb_config_list *:1)")
    assert "ompio ignores cb_config_list" in line
    (line,) = aggregator_lines([row], "default")   # Open MPI without --io: its default, ompio
    assert "Open MPI's default MPI-IO, ompio, ignores cb_config_list" in line and "fewer than asked" not in line
    (line,) = aggregator_lines([row], "romio321")
    assert "fewer than asked (1 of 3; none or fewer on node2, node3)" in line
    capped = {**row, "asked": {"cb_config_list": "*:1", "cb_nodes": "1"}}   # cb_nodes 1: one in all, as asked
    assert "fewer than asked" not in aggregator_lines([capped], "romio321")[0]


def test_automatic_collective_buffering_that_did_not_aggregate_is_named():
    case, result = _result([1 << 20] * 6, effective={"romio_cb_write": "automatic"})
    row = {"name": "c", "collective": True, **nodes.figures(case, result)}
    (line,) = aggregator_lines([row], "romio321")
    assert "ROMIO did not aggregate (romio_cb_write automatic" in line
    assert aggregator_lines([{**row, "collective": False}], "romio321") == []   # independent: nothing to say
