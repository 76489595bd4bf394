"""The one place that builds launcher command lines: mpirun (mpirun.py) or srun (srun.py), with the
flags each MPI flavour needs (running them is run/watchdog.py)."""
from __future__ import annotations

import os

from pario.model.errors import ParioError
from pario.platform.mpi import IO_COMPONENTS, MPI
from pario.platform.slurm_env import job_id
from pario.platform.which import which
from pario.run.launchers import mpirun
from pario.run.launchers import nodes as placement

# srun.py (with platform/fsinfo.py and ctypes), platform/slurm.py and run/forward.py are imported
# where they are used: `pario profile -n 4` and `pario buffer -n 4` start mpirun having loaded
# neither (benchmarks/startup)

LAUNCHERS = ("mpirun", "srun")


def resolve(launcher: str | None, environ=None) -> str:
    """The launcher to use: the one asked for, else srun inside a Slurm allocation (where srun
    places the ranks on the allocation's nodes), else mpirun."""
    if launcher:
        return launcher
    if job_id(environ) is not None and which("srun"):  # an allocation (platform.slurm's test)
        return "srun"
    return "mpirun"


def check_launcher(launcher: str, mpi: MPI | None = None) -> None:
    """Refuse a launch that cannot work before anything runs: srun missing, pario started as one
    of several tasks of an srun step (each would start its own ranks), no --mpi plugin for this
    MPI on this srun."""
    if launcher == "srun" and not which("srun"):
        raise ParioError("--launcher srun: srun not found on PATH; run inside a Slurm installation or use mpirun",
                         exit_code=3)
    from pario.platform import slurm

    alloc = slurm.allocation()
    if alloc is not None and alloc.step is not None and (alloc.step_tasks or 1) > 1:
        raise ParioError(f"pario runs once and starts its own ranks, but it was started as one of "
                         f"{alloc.step_tasks} tasks of srun step {alloc.job}.{alloc.step}; run it in the batch "
                         "script or the salloc shell without srun")
    if launcher == "srun" and mpi is not None:
        from pario.run.launchers import srun

        srun.choice(mpi)  # raises when this srun has no plugin this MPI starts under


def command(mpi: MPI, ranks: int, engine_argv: list[str], *, io: str | None = None,
            env: dict[str, str] | None = None, launcher: str = "mpirun",
            is_root: bool | None = None, nodes: int | None = None) -> list[str]:
    """The launcher argv for one engine run. `env` is forwarded to every rank (srun: through the
    launcher's environment, launch_env); `nodes` spreads the ranks over that many nodes in blocks."""
    env = env or {}
    is_root = (os.geteuid() == 0) if is_root is None else is_root
    if io and mpi.flavour != "openmpi":
        raise ParioError(f"--io {io} selects an Open MPI io component, but this MPI is "
                         f"{mpi.flavour} ({mpi.version}); drop --io (ROMIO is its only MPI-IO)")
    if io and io not in IO_COMPONENTS:
        raise ParioError(f"--io {io}: choose one of {', '.join(IO_COMPONENTS)}")
    spread = placement.argv(mpi, launcher, ranks, nodes)
    if launcher == "srun":
        from pario.run.launchers import srun

        return srun.argv(mpi, ranks, srun.choice(mpi).plugin) + spread + engine_argv
    if launcher != "mpirun":
        raise ParioError(f"--launcher {launcher}: choose mpirun or srun")
    return mpirun.argv(mpi, ranks, io=io, env=env, is_root=is_root) + spread + engine_argv


def launch_env(mpi: MPI, io: str | None, launcher: str, extra: dict[str, str]) -> dict[str, str]:
    """The environment of the launcher process itself."""
    from pario.run.forward import DISPLAY_VARS
    from pario.run.launchers import srun

    env = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARS}  # displays: settings launch only
    env.update(extra)
    return srun.env_of(io, env) if launcher == "srun" else env
