"""Striping on a real parallel file system: CephFS with four object servers (the session's `pfs`,
scripts/local-pfs.sh). `pario stack` names it, `pario bench --stripe-count/--stripe-size` create
the files with the layout and read back what they got, MPI-IO's striping hints show as what they
are there (echoed, not applied), and with the servers capped, the time of a shared-file write is
what its placement predicts: the busiest server's bytes, from its own counters, over its cap."""
import json

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, bench_json, pario, write_job

pytestmark = [pytest.mark.mpi, pytest.mark.e2e,
              pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")]
MIB = 1 << 20


def _case(doc, index=0):
    return doc["result"]["cases"][index]


def test_stack_names_cephfs_its_servers_and_layout(pfs, tmp_path):
    out = pario([str(pfs.mount), "--json", "--no-probe"], tmp_path, command="stack")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["fs"]["type"] == "cephfs" and doc["fs"]["parallel"]
    ceph = doc["cephfs"]
    assert ceph["client"]["client"] == "ceph-fuse" and ceph["client"]["conf"] == str(pfs.conf)
    assert ceph["servers"] == pfs.servers and {p["name"] for p in ceph["pools"]} == {"cephfs_metadata", "cephfs_data"}
    assert ceph["filesystems"][0]["data_pools"] == ["cephfs_data"] and ceph["filesystems"][0]["mds_active"]
    assert ceph["new_file_layout"] == {"stripe_unit": MIB, "stripe_count": 1, "object_size": 128 * MIB,
                                       "pool": "cephfs_data"}
    assert all(s.get("socket") for s in ceph["server_list"])
    if pfs.cap:
        assert {s["cap_write_bps"] for s in ceph["server_list"]} == {pfs.cap}
    text = pario([str(pfs.mount), "--no-probe"], tmp_path, command="stack").stdout
    assert "CephFS servers" in text and f"{pfs.servers} object servers" in text


def test_mpiio_striping_hints_are_echoed_not_applied(pfs, tmp_path):
    """ROMIO's ufs driver (over ceph-fuse) returns striping_factor=4 from MPI_File_get_info while
    the file gets the directory's layout: asked 4, MPI-IO reports 4, the file has 1."""
    run, doc = bench_json(["-a", "mpiio", "-c", "--io", "romio321", "-n", "2", "-t", "1m", "-b", "1m", "-w", "-i", "1",
                           "--hint", "striping_factor=4", "--hint", "striping_unit=1048576",
                           "--dir", str(pfs.mount / tmp_path.name)], tmp_path)
    assert run.returncode == 0, run.stderr
    case = _case(doc)
    assert case["fs_layout"]["value"].startswith("stripe_unit=1048576 stripe_count=1 ")
    row = {r["key"]: r for r in case["hints"]["check"]}["striping_factor"]
    assert row["status"] == "not applied" and row["file"] == "1"
    assert "asked 4, MPI-IO reports 4" in row["reason"] and "the file has stripe_count 1" in row["reason"]
    assert case["layout"]["from"] == "hints" and not case["layout"]["applied"]


def test_stripe_flags_create_files_and_directories_with_the_layout(pfs, tmp_path):
    scratch = pfs.mount / tmp_path.name
    job = write_job(tmp_path / "job.toml", [
        {"name": "shared", "strategy": "shared", "backend": "mpiio", "stripe_count": 4, "stripe_size": "256k",
         "object_size": "1m"},
        {"name": "fpp-u", "strategy": "fpp", "unique_dir": True, "stripe_count": 2},
        {"name": "plain", "strategy": "shared"}],
        {"transfer": "256k", "block": "1m", "ops": ["write"], "reps": 2})
    run, doc = bench_json(["--config", str(job), "-n", "2", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr
    shared, fpp, plain = (_case(doc, i) for i in range(3))
    assert shared["layout"]["applied"] and shared["layout"]["mismatch"] == []
    assert shared["layout"]["effective"] == {"stripe_unit": 256 << 10, "stripe_count": 4, "object_size": MIB,
                                             "pool": "cephfs_data"}
    # the MPI-IO open (and the truncation between repetitions) kept it: read back after the write
    assert shared["fs_layout"]["value"] == "stripe_unit=262144 stripe_count=4 object_size=1048576 pool=cephfs_data"
    assert fpp["layout"]["applied"] and fpp["layout"]["target"] == "directories"
    assert fpp["layout"]["effective"]["stripe_count"] == 2 and " stripe_count=2 " in fpp["fs_layout"]["value"]
    assert "layout" not in plain and " stripe_count=1 " in plain["fs_layout"]["value"]
    assert not list(scratch.iterdir()) if scratch.exists() else True  # nothing left behind


def test_bad_layouts_are_refused_before_the_run(pfs, tmp_path):
    for args, words in ((["--stripe-size", "100k"], "multiple of 64 KiB"),
                        (["--stripe-size", "1m", "--object-size", "1536k"], "not a multiple of the stripe size")):
        out = pario(["-a", "posix", "-n", "1", "-w", *args, "--dir", str(pfs.mount / tmp_path.name)], tmp_path)
        assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_capped_servers_count_a_shared_file_by_its_placement(pfs, tmp_path):
    """4 writers, one 64 MiB file, each server capped: at stripe count 1 (one 128 MiB object: one
    server) and 4 (four 16 MiB objects placed by CRUSH) the servers' own counters show where the bytes
    went, the prediction is the busiest server's bytes over its cap, and no phase beats its servers'
    caps. That the time then follows the prediction holds on a quiet machine only (the one FUSE client
    shares 2 cores with everything else): benchmarks/cephfs_striping.md has the figures."""
    if not pfs.cap:
        pytest.skip("the servers have no bandwidth caps here (no blkio cgroup); benchmarks/cephfs_striping has figures")
    job = write_job(tmp_path / "job.toml", [{"name": "sc1", "stripe_count": 1}, {"name": "sc4", "stripe_count": 4}],
                    {"backend": "posix", "strategy": "shared", "transfer": "1m", "block": "16m", "ops": ["write"],
                     "fsync": True, "reps": 1})
    run, doc = bench_json(["--config", str(job), "-n", "4", "--dir", str(pfs.mount / tmp_path.name)], tmp_path)
    assert run.returncode == 0, run.stderr
    phases = [_case(doc, i)["phases"][0] for i in range(2)]
    for ph in phases:
        moved = ph["servers"]["bytes"]
        assert 0.97 * 64 * MIB <= sum(moved.values()) <= 1.1 * 64 * MIB, moved  # the data, and little else
        busiest = ph["servers"]["busiest"]
        assert ph["servers"]["predicted_s"] == pytest.approx(moved[busiest] / pfs.cap, rel=1e-3)
        # the caps hold, blkio's burst aside: its throttle lets a time slice's budget through at once (0.235 s
        # against 0.32 s predicted, 0.73 of it, was seen under load), while data left in ceph-fuse's cache, not
        # at the servers, shows as 0.37 and 0.59 of it (benchmarks/cephfs/RESULTS.md, without -e)
        assert ph["open_to_close_s"] >= 0.65 * ph["servers"]["predicted_s"], ph
    one, four = (ph["servers"]["bytes"] for ph in phases)
    assert max(one.values()) >= 0.99 * 64 * MIB  # one object, one server
    assert all(abs(b / (16 * MIB) - round(b / (16 * MIB))) < 0.05 for b in four.values())  # whole 16 MiB objects


def test_the_kaust_preset_runs_every_stripe_count_here(pfs, tmp_path):
    """The seed's stripe counts 1, 2, 4, 5, 10 and -1 all run on CephFS (on ext4 only 1 does), each
    file created with its layout, read back, and the servers' bytes recorded beside the rates."""
    run, doc = bench_json(["--preset", "kaust-striping", "--scale", str(1 / 64), "-i", "1", "-n", "2",
                           "--dir", str(pfs.mount / tmp_path.name)], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert doc["preset"]["skipped"] == []
    cases = doc["result"]["cases"]
    got = {c["name"]: c["layout"]["effective"]["stripe_count"] for c in cases}
    assert got == {"stripe-1": 1, "stripe-2": 2, "stripe-4": 4, "stripe-5": 5, "stripe-10": 10,
                   "stripe-all": pfs.servers}
    assert all(sum(c["phases"][0]["servers"]["bytes"].values()) >= 2 * MIB for c in cases)  # 2 x 1 MiB, flushed


def test_tune_searches_the_layout_on_cephfs(pfs, tmp_path):
    out = pario(["-a", "mpiio", "--strategy", "shared", "-t", "1m", "-b", "16m", "-n", "4", "-w", "--dir",
                 str(pfs.mount / tmp_path.name), "--dry-run"], tmp_path, command="tune")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert f"ceph.stripe_count: default, 1, {pfs.servers}" in text and "ceph.object_size: default, 4MiB" in text
    assert "striping_factor" not in text.split("not searched")[0]  # MPI-IO's hint: not a knob here
