"""posix, mpiio and hdf5 end to end under each MPI (Open MPI and MPICH): the bytes moved, the
read-back verified, the MPI the engine reports, and the stack facts stored with the run."""
import json
import os
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


@pytest.mark.skipif(not (OPENMPI["engine"] and MPICH["mpirun"]), reason="needs the Open MPI engine and mpiexec.mpich")
def test_the_open_mpi_engine_under_mpich_is_a_failed_run_that_says_why(tmp_path):
    """Under mpiexec.mpich the Open MPI engine runs as singletons (rank 0 of 1 each): it was stored
    as a complete 2-rank run, and `pario tune --mpirun mpiexec.mpich` tuned such runs."""
    out, doc = bench({**OPENMPI, "mpirun": MPICH["mpirun"]}, ["-n", "2", "-a", "mpiio", "-t", "64k", "-b", "256k",
                                                             "-w"], tmp_path)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "2 separate MPI jobs of 1 rank(s)" in out.stderr and "build-mpich-engine.sh" in out.stderr, out.stderr
