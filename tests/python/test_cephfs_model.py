"""CephFS in the settings model and in pario's records, without a cluster: the layout spoken as
`setfattr -n ceph.dir.layout` and read back from getfattr, its keys beside Lustre's, what pario
does with striping hints there, the file's own layout beside what MPI-IO reported, and the
placement prediction from the servers' bytes and caps."""
import io

import pytest
from rich.console import Console

from pario.platform import cephfs
from pario.platform import layout as layout_apply
from pario.report.terminal.servers import print_servers
from pario.run import servers
from pario.settings import ceph_layout, from_pairs, parse, render, sniff
from pario.settings.effective import file_layout
from pario.settings.keys import rows as key_rows
from pario.settings.model import build


def test_the_layout_in_cephfs_words_and_back():
    s = from_pairs(["ceph.stripe_count=4", "ceph.stripe_unit=1m", "ceph.object_size=32m", "ceph.pool=fast"])
    assert s.layout == [{"stripe_count": "4", "stripe_size": "1048576", "object_size": "33554432", "pool": "fast"}]
    text = render(s, "ceph")
    assert text == ('setfattr -n ceph.dir.layout -v "stripe_unit=1048576 stripe_count=4 object_size=33554432 '
                    'pool=fast" DIR\n')
    assert sniff(text) == "ceph" and parse(text, "ceph")[0].layout == s.layout
    assert render(s, "lfs") == "lfs setstripe -c 4 -S 1M -p fast DIR\n"  # no object size on Lustre
    assert ("ceph.object_size", "33554432") in s.pairs()
    # getfattr's answer reads back as the same settings; -1 (every OST) is the servers' count, asked at run time
    got, issues = parse('# file: x\nceph.file.layout="stripe_unit=65536 stripe_count=2 object_size=4194304 '
                        'pool=cephfs_data"\n', "ceph")
    assert not issues and got.layout == [{"stripe_size": "65536", "stripe_count": "2", "object_size": "4194304",
                                          "pool": "cephfs_data"}]
    every = render(from_pairs(["lustre.stripe_count=-1"]), "ceph")
    assert "stripe_count=$(ceph osd ls | wc -l)" in every and parse(every, "ceph")[0].layout[0]["stripe_count"] == "-1"
    # the striping hints are the same layout: their CephFS spelling is the command that makes it real
    assert render(from_pairs(["striping_factor=4", "striping_unit=1048576"]), "ceph") == \
        'setfattr -n ceph.dir.layout -v "stripe_unit=1048576 stripe_count=4" DIR\n'


def test_what_cephfs_refuses_is_refused_first():
    _, issues = build([("ceph.stripe_unit", "1m"), ("ceph.object_size", "1572864")])  # 1.5 MiB
    assert any("not a multiple of the stripe size" in i.message for i in issues)
    _, issues = build([("ceph.stripe_unit", "100000")], syntax="pario")
    assert any("multiple of 64 KiB" in i.message for i in issues)
    _, issues = parse('setfattr -n ceph.dir.layout -v "stripe_colour=red" DIR\n', "ceph")
    assert "not a CephFS layout field" in issues[0].message
    keys = {r["key"]: r for r in key_rows()}
    assert keys["ceph.stripe_unit"]["honoured_by"] == ["cephfs"] and "lustre.object_size" not in keys


