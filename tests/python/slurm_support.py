"""A real one-node Slurm for the tests (scripts/local-slurm.sh; see tests/slurm/README.md).

`local_slurm(base)` starts one in a directory under `base` and returns its client environment
(SLURM_CONF, PARIO_SLURM_DIR); `stop(cluster)` ends it. Tests skip, with the script's own line
naming the apt-get command, only where Slurm or MUNGE is not installed (exit code 3)."""
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "local-slurm.sh"
NOT_INSTALLED = 3
# Unix socket paths (munge's, slurmstepd's) are short; the script refuses longer directories.
MAX_DIR = 64


class Cluster:
    def __init__(self, directory, env):
        self.dir = Path(directory)
        self.env = env  # os.environ plus SLURM_CONF and PARIO_SLURM_DIR

    def run(self, argv, timeout=120, **kwargs):
        """A Slurm client command (sbatch, srun, ...) against this cluster."""
        return subprocess.run(argv, env=self.env, capture_output=True, text=True,
                              timeout=timeout, **kwargs)


def _script(action, directory, env=None, timeout=120):
    return subprocess.run(["bash", str(SCRIPT), action, str(directory)], capture_output=True,
                          text=True, timeout=timeout, env=env)


def local_slurm(base, extra_env=None):
    """Start a local Slurm in a new directory under `base` (or /tmp when that path is too long)."""
    base = Path(base)
    if len(str(base)) + len("/slurm-xxxxxxxx") > MAX_DIR:
        base = Path(tempfile.gettempdir())
    directory = tempfile.mkdtemp(prefix="slurm-", dir=base)
    env = dict(os.environ, **(extra_env or {}))
    out = _script("start", directory, env)
    if out.returncode == NOT_INSTALLED:
        pytest.skip(" ".join(out.stderr.split("\n")).strip())
    assert out.returncode == 0, f"local-slurm.sh start failed:\n{out.stdout}{out.stderr}"
    lines = _script("env", directory, env).stdout
    for line in lines.splitlines():  # export NAME=VALUE (shell-quoted; our paths need no quoting)
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value
    return Cluster(directory, env)


def stop(cluster):
    out = _script("stop", cluster.dir)
    assert out.returncode == 0, f"local-slurm.sh stop failed:\n{out.stdout}{out.stderr}"


def job_fields(cluster, job_id):
    """`scontrol -o show job` as a dict (JobState, Reason, ExitCode, ...); works without
    accounting, until MinJobAge (300 s) after the job ended."""
    out = cluster.run(["scontrol", "-o", "show", "job", str(job_id)])
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    return dict(item.split("=", 1) for item in first.split() if "=" in item)


def pario_env(cluster, tmp_path, engine=None, extra=None):
    """The environment of a pario command against this cluster: the tree's pario, the engine
    (PARIO_ENGINE unless given), a store and a cache of the test's own. Batch jobs inherit it."""
    env = dict(cluster.env)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["PARIO_DB"] = str(tmp_path / "runs.db")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["COLUMNS"] = "200"  # wide tables: the tests look for whole cells
    for key in ("PARIO_FAULT", "OMPI_MCA_io", "SLURM_MPI_TYPE", "PARIO_MPIRUN"):
        env.pop(key, None)
    if engine or os.environ.get("PARIO_ENGINE"):
        env["PARIO_ENGINE"] = engine or os.environ["PARIO_ENGINE"]
    env.update(extra or {})
    return env


def pario(cluster, args, tmp_path, *, salloc=None, engine=None, extra=None, timeout=300):
    """`python -m pario ARGS` from tmp_path; inside `salloc -n SALLOC` when given (the allocation
    is granted at once on an idle cluster)."""
    import sys
    argv = [sys.executable, "-m", "pario", *map(str, args)]
    if salloc:
        argv = ["salloc", "-n", str(salloc), "--immediate=60", *argv]
    return subprocess.run(argv, env=pario_env(cluster, tmp_path, engine, extra), capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)
