"""The local Slurm the Slurm tests run on (scripts/local-slurm.sh): it starts, runs real MPI
through srun, runs batch jobs whose end state can be read without accounting, and stops
without leaving a daemon behind."""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from slurm_support import ROOT, job_fields, local_slurm, stop

HELLO = ROOT / "tests" / "slurm" / "mpiio_hello.c"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = local_slurm(tmp_path_factory.mktemp("ls"))
    yield c
    stop(c)


def _build(mpicc, tmp_path):
    if not shutil.which(mpicc):
        pytest.skip(f"{mpicc} not found")
    exe = tmp_path / f"hello-{mpicc}"
    subprocess.run([mpicc, "-O2", "-o", str(exe), str(HELLO)], check=True, timeout=120)
    return exe


def _wait_end(cluster, job_id, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        fields = job_fields(cluster, job_id)
        if fields["JobState"] not in ("PENDING", "RUNNING", "COMPLETING", "CONFIGURING"):
            return fields
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {fields['JobState']} after {timeout}s")


def test_start_again_is_a_no_op(cluster):
    out = subprocess.run(["bash", str(ROOT / "scripts" / "local-slurm.sh"), "start",
                          str(cluster.dir)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "already running" in out.stdout
    assert cluster.run(["sinfo", "-h", "-o", "%T"]).stdout.strip() == "idle"


@pytest.mark.mpi
def test_open_mpi_through_srun_pmix(cluster, tmp_path):
    exe = _build("mpicc", tmp_path)
    out = cluster.run(["srun", "-n", "2", "--mpi=pmix", str(exe), str(tmp_path / "f"), "2"])
    assert out.returncode == 0, out.stderr
    assert "rank 1 of 2" in out.stdout and "SLURM_PROCID=1" in out.stdout


@pytest.mark.mpi
def test_mpich_through_srun_pmi2(cluster, tmp_path):
    exe = _build("mpicc.mpich", tmp_path)
    out = cluster.run(["srun", "-n", "2", "--mpi=pmi2", str(exe), str(tmp_path / "f"), "2"])
    assert out.returncode == 0, out.stderr
    assert "rank 1 of 2" in out.stdout


def test_batch_job_end_state_and_exit_code(cluster, tmp_path):
    out = cluster.run(["sbatch", "--parsable", "-n", "1", "-o", str(tmp_path / "out"),
                       "--wrap", "echo $SLURM_NTASKS; exit 7"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    fields = _wait_end(cluster, int(out.stdout.strip().split(";")[0]))
    assert (fields["JobState"], fields["Reason"], fields["ExitCode"]) == \
        ("FAILED", "NonZeroExitCode", "7:0")
    assert (tmp_path / "out").read_text() == "1\n"


def _processes_of(directory):
    """Live processes whose command line names this directory (the daemons do)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(directory) in cmd and state not in ("Z", "X"):
            found.append(f"{proc.name}: {cmd.strip()}")
    return found


def test_stop_ends_jobs_and_daemons(tmp_path_factory):
    """A second cluster beside the first (its own ports), stopped with a job still running."""
    c = local_slurm(tmp_path_factory.mktemp("ls2"))
    try:
        out = c.run(["sbatch", "--parsable", "-n", "1", "-o", os.devnull, "--wrap", "sleep 300"])
        assert out.returncode == 0, out.stderr
        _wait_running(c, int(out.stdout.strip()))
        assert _processes_of(c.dir)
    finally:
        stop(c)
    assert _processes_of(c.dir) == []


def _wait_running(cluster, job_id, timeout=30):
    end = time.monotonic() + timeout
    while job_fields(cluster, job_id)["JobState"] != "RUNNING":
        assert time.monotonic() < end, f"job {job_id} did not start in {timeout}s"
        time.sleep(0.1)