def test_layout_records_on_cephfs(tmp_path):
    hints = {"name": "c", "backend": "mpiio", "strategy": "shared", "hints": {"striping_factor": "4"}}
    (rec,) = layout_apply.prepare([hints], str(tmp_path), "pario.x", 2, "cephfs", servers=4).values()
    assert rec["from"] == "hints" and not rec["applied"] and "ignore them" in rec["reason"]
    assert not list(tmp_path.iterdir())  # the MPI creates the file: its layout is read back after the write
    pfl = {**hints, "hints": {}, "_layout": [{"stripe_count": "2", "extent_end": "64m"}, {"stripe_count": "4"}]}
    (rec,) = layout_apply.prepare([pfl], str(tmp_path), "pario.y", 2, "cephfs", servers=4).values()
    assert "no composite" in rec["reason"]
    md = {"name": "m", "workload": "metadata", "_layout": [{"stripe_count": "-1"}]}
    (rec,) = layout_apply.prepare([md], str(tmp_path), "pario.z", 2, "cephfs", servers=4).values()
    assert rec["resolved"]["stripe_count"] == "4" and rec["top_xattr"] == "ceph.dir.layout=stripe_count=4"
    # not on CephFS here: setting it fails with the file system's own reason, and nothing is left half-made
    posix = {"name": "p", "backend": "posix", "strategy": "shared", "_layout": [{"stripe_count": "2"}]}
    (rec,) = layout_apply.prepare([posix], str(tmp_path), "pario.w", 2, "cephfs", servers=4).values()
    assert not rec["applied"] and "setfattr -n ceph.file.layout" in rec["reason"]
    assert not list(tmp_path.iterdir())


def test_the_file_has_what_mpiio_only_echoed():
    rows = [{"key": "striping_factor", "requested": "4", "effective": None, "status": "in effect"},
            {"key": "striping_unit", "requested": "1048576", "effective": "1048576", "status": "in effect"},
            {"key": "cb_nodes", "requested": "2", "effective": "2", "status": "in effect"}]
    file_layout(rows, {"value": "stripe_unit=1048576 stripe_count=1 object_size=4194304 pool=d",
                       "means": "getxattr ceph.file.layout"}, "cephfs", {"striping_factor": "4"})
    assert rows[0]["status"] == "not applied" and rows[0]["file"] == "1"
    assert "asked 4, MPI-IO reports 4 (MPI_File_get_info), the file has stripe_count 1" in rows[0]["reason"]
    assert rows[1]["status"] == "in effect" and "as every new file here" in rows[1]["reason"]
    assert "file" not in rows[2]


def test_layout_text_as_the_file_system_writes_it():
    assert ceph_layout.parse_layout('ceph.file.layout="stripe_unit=4194304 stripe_count=1 object_size=4194304 '
                               'pool=cephfs_data"') == {"stripe_unit": 4194304, "stripe_count": 1,
                                                         "object_size": 4194304, "pool": "cephfs_data"}
    assert ceph_layout.format_layout({"pool": "p", "stripe_count": 2}) == "stripe_count=2 pool=p"


def test_the_busiest_server_over_its_cap_predicts_the_phase():
    cap = 50 << 20
    assert servers.predict({"osd.0": 64 << 20, "osd.1": 32 << 20}, {"osd.0": cap, "osd.1": cap}) == (1.28, "osd.0")
    assert servers.predict({"osd.0": 1}, {}) is None  # a server without a cap: no prediction
    sampler = servers.ServerSampler.__new__(servers.ServerSampler)
    sampler.server_list = [{"name": f"osd.{i}", "cap_write_bps": cap} for i in range(2)]
    sampler.failed, sampler.start, sampler.from_last = False, {}, set()
    sampler.phases = {(0, "write", r): {"osd.0": {"write": 64 << 20, "read": 0}, "osd.1": {"write": 32 << 20,
                                                                                              "read": 0}}
                      for r in range(2)}
    sampler.cases = {0: {"osd.0": {"write": 128 << 20, "read": 0}, "osd.1": {"write": 64 << 20, "read": 0}}}
    result = {"cases": [{"index": 0, "name": "c", "phases": [
        {"op": "write", "rep": r, "bytes": 96 << 20, "open_to_close_s": 1.3} for r in range(2)]}]}
    servers.annotate(result, sampler)
    case = result["cases"][0]
    assert case["servers"]["caps"]["osd.0"] == {"write": cap}
    assert case["phases"][0]["servers"] == {"direction": "write", "bytes": {"osd.0": 64 << 20, "osd.1": 32 << 20},
                                            "ops": {"osd.0": 0, "osd.1": 0}, "predicted_s": 1.28, "busiest": "osd.0"}
    out = io.StringIO()
    print_servers(Console(file=out, width=120), result["cases"])
    text = out.getvalue()
    assert "1.28 s" in text and "1.30 s 1.02x" in text and "its cap (50 MiB/s)" in text and " 64 " in text


