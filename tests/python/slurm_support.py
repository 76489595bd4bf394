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
