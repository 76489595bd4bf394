"""pario bench across real nodes (the session's local cluster, tests/python/cluster_support.py):
ranks in blocks over --nodes, the aggregators in effect measured below MPI-IO and shown beside the
hints that asked for them, one file per node, each node's share. Structure only, never speed: the
nodes share this machine's cores and disk."""
import json
import os

import pytest

from cluster_support import bench_json, pario
from mpi_flavours import MPICH, OPENMPI

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]
SMALL = ["-t", "1m", "-b", "2m", "-i", "1"]
ROMIO = {"openmpi": ["--io", "romio321"], "mpich": []}   # ompio ignores cb_config_list


def _need(flavour):
    if not (flavour["engine"] and flavour["mpirun"]):
        pytest.skip(f"{flavour['name']}: no engine or launcher")


def _row(doc, name=None):
    rows = doc["summary"]
    return next(r for r in rows if name is None or r["name"] == name)


def _hosts(doc):
    return [(h["name"], h["ranks"]) for h in doc["result"]["mpi"]["hosts"]]


@pytest.mark.parametrize("flavour", [OPENMPI, MPICH], ids=["openmpi", "mpich"])
def test_one_aggregator_per_node_is_measured_where_it_wrote(nodes, flavour, tmp_path):
    _need(flavour)
    out, doc = bench_json(nodes, flavour, ["-a", "mpiio", "-c", "--nodes", "3", "-n", "6", "-w", *SMALL,
                                           "--hint", "cb_config_list=*:1", "--hint", "romio_cb_write=enable",
                                           *ROMIO[flavour["name"]]], tmp_path)
    assert out.returncode == 0 and doc, out.stderr
    assert _hosts(doc) == [("node1", 2), ("node2", 2), ("node3", 2)]
    placed = [p["host"] for p in doc["result"]["mpi"]["placement"]["ranks"]]
    assert placed == ["node1", "node1", "node2", "node2", "node3", "node3"]
    write = _row(doc)["aggregators"]["write"]
    assert write["ranks"] == [0, 2, 4] and write["text"] == "ranks 0, 2, 4: 1 per node"
    assert _row(doc)["asked"] == {"cb_config_list": "*:1"}
    by_node = _row(doc)["nodes"]["write"]["nodes"]
    assert [(n["node"], n["ranks"]) for n in by_node] == [("node1", [0, 1]), ("node2", [2, 3]), ("node3", [4, 5])]
    assert all(n["fs_bytes"] > 0 for n in by_node)
    # nothing of the run is left beside the scratch directory (its private directory was there)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".pario-run-")]


def test_ompio_single_aggregator_and_the_table(nodes, tmp_path):
    """Open MPI's default MPI-IO (ompio) ignores cb_config_list: one rank wrote for three nodes."""
    _need(OPENMPI)
    out = pario(nodes, ["bench", "--no-probe", "--dir", tmp_path / "scratch", "-a", "mpiio", "-c", "--nodes", "3",
                        "-n", "6", "-w", *SMALL, "--hint", "cb_config_list=*:1", "--io", "ompio"], tmp_path,
                engine=OPENMPI["engine"])
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "6 ranks on 3 nodes (node1, node2, node3)" in text
    assert "shared-mpiio-coll write: rank 0: 1 on node1, none on node2, none on node3 (asked: cb_config_list *:1); " \
           "ompio ignores cb_config_list" in text
    assert "By node" in text and "node imbalance" in text
    ranks = pario(nodes, ["results", "show", "last", "--per-rank"], tmp_path)   # the per-rank table: a node each
    assert ranks.returncode == 0 and "Per rank (median over repetitions)" in ranks.stdout, ranks.stderr
    from pario.report.terminal.nodes import rank_rows
    stored = json.loads(pario(nodes, ["results", "show", "last", "--json"], tmp_path).stdout)
    assert [(r[1], r[2].split(" ")[0], r[4] != "0 B") for r in rank_rows(stored["result"])] == [
        ("0", "node1", True), ("1", "node1", False), ("2", "node2", False), ("3", "node2", False),
        ("4", "node3", False), ("5", "node3", False)]   # ompio: rank 0 alone wrote at the file system
    # the HTML per-rank timeline names each rank's node
    from pario.analysis.nodes import rank_hosts
    from pario.report.html.timeline import case_plot
    plot = case_plot(1, "case", stored["result"]["cases"][0], rank_hosts(stored["result"]))
    assert plot is not None and "its node in brackets" in plot.caption
    assert list(plot.figure.data[0].y) == ["r0 (node1)", "r1 (node1)", "r2 (node2)", "r3 (node2)", "r4 (node3)",
                                           "r5 (node3)"]
    assert plot.figure.data[0].hovertext[3].startswith("rank 3 (node2): open")


