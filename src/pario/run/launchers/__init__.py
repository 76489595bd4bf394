"""The one place that builds launcher command lines: mpirun (mpirun.py) or srun (srun.py), with the
flags each MPI flavour needs (running them is run/watchdog.py)."""
from __future__ import annotations

import os
import shutil

from pario.model.errors import ParioError
from pario.platform.mpi import IO_COMPONENTS, MPI
from pario.run.forward import DISPLAY_VARS
from pario.run.launchers import mpirun, srun

LAUNCHERS = ("mpirun", "srun")


def check_launcher(launcher: str) -> None:
    if launcher == "srun" and not shutil.which("srun"):
        raise ParioError("--launcher srun: srun not found on PATH; run inside a Slurm installation or use mpirun",
                         exit_code=3)


def command(mpi: MPI, ranks: int, engine_argv: list[str], *, io: str | None = None,
            env: dict[str, str] | None = None, launcher: str = "mpirun",
            is_root: bool | None = None) -> list[str]:
    """The launcher argv for one engine run. `env` is forwarded to every rank."""
    env = env or {}
    is_root = (os.geteuid() == 0) if is_root is None else is_root
    if io and mpi.flavour != "openmpi":
        raise ParioError(f"--io {io} selects an Open MPI io component, but this MPI is "
                         f"{mpi.flavour} ({mpi.version}); drop --io (ROMIO is its only MPI-IO)")
    if io and io not in IO_COMPONENTS:
        raise ParioError(f"--io {io}: choose one of {', '.join(IO_COMPONENTS)}")
    if launcher == "srun":
        return srun.argv(mpi, ranks) + engine_argv
    if launcher != "mpirun":
        raise ParioError(f"--launcher {launcher}: choose mpirun or srun")
    return mpirun.argv(mpi, ranks, io=io, env=env, is_root=is_root) + engine_argv


def launch_env(mpi: MPI, io: str | None, launcher: str, extra: dict[str, str]) -> dict[str, str]:
    """The environment of the launcher process itself."""
    env = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARS}  # displays: settings launch only
    env.update(extra)
    return srun.env_of(io, env) if launcher == "srun" else env
