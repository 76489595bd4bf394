"""srun inside a Slurm allocation: the --mpi plugin this MPI starts under on this Slurm, the
command line, and what srun's own messages say when a launch fails (one line, with the
scheduler's reason)."""
from __future__ import annotations

import os
import re
import shutil
from functools import lru_cache

from pario.platform import fsinfo, slurm
from pario.platform.mpi import MPI


@lru_cache(maxsize=8)
def _ompi_info(mpirun: str) -> str | None:
    """`ompi_info --parsable` of the Open MPI that `mpirun` belongs to (its pmix components)."""
    beside = os.path.join(os.path.dirname(mpirun), "ompi_info")
    tool = beside if os.access(beside, os.X_OK) else shutil.which("ompi_info")
    return fsinfo.run_tool([tool, "--parsable"], timeout=60) if tool else None


@lru_cache(maxsize=8)
def _choice(path: str, flavour: str, version: str, mpi_type: str | None) -> slurm.PluginChoice:
    info = _ompi_info(path) if flavour == "openmpi" else None
    return slurm.choose_plugin(flavour, version, slurm.mpi_plugins(), info)


def choice(mpi: MPI) -> slurm.PluginChoice:
    """The --mpi plugin for `mpi` (srun --mpi=list once per process)."""
    return _choice(mpi.path, mpi.flavour, mpi.version, os.environ.get("SLURM_MPI_TYPE"))


def argv(mpi: MPI, ranks: int, plugin: str | None) -> list[str]:
    """The launcher part of the command line. srun exports the caller's environment (--export=ALL):
    the forwarded variables and the io component go through it (env_of). A rank that dies ends
    the step (--kill-on-bad-exit), as mpirun does, instead of leaving the others in a collective."""
    out = ["srun", "-n", str(ranks), "--kill-on-bad-exit=1"]
    if plugin:
        out.append(f"--mpi={plugin}")
    return out


def env_of(io: str | None, env: dict[str, str]) -> dict[str, str]:
    """The launcher's own environment, which srun passes to the ranks."""
    if io:
        env = {**env, "OMPI_MCA_io": io}
    return env


def plugin_used(launch_argv: list[str], environ=None) -> str | None:
    """The --mpi value of a launch: on the command line, else SLURM_MPI_TYPE."""
    for arg in launch_argv:
        if arg.startswith("--mpi="):
            return arg.split("=", 1)[1]
    env = os.environ if environ is None else environ
    return env.get("SLURM_MPI_TYPE")


_PATTERNS: list[tuple[str, str]] = [
    (r"Invalid MPI type '([^']*)'",
     "srun has no MPI plugin '{0}' (srun --mpi=list names the ones it has; unset SLURM_MPI_TYPE to let "
     "pario choose)"),
    (r'direct launched using "srun"|OMPI was not built with SLURM',
     "Open MPI cannot start under srun --mpi={plugin}: it was built without Slurm's PMI-2 support and "
     "needs --mpi=pmix (unset SLURM_MPI_TYPE to let pario choose)"),
    (r"Unable to create step for job (\d+): (.*)",
     "Slurm refused the job step in job {0}: {1}{hint}"),
    (r"Unable to allocate resources: (.*)", "Slurm gave no allocation: {0}"),
    (r"\*\*\* (?:STEP|JOB) (\S+) ON \S+ CANCELLED AT \S+ DUE TO TIME LIMIT",
     "Slurm stopped {0} at the job's time limit"),
    (r"\*\*\* (?:STEP|JOB) (\S+) ON \S+ CANCELLED AT \S+(?: DUE TO (.*?))? \*\*\*",
     "Slurm cancelled {0}"),
    (r"Unable to contact slurm controller.*", "srun cannot reach the Slurm controller ({0})"),
]


def failure(lines: list[str], plugin: str | None, ranks: int, environ=None) -> str | None:
    """srun's (or slurmstepd's) reason for a launch that failed, in one line; None when its
    messages name none (the engine's own error then says more)."""
    env = os.environ if environ is None else environ
    text = [ln.strip() for ln in lines if ln.strip()]
    for pattern, template in _PATTERNS:
        for line in text:
            m = re.search(pattern, line)
            if not m:
                continue
            groups = [g or "" for g in m.groups()] or [m.group(0)]
            hint = ""
            if "More processors requested than permitted" in line:
                tasks = slurm.default_ranks(slurm.allocation(env))
                hint = (f" (-n {ranks}, but the allocation has {tasks} task{'s' if tasks != 1 else ''}: "
                        "ask salloc/sbatch for more or give fewer)") if tasks else ""
            return template.format(*groups, plugin=plugin or "?", hint=hint)
    errors = [ln for ln in text if re.match(r"srun: error: ", ln) and not re.search(r"task[s]? [\d,-]+: ", ln)]
    if errors:
        return "srun: " + errors[0].split("srun: error: ", 1)[1]
    return None