def test_per_node_strategy_writes_a_file_per_node_and_leaders_aggregate(nodes, tmp_path):
    _need(OPENMPI)
    config = tmp_path / "job.toml"
    config.write_text('[defaults]\nbackend = "posix"\ntransfer = "1m"\nblock = "2m"\nreps = 1\nops = ["write"]\n'
                      'keep = true\n[[case]]\nname = "pernode"\nstrategy = "per-node"\n'
                      '[[case]]\nname = "pernode-agg"\nstrategy = "per-node"\naggregate = true\n')
    out, doc = bench_json(nodes, OPENMPI, ["--config", config, "--nodes", "3", "-n", "6"], tmp_path)
    assert out.returncode == 0 and doc, out.stderr
    cases = {c["name"]: c for c in doc["result"]["cases"]}
    assert cases["pernode"]["files"] == 3 and cases["pernode-agg"]["files"] == 3
    kept = sorted(os.listdir(tmp_path / "scratch"))
    assert len([f for f in kept if ".0." in f]) == 3 and len([f for f in kept if ".1." in f]) == 3, kept
    assert _row(doc, "pernode")["aggregators"]["write"]["ranks"] == [0, 1, 2, 3, 4, 5]
    assert _row(doc, "pernode-agg")["aggregators"]["write"]["text"] == "ranks 0, 2, 4: 1 per node"


def test_two_aggregators_per_node_on_two_nodes(nodes, tmp_path):
    """CSC's cb_config_list *:2: ROMIO's first two ranks of each node (machine-notes: 0, 1, 4, 5 of 8)."""
    _need(OPENMPI)
    out, doc = bench_json(nodes, OPENMPI, ["-a", "mpiio", "-c", "--nodes", "2", "-n", "8", "-w", *SMALL,
                                           "--hint", "cb_config_list=*:2", "--hint", "romio_cb_write=enable",
                                           "--io", "romio321"], tmp_path)
    assert out.returncode == 0 and doc, out.stderr
    assert _hosts(doc) == [("node1", 4), ("node2", 4)]
    assert _row(doc)["aggregators"]["write"]["text"] == "ranks 0, 1, 4, 5: 2 per node"


def test_srun_places_the_blocks_itself(nodes, tmp_path):
    """--launcher srun outside an allocation: srun -N 3 --ntasks-per-node=2 (not srun's 4, 1, 1)."""
    _need(OPENMPI)
    out, doc = bench_json(nodes, OPENMPI, ["-a", "posix", "--nodes", "3", "-n", "6", "-w", *SMALL,
                                           "--launcher", "srun"], tmp_path)
    assert out.returncode == 0 and doc, out.stderr
    placement = doc["result"]["mpi"]["placement"]
    assert placement["source"] == "slurm"
    assert [(p["host"], p["node"]) for p in placement["ranks"]] == [
        ("node1", 0), ("node1", 0), ("node2", 1), ("node2", 1), ("node3", 2), ("node3", 2)]


@pytest.mark.parametrize("args, said", [
    (["--nodes", "4", "-n", "3"], "--nodes 4 with -n 3: every node runs at least one rank"),
    (["--nodes", "2", "-n", "2"], "knows no other host than this one"),
])
def test_nodes_that_cannot_be_had_are_refused_before_anything_runs(args, said, tmp_path):
    out = pario_without_cluster(["bench", "--dry-run", "-a", "posix", *args], tmp_path)
    assert out.returncode == 2 and said in out.stderr and "Traceback" not in out.stderr, out.stderr


def pario_without_cluster(args, tmp_path):
    import subprocess
    import sys

    from cluster_support import ROOT
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PARIO_DB=str(tmp_path / "db"))
    for key in [k for k in env if k.startswith(("SLURM_", "HYDRA_", "OMPI_MCA_"))]:
        env.pop(key)
    return subprocess.run([sys.executable, "-m", "pario", *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
