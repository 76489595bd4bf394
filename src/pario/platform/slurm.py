"""The Slurm allocation pario runs in, read from the variables Slurm sets, and the MPI plugins of
this Slurm's srun (`srun --mpi=list`) with the one this MPI starts under.

Inside an allocation (salloc, a batch script) SLURM_JOB_ID is set; inside an srun step also
SLURM_STEP_ID (the batch shell has SLURM_PROCID=0 too, so that alone says nothing)."""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from pario.model.errors import ParioError
from pario.platform.slurm_env import job_id


@dataclass
class Allocation:
    job: str
    cluster: str | None = None
    partition: str | None = None
    nodes: int | None = None             # SLURM_JOB_NUM_NODES
    nodelist: str | None = None          # compressed, as Slurm writes it (vm[01-04])
    tasks: int | None = None             # SLURM_NTASKS: None when the allocation asked for nodes only
    tasks_per_node: list[int] = field(default_factory=list)   # expanded SLURM_TASKS_PER_NODE
    cpus_on_node: int | None = None
    step: str | None = None              # SLURM_STEP_ID: we run inside an srun step
    step_tasks: int | None = None        # SLURM_STEP_NUM_TASKS
    array: str | None = None             # ARRAYJOB_TASK when a task of a job array

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, [])}


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def expand_counts(text: str | None) -> list[int]:
    """Slurm's compressed per-node counts: '2(x3),1' -> [2, 2, 2, 1]; [] when unreadable."""
    out: list[int] = []
    for part in (text or "").split(","):
        m = re.fullmatch(r"\s*(\d+)(?:\(x(\d+)\))?\s*", part)
        if not m:
            return []
        out += [int(m.group(1))] * int(m.group(2) or 1)
    return out