@pytest.mark.parametrize("fstype,expected", [("fuse.ceph-fuse", "ceph-fuse"), ("ceph", "kernel")])
def test_the_client_is_named_from_the_mount(fstype, expected):
    assert cephfs.client({"mount_point": "/nowhere", "fstype": fstype})["client"] == expected


def test_crush_spreads_objects_less_evenly_than_round_robin():
    """predict's CephFS placement: each object on a server drawn at random, the busiest server's
    expected share (4 objects on 4 servers: all apart 3 times in 32, E[max] = 2.125)."""
    from pario.predict.mechanisms import crush_load_share
    assert crush_load_share(4, 4) * 4 == pytest.approx(2.125)
    assert crush_load_share(4, 2) * 2 == pytest.approx(1.25)
    assert crush_load_share(1, 7) == 1.0 and crush_load_share(4, 1) == 1.0
    assert crush_load_share(4, 16) * 16 == pytest.approx(6.139, abs=1e-3)
    # beyond the exact range the approximation joins it, and the share falls toward 1/servers
    assert abs(crush_load_share(4, 17) * 17 - 6.59) < 0.2 and 0.25 < crush_load_share(4, 1024) < 0.27


def test_predict_reads_the_case_layout_and_calibrates_cephfs_servers_flushed():
    from pario.plan.cases import build_case
    from pario.predict.calibrate import probes
    from pario.predict.pattern import from_case
    case = build_case({"backend": "posix", "strategy": "shared", "stripe_count": 4, "stripe_size": "1m"})
    pat = from_case(case, {"nodes": 1, "ranks_per_node": 4})
    assert (pat.stripe_count, pat.stripe_size) == (4, 1 << 20)
    rate_probes = [c for _, _, cases in probes(4, 1 << 20, "cephfs")[:2] for c in cases]
    assert all(c["fsync"] and c["stripe_count"] == -1 and c["object_size"] == "4m" for c in rate_probes)
    assert not any("fsync" in c for _, _, cases in probes(4, 1 << 20, "local") for c in cases)


def test_results_compare_says_what_the_placement_predicts():
    from pario.analysis.compare import placement

    def case(busy, secs):
        return {"phases": [{"op": "write", "rep": 0, "servers": {"predicted_s": secs, "busiest": "osd.1",
                                                                  "bytes": {"osd.1": busy << 20}}}]}
    assert placement("write", case(128, 2.56), case(64, 1.28)) == (
        "the servers' placement predicts B/A 2.00 (busiest server per phase: A 128 MiB, 2.56 s; B 64 MiB, 1.28 s "
        "at their caps)")
    assert placement("read", case(128, 2.56), case(64, 1.28)) is None and placement("write", {}, case(1, 1)) is None


def test_the_sampler_counts_phases_with_and_without_an_open_event(monkeypatch):
    """Data phases between their open and phase events; a metadata phase (no open event) since the
    previous reading; each case from its first event to the next case's."""
    readings = iter([{"osd.0": {"write": w, "read": 0, "write_ops": w, "read_ops": 0}}
                     for w in (0, 10, 40, 45, 100, 160)])
    monkeypatch.setattr("pario.platform.cephfs.counters", lambda *a, **k: next(readings))
    s = servers.ServerSampler([{"name": "osd.0"}])                        # reading 0
    s.event({"event": "open", "case": 0, "op": "write", "rep": 0})        # 10
    s.event({"event": "phase", "case": 0, "op": "write", "rep": 0})       # 40
    s.event({"event": "phase", "case": 1, "op": "create", "rep": 0})      # 45: a new case, no open
    s.event({"event": "phase", "case": 1, "op": "stat", "rep": 0})        # 100
    s.finish()                                                            # 160
    assert s.phases[(0, "write", 0)]["osd.0"]["write"] == 30
    assert s.phases[(1, "create", 0)]["osd.0"]["write"] == 5 and s.phases[(1, "stat", 0)]["osd.0"]["write"] == 55
    assert s.from_last == {(1, "create", 0), (1, "stat", 0)}
    assert s.cases[0]["osd.0"]["write"] == 30 and s.cases[1]["osd.0"]["write"] == 120
