"""The engine alone, on the null backend and on real files: phases, reductions, result document,
exit codes and faults. Runs pario-engine under real mpirun."""
import json
import shutil
import subprocess

import pytest

from engine_support import ENGINE, ROOT, mpirun, prefix_for
from engine_support import run_engine as _run

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(not ENGINE or not shutil.which("mpirun"),
                                reason="pario-engine or mpirun not found (run make setup)")]


def run_engine(tmp_path, cases, n=2, env=None, timeout=120):
    return _run(tmp_path, cases, n=n, env=env, timeout=timeout, status=True)


def case(name="c", **kw):
    c = {"name": name, "backend": "posix", "strategy": "shared", "pattern": "segmented",
         "xfer": 4096, "block": 16384, "segments": 2, "ops": ["write", "read", "verify"], "reps": 1}
    c.update(kw)
    return c


def data_files(tmp_path):
    return sorted(p.name[len(prefix_for(tmp_path)):] for p in tmp_path.glob(prefix_for(tmp_path) + ".*"))


def test_null_backend_phases_and_reductions(tmp_path):
    proc, doc = run_engine(tmp_path, [case(backend="null", ops=["write", "read"], reps=3)], n=3)
    assert proc.returncode == 0, proc.stderr
    assert doc["status"] == "complete" and doc["mpi"]["ranks"] == 3
    phases = doc["cases"][0]["phases"]
    assert [(p["op"], p["rep"]) for p in phases] == [(o, r) for r in range(3) for o in ("write", "read")]
    for p in phases:
        assert p["bytes"] == 3 * 16384 * 2 and p["ops"] == 3 * 8
        assert len(p["ranks"]["open"]) == 3
        assert 0 <= p["first_done_s"] <= p["last_done_s"] == pytest.approx(p["open_to_close_s"])
        assert p["xfer_s"] <= p["open_to_close_s"] + 1e-9
    lines = [json.loads(ln[len("@pario "):]) for ln in proc.stdout.splitlines()]
    assert lines[0]["event"] == "start" and lines[0]["steps"] == 6
    assert [ev["step"] for ev in lines if ev["event"] == "phase"] == list(range(1, 7))
    assert lines[-1] == {"event": "done", "status": "complete"}


def test_result_matches_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    cases = [case(), case("m", backend="mpiio", collective=True, view=True, hints={"romio_cb_write": "enable"})]
    spec_schema = json.loads((ROOT / "schemas" / "spec.schema.json").read_text())
    jsonschema.validate({"schema": "pario.spec/1", "run_id": "t", "dir": "/x", "prefix": "p", "cases": cases},
                        spec_schema)
    proc, doc = run_engine(tmp_path, cases)
    assert proc.returncode == 0, proc.stderr
    jsonschema.validate(doc, json.loads((ROOT / "schemas" / "result.schema.json").read_text()))
    assert doc["cases"][1]["hints"]["requested"] == {"romio_cb_write": "enable"}
    assert doc["cases"][1]["hints"]["source"] == "MPI_File_get_info"


def test_files_removed_unless_kept(tmp_path):
    proc, doc = run_engine(tmp_path, [case("a", strategy="fpp", reps=2), case("b", keep=True)], n=2)
    assert proc.returncode == 0, proc.stderr
    assert data_files(tmp_path) == [".1.0"]
    assert (tmp_path / f"{prefix_for(tmp_path)}.1.0").stat().st_size == 2 * 16384 * 2


def test_verify_catches_one_corrupted_byte(tmp_path):
    proc, _ = run_engine(tmp_path, [case(ops=["write"], keep=True)], n=2)
    assert proc.returncode == 0, proc.stderr
    f = tmp_path / f"{prefix_for(tmp_path)}.0.0"
    raw = bytearray(f.read_bytes())
    raw[50001] ^= 0x01
    f.write_bytes(bytes(raw))
    proc, doc = run_engine(tmp_path, [case(ops=["read", "verify"], reuse=True)], n=2)
    for p in doc["cases"][0]["phases"]:
        assert p["verify"]["errors"] == 1
        assert p["verify"]["first_error"]["offset"] == 50000
    assert f.exists()  # files of an earlier run are never removed by a reuse


def test_reads_that_return_nothing_fail(tmp_path):
    proc, _ = run_engine(tmp_path, [case(ops=["write"], keep=True)], n=1)
    f = tmp_path / f"{prefix_for(tmp_path)}.0.0"
    f.write_bytes(b"\0" * f.stat().st_size)  # right size, wrong data
    proc, doc = run_engine(tmp_path, [case(ops=["verify"], reuse=True)], n=1)
    assert doc["cases"][0]["phases"][0]["verify"]["errors"] == 2 * 16384 // 8


