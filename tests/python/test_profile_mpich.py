"""`pario profile` of MPICH programs: the profiler's library has an MPICH flavour (its MPI-IO
wrappers compiled against MPICH's mpi.h, built by scripts/build-mpich-engine.sh, found through
PARIO_PRELOAD_MPICH), picked for a program linked against MPICH; the MPI-IO layer and the HDF5 layer
give the programs' exact counts under mpiexec.mpich. Without that flavour an MPICH program is
refused before it is launched (the Open MPI flavour's wrappers would crash it). Skipped, with the
reason, where MPICH or the flavour is missing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from profile_support import PROGRAMS, ROOT

MPICH_LIB = os.environ.get("PARIO_PRELOAD_MPICH")
pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not (shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich")),
                                 reason="no MPICH (apt-get install mpich libmpich-dev)")]
needs_lib = pytest.mark.skipif(not (MPICH_LIB and os.path.isfile(MPICH_LIB)),
                               reason="no MPICH flavour of the profiler's library: set PARIO_PRELOAD_MPICH "
                                      "(sh scripts/build-mpich-engine.sh; make test does both)")
RANKS = 2


def _pario(args, tmp_path, **env):
    e = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PARIO_MPIRUN="mpiexec.mpich", PARIO_DB=str(tmp_path / "db"))
    e.update(env)
    e.pop("LD_PRELOAD", None)
    return subprocess.run([sys.executable, "-m", "pario", *map(str, args)], capture_output=True, text=True, env=e,
                          cwd=tmp_path, timeout=300)


def _build(tmp_path, name, cc, *flags):
    exe = tmp_path / name
    run = subprocess.run([cc, "-O2", "-o", str(exe), str(PROGRAMS / f"{name}.c"), *flags], capture_output=True,
                         text=True, cwd=tmp_path)   # h5pcc leaves its object file where it runs
    if run.returncode:
        pytest.skip(f"cannot build {name}.c with {cc}: {(run.stderr.strip().splitlines() or ['?'])[-1]}")
    return exe


def _profile(tmp_path, argv, **env):
    log = tmp_path / "job.log"
    run = _pario(["profile", "-o", log, "-n", RANKS, "--", *argv], tmp_path, **env)
    assert run.returncode == 0, run.stderr
    shown = _pario(["profile", "show", log, "--json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    return {(f["module"], f["path"]): f for f in json.loads(shown.stdout)["files"]}


def _c(rows, module, path):
    prefix = module.upper() + "_"
    return {k[len(prefix):]: v for k, v in rows[(module, path)]["counters"].items() if k.startswith(prefix) and v}


@needs_lib
def test_mpiio_of_an_mpich_program_counts_exactly(tmp_path):
    exe = _build(tmp_path, "mpi_shared", "mpicc.mpich")
    target = str(tmp_path / "shared.dat")
    rows = _profile(tmp_path, [exe, target])
    n = RANKS   # per rank (mpi_shared.c): 4 collective writes of 64 KiB, 2 syncs, 4 independent reads
    m = _c(rows, "mpiio", target)
    assert {k: m.get(k, 0) for k in ("OPENS", "COLL_WRITES", "INDEP_WRITES", "INDEP_READS", "SYNCS",
                                     "BYTES_WRITTEN", "BYTES_READ")} == {
        "OPENS": n, "COLL_WRITES": 4 * n, "INDEP_WRITES": 0, "INDEP_READS": 4 * n, "SYNCS": 2 * n,
        "BYTES_WRITTEN": 4 * n * 65536, "BYTES_READ": 4 * n * 65536}
    assert _c(rows, "posix", target)["BYTES_READ"] == 4 * n * 65536


@needs_lib
@pytest.mark.skipif(not shutil.which("h5pcc.mpich"), reason="no MPICH HDF5 (apt-get install libhdf5-mpich-dev)")
def test_hdf5_of_an_mpich_program_counts_exactly(tmp_path):
    exe = _build(tmp_path, "h5_known", "h5pcc.mpich", "-shlib")
    target = str(tmp_path / "out.h5")
    rows = _profile(tmp_path, [exe, target])
    n, row = RANKS, 8 * 512 * 8   # h5_known.c: one rank's block of 8 rows of 512 doubles
    got = _c(rows, "h5d", f"{target}:/rows")
    want = {"CREATES": n, "CLOSES": n, "WRITES": 8 * n, "BYTES_WRITTEN": 8 * n * 4096, "SELECT_REGULAR": 8 * n,
            "INDEP_REQUESTED": 8 * n, "SIZE_WRITE_1K_10K": 8 * n, "TYPE_SIZE": 8, "NDIMS": 2, "DATASET_SIZE": n * row}
    assert {k: got.get(k) for k in want} == want and got["FILE_OFFSET"] > 0
    block = _c(rows, "h5d", f"{target}:/block")
    assert {k: block.get(k) for k in ("WRITES", "READS", "COLL_REQUESTED", "ACTUAL_CONTIG_COLL")} == {
        "WRITES": n, "READS": n, "COLL_REQUESTED": 2 * n, "ACTUAL_CONTIG_COLL": 2 * n}
    conv = _c(rows, "h5d", f"{target}:/conv")   # floats into doubles: HDF5 1.10 breaks the collective
    assert {k: conv.get(k) for k in ("COLL_REQUESTED", "ACTUAL_NONE", "NOCOLL_TYPE_CONVERSION")} == {
        "COLL_REQUESTED": n, "ACTUAL_NONE": n, "NOCOLL_TYPE_CONVERSION": n}
    f = _c(rows, "h5f", target)
    assert (f["CREATES"], f["CLOSES"], f["MPIO"], f["WRITES"], f["READS"]) == (n, n, 1, 8 * n + n + n + n + 1, n)
    # the MPI-IO calls HDF5 made under it were seen through the same (MPICH) wrappers
    assert _c(rows, "mpiio", target)["OPENS"] == n


def test_an_mpich_program_without_the_mpich_flavour_is_refused(tmp_path):
    exe = _build(tmp_path, "mpi_shared", "mpicc.mpich")
    env = {"PARIO_PRELOAD_MPICH": ""}
    run = _pario(["profile", "-o", tmp_path / "x.log", "-n", RANKS, "--", exe, tmp_path / "f"], tmp_path, **env)
    installed = any((p / "lib" / "mpich" / "libpario-preload.so").is_file()
                    for p in [ROOT / "src" / "pario"])
    if installed:
        pytest.skip("an MPICH flavour is installed in the package")
    assert run.returncode == 3 and run.stderr.count("\n") == 1, run.stderr
    assert "runs under MPICH" in run.stderr and "scripts/build-mpich-engine.sh" in run.stderr
    assert not (tmp_path / "f").exists() and not (tmp_path / "x.log").exists()
