"""A full disk is named as such by every backend: a small tmpfs mounted by the test (root only)
that a 2-rank write cannot fit. Each library says it its own way (a short count from ompio,
"no details from HDF5", "NetCDF: HDF error", a PnetCDF write that reports success and leaves
data missing): the engine asks the file system and says "No space left on device" with the free
space, in one line, with the code nospace. ADIOS2 deadlocks inside its own error path (BP5's
two-level aggregation: the aggregator throws and frees one MPI window while the other ranks
wait in the barrier of another, spinning in MPI progress), so it is ended by pario's watchdog,
which names the full disk too. HDF5 1.10 could leave its ranks in different barriers of H5Fclose
after a failed write (HDFGroup/hdf5#1183): the hdf5 and netcdf4 backends agree on the failure first and
then leave the file unclosed, and the engine ends the job with MPI_Abort once the result is written.
No file of the run is left on the tmpfs."""
import os
import shutil
import subprocess

import pytest

from cli_support import pario
from engine_support import ENGINE, HAVE_MPIRUN, layer_built, run_engine, why_not_built

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)"),
              pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root"),
              pytest.mark.skipif(not shutil.which("mount"), reason="no mount command")]

ENGINE_BACKENDS = ["posix", "mpiio", "hdf5", "pnetcdf", "netcdf4"]
# Through pario bench, whose watchdog ends a library that does not return: ADIOS2 always (above).
# HDF5 once, in a loaded full suite, did not return within 240 s at the engine level (its close
# after the failed write, above); through bench it must be named by the engine, not the watchdog.
BENCH_BACKENDS = ["hdf5", "adios2"]


@pytest.fixture
def small_fs(tmp_path):
    """A tmpfs of `size` in tmp_path/mnt, unmounted afterwards; skips where mounting is refused
    (a container without CAP_SYS_ADMIN)."""
    mounts = []

    def mount(size):
        mnt = tmp_path / "mnt"
        mnt.mkdir()
        out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(mnt)],
                             capture_output=True, text=True)
        if out.returncode:
            pytest.skip(f"cannot mount a tmpfs here: {out.stderr.strip()}")
        mounts.append(mnt)
        return mnt

    yield mount
    for mnt in mounts:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.mark.parametrize("backend", ENGINE_BACKENDS)
def test_engine_names_a_full_disk(backend, small_fs, tmp_path):
    if backend not in ("posix", "mpiio") and not layer_built(backend):
        pytest.skip(why_not_built(backend))
    mnt = small_fs("512k")
    case = {"name": backend, "backend": backend, "strategy": "shared", "ops": ["write"], "reps": 1,
            "pattern": "segmented", "xfer": 65536, "block": 1 << 20, "segments": 1}
    proc, doc = run_engine(mnt, [case], timeout=240)  # prefix_for(mnt): a basename no other test shares
    assert doc is not None, proc.stderr[-2000:]
    err = doc["error"]
    assert doc["status"] == "failed" and err["code"] == "nospace", err
    assert "No space left on device" in err["message"], err["message"]
    assert "\n" not in err["message"]
    left = sorted(p.name for p in mnt.iterdir() if p.name not in ("spec.json", "result.json"))
    assert left == [], left
    if backend in ("hdf5", "netcdf4"):  # the file was not closed after the failed write: H5Fclose could hang
        assert "HDF5 cannot close the file safely" in proc.stderr and "MPI_Abort" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("backend", BENCH_BACKENDS)
def test_bench_full_disk_is_ended_and_named(backend, small_fs, tmp_path):
    if not layer_built(backend):
        pytest.skip(why_not_built(backend))
    # exactly the data's size: pario's room check passes, the library's metadata does not fit
    mnt = small_fs("2m")
    run = pario(["-a", backend, "-n", "2", "-b", "1m", "-t", "64k", "-w", "--no-probe", "--dir", str(mnt)],
                tmp_path, timeout=300)
    assert run.returncode != 0, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("pario: error:") and "No space left on device" in last, run.stderr
    if backend == "hdf5":  # named by the engine within seconds, not ended by the watchdog's stall check
        assert "the engine stopped (nospace)" in last and "no progress for" not in last, last
    assert sorted(p.name for p in mnt.iterdir()) == []
