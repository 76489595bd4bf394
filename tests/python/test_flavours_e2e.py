"""posix, mpiio and hdf5 end to end under each MPI (Open MPI and MPICH): the bytes moved, the
read-back verified, the MPI the engine reports, and the stack facts stored with the run."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from mpi_flavours import FLAVOURS, MPICH, OPENMPI, SRC, backends, bench

pytestmark = [pytest.mark.e2e, pytest.mark.mpi]

CASES = {"posix-fpp": ["-a", "posix", "-F"], "posix-shared": ["-a", "posix"],
         "mpiio-indep": ["-a", "mpiio"], "mpiio-coll": ["-a", "mpiio", "-c"],
         "hdf5-coll": ["-a", "hdf5", "-c"]}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_backend_under_flavour(flavour, case, tmp_path):
    backend = CASES[case][1]
    if backend not in backends(flavour):
        pytest.skip(f"{backend} not built in {flavour['engine']} (MPICH: apt-get install libhdf5-mpich-dev, "
                    "then scripts/build-mpich-engine.sh)")
    ranks, block, xfer = 2, 256 << 10, 64 << 10
    out, doc = bench(flavour, ["-n", str(ranks), *CASES[case], "-t", "64k", "-b", "256k", "-w", "-r", "-W",
                               "-i", "2"], tmp_path)
    assert out.returncode == 0, out.stderr
    result = doc["result"]
    library = result["mpi"]["library"]
    assert ("Open MPI" in library) == (flavour["name"] == "openmpi") and ("MPICH" in library) == (
        flavour["name"] == "mpich")
    (c,) = result["cases"]
    writes = [p for p in c["phases"] if p["op"] == "write"]
    assert len(writes) == 2 and all(p["bytes"] == ranks * block for p in writes)
    assert c["xfer"] == xfer
    (row,) = doc["summary"]
    assert row["verify"]["errors"] == 0 and row["verify"]["phases"] >= 2
    assert row["verify"]["checked_bytes"] == row["verify"]["phases"] * ranks * block
    assert not list((tmp_path / "scratch").glob("pario.*")), "files of the run were left behind"
    # The stack facts are stored with the run, and name the MPI that ran it.
    shown = subprocess.run([sys.executable, "-m", "pario", "results", "show", "last", "--json"], capture_output=True,
                           text=True, env=dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db")))
    stack = json.loads(shown.stdout)["env"]["stack"]
    assert stack["mpi"]["flavour"] == flavour["name"] and stack["fs"]["type"]


def _stored(db):
    """The rows pario stored in a database (runs, tuning sessions); none when it was never made."""
    if not db.exists():
        return []
    with sqlite3.connect(db) as con:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return [row for t in ("runs", "tune_sessions") if t in tables for row in con.execute(f"SELECT * FROM {t}")]


def _refused_before_launch(out, tmp_path, engine_mpi, launcher_mpi):
    """One line naming both MPIs and the fix, exit 2; no launch (the run's note and the after-launch
    verdict, "ran as 2 separate MPI jobs", are absent), nothing stored, no scratch directory."""
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    (line,) = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert f"is built against {engine_mpi}" in line and launcher_mpi in line and "build-mpich-engine.sh" in line, line
    assert "ran as 2 separate MPI jobs" not in out.stderr and "2 ranks," not in out.stdout + out.stderr
    assert _stored(tmp_path / "runs.db") == []
    assert not (tmp_path / "scratch").exists(), "the scratch directory was made"


@pytest.mark.skipif(not (OPENMPI["engine"] and MPICH["mpirun"]), reason="needs the Open MPI engine and mpiexec.mpich")
def test_the_open_mpi_engine_under_mpich_is_refused_before_the_launch(tmp_path):
    """Under mpiexec.mpich the Open MPI engine runs as singletons (rank 0 of 1 each): it was stored
    as a complete 2-rank run, then found only after one launch; now `--mpi-library` tells first."""
    out, _ = bench({**OPENMPI, "mpirun": MPICH["mpirun"]}, ["-n", "2", "-a", "mpiio", "-t", "64k", "-b", "256k",
                                                           "-w"], tmp_path)
    _refused_before_launch(out, tmp_path, "Open MPI v", "MPICH")


@pytest.mark.skipif(not (MPICH["engine"] and OPENMPI["mpirun"]), reason="needs the MPICH engine and Open MPI's mpirun")
def test_the_mpich_engine_under_open_mpi_is_refused_before_the_launch(tmp_path):
    out, _ = bench({**MPICH, "mpirun": OPENMPI["mpirun"]}, ["-n", "2", "-a", "posix", "-t", "64k", "-b", "256k",
                                                           "-w"], tmp_path)
    _refused_before_launch(out, tmp_path, "MPICH Version: 4", "Open MPI")


@pytest.mark.skipif(not (OPENMPI["engine"] and MPICH["mpirun"]), reason="needs the Open MPI engine and mpiexec.mpich")
def test_tune_refuses_the_mismatch_before_its_session_is_stored(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PARIO_ENGINE=OPENMPI["engine"])
    out = subprocess.run([sys.executable, "-m", "pario", "tune", "--mpirun", MPICH["mpirun"], "--no-probe",
                          "--dir", str(tmp_path / "scratch"), "-a", "mpiio", "-c", "-t", "64k", "-b", "256k", "-n",
                          "2", "-w", "--trials", "4"], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tmp_path)
    _refused_before_launch(out, tmp_path, "Open MPI v", "MPICH")
