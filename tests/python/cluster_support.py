"""Several real nodes on this machine for the tests (scripts/local-cluster.sh): each node its own
hostname, /tmp and /dev/shm, its own slurmd; srun, mpirun and MPICH's mpiexec reach them.

`nodes` (session-scoped, conftest.py) starts one cluster of 3 nodes for the whole test session
and stops it at the end; a test that needs 2 nodes uses the first two (-N 2,
`--nodes 2`). It skips with the script's own line where the machine cannot (not root, no mount
or UTS namespaces: exit 4) or Slurm, MUNGE or util-linux is missing (exit 3); where the tests
must run (.ci/run sets PARIO_REQUIRE_CLUSTER=1) that is a failure instead. The session's
temporary directory, the tree and its engines are shared with every node even under /tmp
(PARIO_CLUSTER_SHARE), so a test's tmp_path is the cluster's shared file system and a node's
own /tmp is its local disk."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "local-cluster.sh"
NOT_INSTALLED, CANNOT = 3, 4
NODES = 3


class Cluster:
    def __init__(self, directory: Path, env: dict[str, str], count: int):
        self.dir = directory
        self.env = env    # os.environ plus what `local-cluster.sh env` exports
        self.nodes = [f"node{k}" for k in range(1, count + 1)]

    def run(self, argv, timeout=120, **kwargs):
        """A command on the machine with the cluster's environment (srun, sbatch, mpirun...)."""
        return subprocess.run(argv, env=kwargs.pop("env", self.env), capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    def on(self, node, argv, timeout=120, **kwargs):
        """A command on one node (`local-cluster.sh exec NODE ...`)."""
        return self.run(["bash", str(SCRIPT), "exec", node, *map(str, argv)], timeout=timeout, **kwargs)


def skip(reason: str) -> None:
    """Skip, or fail where the several-node tests must run (.ci/run sets PARIO_REQUIRE_CLUSTER=1)."""
    if os.environ.get("PARIO_REQUIRE_CLUSTER") == "1":
        pytest.fail(f"PARIO_REQUIRE_CLUSTER=1 but the several-node tests cannot run here: {reason}")
    pytest.skip(reason)


def script(*args, env=None, timeout=120):
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def shared_paths(*extra) -> str:
    """The paths under /tmp that every node must see: the tree, the Python and engines it runs,
    the session's temporary directory (PARIO_CLUSTER_SHARE)."""
    candidates = [ROOT, Path(sys.prefix), *map(Path, extra)]
    for var in ("PARIO_ENGINE", "PARIO_ENGINE_MPICH", "PARIO_PRELOAD"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]).parent)
    out: list[Path] = []
    for path in sorted({p.resolve() for p in candidates if p.is_dir()}, key=lambda p: len(p.parts)):
        if str(path).startswith("/tmp/") and not any(path.is_relative_to(o) for o in out):
            out.append(path)
    return ":".join(map(str, out))


def start(count, share=(), extra_env=None) -> Cluster:
    """A cluster of `count` nodes in a new directory (short: Unix socket paths are short)."""
    directory = Path(tempfile.mkdtemp(prefix="pario-cl-", dir="/tmp"))
    env = dict(os.environ, PARIO_CLUSTER_SHARE=shared_paths(*share), **(extra_env or {}))
    out = script("start", count, directory, env=env)
    if out.returncode in (NOT_INSTALLED, CANNOT):
        directory.rmdir()
        skip(" ".join(out.stderr.split("\n")).strip())
    if out.returncode != 0:
        script("stop", directory)
        raise AssertionError(f"local-cluster.sh start {count} failed:\n{out.stdout}{out.stderr}")
    for line in script("env", directory).stdout.splitlines():  # export NAME=VALUE (no quoting needed)
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value
    return Cluster(directory, env, count)


def stop(cluster: Cluster) -> None:
    """Stop it and remove its directory (everything in it is the cluster's)."""
    out = script("stop", cluster.dir)
    assert out.returncode == 0, f"local-cluster.sh stop failed:\n{out.stdout}{out.stderr}"
    shutil.rmtree(cluster.dir, ignore_errors=True)


def pario(cluster: Cluster, args, tmp_path, *, engine=None, extra=None, timeout=300):
    """`python -m pario ARGS` from tmp_path (shared by every node) with the cluster's environment:
    mpirun and mpiexec reach the nodes through its hostfiles, Slurm commands its controller."""
    env = dict(cluster.env, PYTHONPATH=str(ROOT / "src"), PARIO_DB=str(tmp_path / "runs.db"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), COLUMNS="200")
    for key in ("PARIO_FAULT", "OMPI_MCA_io", "SLURM_MPI_TYPE", "PARIO_MPIRUN"):
        env.pop(key, None)
    if engine:
        env["PARIO_ENGINE"] = engine
    env.update(extra or {})
    return subprocess.run([sys.executable, "-m", "pario", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd=tmp_path)


def bench_json(cluster: Cluster, flavour: dict, args, tmp_path, **kwargs):
    """`pario bench --json` under a flavour's MPI (mpi_flavours): (process, document or None)."""
    import json
    out = pario(cluster, ["bench", "--json", "--no-probe", "--mpirun", flavour["mpirun"],
                          "--dir", tmp_path / "scratch", *args], tmp_path, engine=flavour["engine"], **kwargs)
    try:
        return out, json.loads(out.stdout)
    except ValueError:
        return out, None
