"""IOR's -Y, -D (with wear-out), -u, -E and -T in the engine, against IOR 4.0.0's meaning (`ior -h`,
src/ior.c): real MPI, real files, small sizes."""
import json
import os
import shutil
import subprocess

import pytest

from engine_support import ENGINE, HAVE_MPIRUN, mpirun, prefix_for, run_engine

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

KIB = 1024


def case(**kw):
    c = {"name": "c", "backend": "posix", "strategy": "shared", "pattern": "segmented", "xfer": 4 * KIB,
         "block": 64 * KIB, "segments": 1, "ops": ["write"], "reps": 1}
    c.update(kw)
    return c


def phases(doc, op):
    return [p for p in doc["cases"][0]["phases"] if p["op"] == op]


@pytest.mark.parametrize("backend", ["posix", "mpiio"])
def test_fsync_per_write_syncs_after_every_write_call(tmp_path, backend):
    # -Y: 2 ranks x 16 calls of 4 KiB, each followed by the backend's sync
    proc, doc = run_engine(tmp_path, [case(backend=backend, fsync_per_write=True)], n=2)
    assert proc.returncode == 0, proc.stderr
    (w,) = phases(doc, "write")
    assert w["ops"] == 32 and w["syncs"] == 32
    assert doc["cases"][0]["spec"]["fsync_per_write"] is True