def allocation(environ=None) -> Allocation | None:
    """The allocation of this process's environment, or None outside Slurm."""
    env = os.environ if environ is None else environ
    job = job_id(env)
    if not job:
        return None
    array = (f"{env['SLURM_ARRAY_JOB_ID']}_{env.get('SLURM_ARRAY_TASK_ID', '?')}"
             if env.get("SLURM_ARRAY_JOB_ID") else None)
    return Allocation(job=job, cluster=env.get("SLURM_CLUSTER_NAME"), partition=env.get("SLURM_JOB_PARTITION"),
                      nodes=_int(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES")),
                      nodelist=env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST"),
                      tasks=_int(env.get("SLURM_NTASKS") or env.get("SLURM_NPROCS")),
                      tasks_per_node=expand_counts(env.get("SLURM_TASKS_PER_NODE")),
                      cpus_on_node=_int(env.get("SLURM_CPUS_ON_NODE")),
                      step=env.get("SLURM_STEP_ID") or env.get("SLURM_STEPID"),
                      step_tasks=_int(env.get("SLURM_STEP_NUM_TASKS")), array=array)


def default_ranks(alloc: Allocation | None) -> int | None:
    """The rank count an allocation implies: its tasks, else the sum over its nodes."""
    if alloc is None:
        return None
    if alloc.tasks:
        return alloc.tasks
    return sum(alloc.tasks_per_node) or None


# ---- srun's MPI plugins ----------------------------------------------------------------------

def parse_mpi_list(text: str) -> list[str]:
    """`srun --mpi=list`: 'MPI plugin types are...' then one name per indented line, then
    'specific pmix plugin versions available: pmix_v4' (versions are valid names too)."""
    names: list[str] = []
    for line in text.splitlines():
        m = re.match(r"specific \w+ plugin versions available:\s*(.*)", line.strip())
        if m:
            names += [v.strip() for v in m.group(1).split(",") if v.strip()]
        elif line[:1].isspace() and re.fullmatch(r"[A-Za-z0-9_]+", line.strip()):
            names.append(line.strip())
    return list(dict.fromkeys(names))


@lru_cache(maxsize=4)
def mpi_plugins(srun: str = "srun") -> tuple[str, ...]:
    """The --mpi values this srun accepts (one `srun --mpi=list`, about 0.05 s, cached)."""
    import shutil
    import subprocess

    path = shutil.which(srun)
    if not path:
        raise ParioError("srun not found on PATH: load Slurm's module or use --launcher mpirun", exit_code=3)
    try:
        out = subprocess.run([path, "--mpi=list"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"srun --mpi=list failed ({exc}); is Slurm reachable?", exit_code=3) from None
    names = parse_mpi_list(out.stdout + "\n" + out.stderr)
    if not names:
        last = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ParioError(f"srun --mpi=list named no MPI plugin ({last[0]}); set SLURM_MPI_TYPE to the one your "
                         "MPI needs, or use --launcher mpirun", exit_code=3)
    return tuple(names)


def _openmpi_pmi(ompi_info_text: str | None) -> list[str]:
    """What an Open MPI can be started with under srun: its pmix components (ext3x, pmix3x,
    internal...) take --mpi=pmix, its s2/s1 components Slurm's own PMI-2/PMI-1. Unknown: pmix."""
    if not ompi_info_text:
        return ["pmix", "pmi2"]
    comps = set(re.findall(r"^mca:pmix:(\w+):version:", ompi_info_text, re.M))
    out = []
    if comps - {"s1", "s2", "flux", "isolated", "cray"}:
        out.append("pmix")
    if "s2" in comps:
        out.append("pmi2")
    if "cray" in comps:
        out.append("cray_shasta")
    return out


def wanted_plugins(flavour: str, version: str = "", ompi_info_text: str | None = None) -> list[str]:
    """The --mpi plugins this MPI starts under, best first. Open MPI 4 reads PMIx (Debian's has
    no Slurm PMI-2 support: with pmi2 every rank aborts in MPI_Init); MPICH's built-in PMI client
    speaks the PMI-2 wire protocol (with pmix each rank silently starts alone); Cray MPICH on
    HPE systems uses cray_shasta; Intel MPI takes pmi2 (I_MPI_PMI_LIBRARY) or pmix."""
    if flavour == "openmpi":
        return _openmpi_pmi(ompi_info_text)
    if flavour == "mpich":
        return (["cray_shasta", "pmi2"] if "cray" in version.lower() or os.environ.get("CRAY_MPICH_DIR")
                else ["pmi2"])
    if flavour == "intel":
        return ["pmi2", "pmix"]
    return ["pmix", "pmi2"]


@dataclass
class PluginChoice:
    plugin: str | None           # the --mpi value pario passes (None: SLURM_MPI_TYPE decides)
    source: str                  # why: "chosen", "SLURM_MPI_TYPE"
    available: list[str]
    wanted: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def choose_plugin(flavour: str, version: str, available: list[str] | tuple[str, ...],
                  ompi_info_text: str | None = None, environ=None) -> PluginChoice:
    """The --mpi plugin for this MPI on this srun. A SLURM_MPI_TYPE in the environment is the
    user's (or site's) explicit choice and is kept; a wrong one is caught at launch."""
    env = os.environ if environ is None else environ
    wanted = wanted_plugins(flavour, version, ompi_info_text)
    given = env.get("SLURM_MPI_TYPE")
    if given:
        return PluginChoice(None, "SLURM_MPI_TYPE", list(available), wanted)
    for name in wanted:
        if name in available:
            return PluginChoice(name, "chosen", list(available), wanted)
    name = {"openmpi": "Open MPI", "mpich": "MPICH", "intel": "Intel MPI"}.get(flavour, "this MPI")
    raise ParioError(f"this srun offers --mpi={','.join(available)} but {name} starts only under "
                     f"{' or '.join('--mpi=' + w for w in wanted)}; ask your site which plugin its MPI needs "
                     "(then set SLURM_MPI_TYPE), or use --launcher mpirun", exit_code=3)