def test_bad_spec_exit_2_with_document(tmp_path):
    proc, doc = run_engine(tmp_path, [case(xfer=1004, block=1004 * 4)], n=1)
    assert proc.returncode == 2
    assert doc["status"] == "failed" and doc["error"]["code"] == "spec"
    assert "multiple of 8" in doc["error"]["message"]


def test_more_files_than_ranks_rejected(tmp_path):
    proc, doc = run_engine(tmp_path, [case(strategy="nfiles", nfiles=3)], n=2)
    assert proc.returncode != 0
    assert "nfiles 3" in doc["error"]["message"]
    assert data_files(tmp_path) == []


def test_unwritable_directory_is_one_clear_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    spec_dir = tmp_path
    cases = [case()]
    spec = {"schema": "pario.spec/1", "run_id": "t", "dir": str(ro / "missing"), "prefix": prefix_for(tmp_path),
            "cases": cases}
    (spec_dir / "spec.json").write_text(json.dumps(spec))
    proc = subprocess.run(mpirun(2) + [ENGINE, str(spec_dir / "spec.json"), str(spec_dir / "result.json")],
                          capture_output=True, text=True, timeout=60)
    doc = json.loads((spec_dir / "result.json").read_text())
    assert proc.returncode == 1 and doc["status"] == "failed"
    assert doc["error"]["code"] in ("noent", "perm") and "open" in doc["error"]["message"]


def test_a_dying_rank_leaves_a_document(tmp_path):
    proc, doc = run_engine(tmp_path, [case("a"), case("b", strategy="fpp")], n=3, env={"PARIO_FAULT": "die:1"})
    assert proc.returncode != 0
    assert doc is not None and doc["status"] == "running"  # the front end marks it partial
    status = (tmp_path / "rank.1").read_text().split()
    assert status[:3] == ["0", "write", "0"] and status[3] != "done"


def test_every_strategy_and_pattern_on_4_ranks(tmp_path):
    strategies = [{"strategy": "serial"}, {"strategy": "fpp"}, {"strategy": "shared"},
                  {"strategy": "nfiles", "nfiles": 2}, {"strategy": "pernode"},
                  {"strategy": "nfiles", "nfiles": 2, "aggregate": True}]
    patterns = [{"pattern": "segmented", "segments": 1}, {"pattern": "segmented", "segments": 3},
                {"pattern": "subarray", "ldims": [4, 6, 8], "xfer": 384}, {"pattern": "random", "xfer": 512}]
    cases = []
    for s in strategies:
        for p in patterns:
            for b in ({"backend": "posix"}, {"backend": "mpiio", "collective": True}):
                if s.get("aggregate") or s["strategy"] == "serial":
                    if b.get("collective"):
                        continue
                cases.append(case(f"{len(cases)}", reorder=1, **{**s, **p, **b}))
    proc, doc = run_engine(tmp_path, cases, n=4)
    assert proc.returncode == 0, proc.stderr
    for c in doc["cases"]:
        assert len(c["phases"]) == 3
        for p in c["phases"]:
            assert p["bytes"] == c["total_bytes"] == 4 * c["bytes_per_rank"]
            if p["op"] != "write":
                assert p["verify"]["errors"] == 0 and p["verify"]["checked_bytes"] == c["total_bytes"]
    assert data_files(tmp_path) == []


def test_precreated_files_keep_their_identity_across_repetitions(tmp_path):
    # The front end creates files with a Lustre layout before the run (lfs setstripe); striping
    # is fixed at creation, so the engine must empty them between repetitions, not recreate them.
    # An extended attribute stands in for the layout: it survives only if the file does.
    import os
    path = tmp_path / f"{prefix_for(tmp_path)}.0.0"
    path.write_bytes(b"")
    try:
        os.setxattr(path, "user.pario_test", b"layout")
    except OSError:
        pytest.skip("no user extended attributes on this file system")
    proc, doc = run_engine(tmp_path, [case(ops=["write", "read"], reps=3, keep=True, precreated=True)], n=2)
    assert proc.returncode == 0, proc.stderr
    assert [p["op"] for p in doc["cases"][0]["phases"]] == ["write", "read"] * 3
    assert os.getxattr(path, "user.pario_test") == b"layout"
    assert path.stat().st_size == 2 * 16384 * 2
    proc, doc = run_engine(tmp_path, [case(ops=["write"], reps=2, precreated=True)], n=2)
    assert proc.returncode == 0 and not path.exists()  # removed after the last repetition