def _strace_counts(tmp_path, per_write):
    """(4 KiB pwrite calls, fsync calls) the kernel saw for 1 rank writing 16 calls."""
    tmp_path.mkdir()
    spec = {"schema": "pario.spec/1", "run_id": "t", "dir": str(tmp_path), "prefix": prefix_for(tmp_path),
            "cases": [case(fsync_per_write=per_write)]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    out = tmp_path / "strace.txt"
    run = subprocess.run(["strace", "-f", "-qq", "-e", "trace=fsync,pwrite64", "-o", str(out),
                          *mpirun(1), ENGINE, str(tmp_path / "spec.json"), str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = out.read_text().splitlines()
    return (sum("pwrite64(" in ln and ln.rstrip().endswith("= 4096") for ln in lines),
            sum(" fsync(" in ln or ln.startswith("fsync(") for ln in lines))


@pytest.mark.skipif(not shutil.which("strace"), reason="strace not installed")
def test_fsync_per_write_is_seen_by_strace(tmp_path):
    # the kernel's view: with -Y one fsync per write call; without it, none of them
    writes, syncs = _strace_counts(tmp_path / "y", True)
    plain_writes, plain_syncs = _strace_counts(tmp_path / "n", False)
    assert writes == plain_writes == 16
    assert syncs - plain_syncs == 16


def test_deadline_moves_fewer_bytes_and_says_so(tmp_path):
    # -D 20 ms on 256 MiB per rank in 4 KiB calls, each fsynced: far from done when the deadline passes
    c = case(block=256 << 20, deadline_us=20000, fsync_per_write=True)
    proc, doc = run_engine(tmp_path, [c], n=2)
    assert proc.returncode == 0, proc.stderr
    (w,) = phases(doc, "write")
    asked = doc["cases"][0]["total_bytes"]
    assert 0 < w["bytes"] < asked and w["stonewall"]["ranks_stopped"] >= 1
    assert w["bytes"] == sum(w["ranks"]["bytes"]) and w["bytes"] % (4 * KIB) == 0
    assert w["bw_mib"] == pytest.approx(w["bytes"] / 2**20 / w["open_to_close_s"], rel=1e-6)
    assert not os.listdir(tmp_path) or all(not f.startswith(prefix_for(tmp_path)) for f in os.listdir(tmp_path))


@pytest.mark.parametrize("collective, read_check", [(False, True), (True, True), (False, False)])
def test_wearout_then_read_reads_what_was_written(tmp_path, collective, read_check):
    # IOR's wear-out: every rank finishes the most advanced count; the read then reads that
    # count only, checked word by word (no error: it read nothing that was not written)
    c = case(backend="mpiio", collective=collective, block=32 << 20, deadline_us=2000, wearout=True,
             ops=["write", "read", "verify"], fsync_per_write=not collective, read_check=read_check)
    proc, doc = run_engine(tmp_path, [c], n=2)
    assert proc.returncode == 0, proc.stderr
    (w,), (r,), (v,) = phases(doc, "write"), phases(doc, "read"), phases(doc, "verify")
    per_rank = w["ranks"]["bytes"]
    assert per_rank[0] == per_rank[1] and w["bytes"] < doc["cases"][0]["total_bytes"]
    assert r["bytes"] <= w["bytes"] and (r["verify"]["errors"] == 0 if read_check else "verify" not in r)
    assert v["bytes"] == w["bytes"] and v["verify"]["errors"] == 0 and v["verify"]["checked_bytes"] == w["bytes"]


def test_deadline_read_after_write_without_wearout_is_refused(tmp_path):
    proc, doc = run_engine(tmp_path, [case(deadline_us=1000, ops=["write", "read"])], n=1)
    assert proc.returncode != 0 and "needs wearout" in proc.stderr + json.dumps(doc)


def test_unique_dir_puts_each_rank_file_in_its_directory(tmp_path):
    for r in range(2):
        (tmp_path / str(r)).mkdir()  # the front end makes them (platform/scratch.py)
    c = case(strategy="fpp", unique_dir=True, keep=True, ops=["write", "read"])
    proc, doc = run_engine(tmp_path, [c], n=2)
    assert proc.returncode == 0, proc.stderr
    for r in range(2):
        assert os.listdir(tmp_path / str(r)) == [f"{prefix_for(tmp_path)}.0.{r}"]
        assert os.path.getsize(tmp_path / str(r) / f"{prefix_for(tmp_path)}.0.{r}") == 64 * KIB
    assert phases(doc, "read")[0]["verify"]["errors"] == 0


@pytest.mark.parametrize("backend", ["posix", "mpiio"])
def test_use_existing_keeps_the_file_and_its_inode(tmp_path, backend):
    # -E: a file that is there is written into (not truncated: its tail stays) and never removed
    path = tmp_path / f"{prefix_for(tmp_path)}.0.0"
    path.write_bytes(b"x" * (256 * KIB))
    inode = path.stat().st_ino
    proc, doc = run_engine(tmp_path, [case(backend=backend, use_existing=True, reps=2)], n=2)
    assert proc.returncode == 0, proc.stderr
    assert path.exists() and path.stat().st_ino == inode and path.stat().st_size == 256 * KIB
    assert path.read_bytes()[128 * KIB:] == b"x" * (128 * KIB)
    assert len(phases(doc, "write")) == 2


def test_use_existing_removes_a_file_it_created(tmp_path):
    proc, _ = run_engine(tmp_path, [case(use_existing=True)], n=1)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / f"{prefix_for(tmp_path)}.0.0").exists()


def test_max_time_stops_repetitions(tmp_path):
    # -T: 1 ms; the first repetition (32 MiB in fsynced 4 KiB calls) outlasts it, no other starts
    c = case(block=8 << 20, fsync_per_write=True, reps=5, max_time_ms=1, ops=["write", "read"],
             keep=True)
    proc, doc = run_engine(tmp_path, [c], n=1)
    assert proc.returncode == 0, proc.stderr
    limit = doc["cases"][0]["max_time"]
    assert limit == {"minutes": pytest.approx(1 / 60000, rel=1e-3), "reps_run": 1, "stopped": True}
    assert [p["op"] for p in doc["cases"][0]["phases"]] == ["write", "read"]
    assert (tmp_path / f"{prefix_for(tmp_path)}.0.0").exists()  # -k: the last repetition's file is kept


def test_max_time_not_reached_runs_every_repetition(tmp_path):
    proc, doc = run_engine(tmp_path, [case(reps=3, max_time_ms=600000)], n=1)
    assert proc.returncode == 0, proc.stderr
    assert doc["cases"][0]["max_time"]["reps_run"] == 3 and doc["cases"][0]["max_time"]["stopped"] is False
