"""`pario bench --drop-caches`: cold reads in one command, as a normal user. Between the write
and each read the engine evicts the run's own files (fsync + POSIX_FADV_DONTNEED, no privilege
needed) and measures with mincore what is left; the table says the measured residency."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, ROOT, assert_rejected, pario
from pario.platform import pagecache

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

NOBODY = 65534


def _can_evict(directory):
    """Whether POSIX_FADV_DONTNEED empties the page cache of a file here (not on tmpfs, for one)."""
    path = os.path.join(directory, "evict-probe")
    with open(path, "wb") as fh:
        fh.write(os.urandom(1 << 20))
        fh.flush()
        os.fsync(fh.fileno())
        os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    share = pagecache.resident_fraction([path])
    os.unlink(path)
    return share is not None and share < 0.05


def _as_normal_user():
    """(argv prefix, uid, engine, launcher): as root, `setpriv` to nobody with an engine nobody can
    start (the Open MPI build links libraries under root's cache when ADIOS2 was built there; the
    MPICH build has no ADIOS2), so that the test shows no privilege is used; else the current user."""
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if os.geteuid() == 0 and shutil.which("setpriv"):
        for engine, launcher in ((ENGINE, None), (os.environ.get("PARIO_ENGINE_MPICH"), "mpiexec.mpich")):
            if engine and (launcher is None or shutil.which(launcher)) and subprocess.run(
                    [*prefix, engine, "--version"], capture_output=True, timeout=30).returncode == 0:
                return prefix, NOBODY, engine, launcher
    return [], os.geteuid(), ENGINE, None


def test_cold_reads_in_one_command_as_a_normal_user():
    prefix, uid, engine, launcher = _as_normal_user()
    base = tempfile.mkdtemp(prefix="pario-dropcaches-", dir="/var/tmp")  # a disk file system, not tmpfs
    try:
        os.chmod(base, 0o777)
        if not _can_evict(base):
            pytest.skip(f"{base}: this file system keeps evicted pages resident; nothing to measure")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PARIO_", "OMPI_", "XDG_"))}
        env.update(PYTHONPATH=str(ROOT / "src"), PARIO_ENGINE=engine, PARIO_DB=f"{base}/runs.db",
                   XDG_CACHE_HOME=f"{base}/cache", HOME=base, COLUMNS="200", PATH=os.environ["PATH"])
        if launcher:
            env["PARIO_MPIRUN"] = launcher
        argv = [*prefix, sys.executable, "-m", "pario", "bench", "-a", "posix", "-F", "-t", "1m", "-b", "16m",
                "-n", "2", "-w", "-r", "-i", "2", "--drop-caches", "--no-probe", "--dir", f"{base}/scratch"]
        run = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=base, timeout=300)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        assert os.stat(f"{base}/runs.db").st_uid == uid
        out = run.stdout
        assert "Page cache before the reads (measured with mincore)" in out
        assert "0% resident before each of 2 repetitions (evicted: fsync + POSIX_FADV_DONTNEED)" in out
        assert "cold" in out and "warm" not in out.split("Page cache")[0]
        # the stored run has the engine's figures per read phase
        show = subprocess.run([*prefix, sys.executable, "-m", "pario", "results", "show", "last", "--json"],
                              capture_output=True, text=True, env=env, cwd=base, timeout=60)
        import json
        doc = json.loads(show.stdout)
        reads = [p for p in doc["result"]["cases"][0]["phases"] if p["op"] == "read"]
        assert len(reads) == 2 and all(p["cache"]["evicted"] == "files" and p["cache"]["resident"] < 0.05
                                       for p in reads)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_drop_caches_all_needs_root_and_reads(tmp_path):
    assert_rejected(["-w", "--drop-caches"], "--drop-caches evicts the run's files before its reads", tmp_path)
    if os.geteuid() != 0:
        assert_rejected(["-w", "-r", "--drop-caches", "all"], "needs root", tmp_path)


def test_reuse_with_drop_caches_evicts_the_kept_files_first(tmp_path):
    scratch = tmp_path / "kept"
    if not _can_evict(str(tmp_path)):
        pytest.skip(f"{tmp_path}: this file system keeps evicted pages resident")
    write = pario(["-n", "2", "-t", "64k", "-b", "1m", "-w", "-k", "-i", "1", "--no-probe", "--json",
                   "--dir", str(scratch)], tmp_path)
    assert write.returncode == 0, write.stderr
    import json
    run_id = json.loads(write.stdout)["run"]
    run = pario(["--reuse", str(run_id), "-r", "-i", "2", "--drop-caches", "--no-probe", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["summary"]
    assert row["read"]["resident"]["samples"] == [0.0, 0.0] and row["read"]["flags"] == ["cold"]
    assert sorted(os.listdir(scratch))  # the kept files are still there
