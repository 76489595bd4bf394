"""-n and --launcher of the commands that wrap a program (`pario profile`, `pario buffer`): one
choice for both, so that they start an MPI program the same way."""
from __future__ import annotations

import argparse
import sys

from pario.cli.args import row
from pario.model.errors import ParioError
from pario.platform.slurm_env import job_id
from pario.settings.values import INT_MAX

# The launch's flags, checked by settings.values alone (a command's own rows, cli.args.row): bench's
# are plan.inputs.RUN's, bounded by the engine's limits, and importing that catalogue was most of what
# `pario profile -n 4` cost before mpirun started (benchmarks/startup). mpirun -n takes a C int.
RANKS = row("ranks", "int", "MPI ranks", lo=1, hi=INT_MAX)
NODES = row("nodes", "int", "nodes the ranks run on, in blocks", lo=1, hi=INT_MAX)
LAUNCHER = row("launcher", "choice", "mpirun | srun", choices=("mpirun", "srun"))


def choose_launcher(args: argparse.Namespace, cmd: list[str]) -> None:
    """args.ranks and args.launcher as they will be used: srun inside a Slurm allocation, else
    mpirun; without -n the program runs once, directly."""
    if args.ranks is not None and args.ranks < 1:
        raise ParioError(f"-n {args.ranks}: the number of ranks must be at least 1")
    if getattr(args, "nodes", None) and args.ranks is None:
        raise ParioError(f"--nodes {args.nodes} places MPI ranks: give their number, -n RANKS")
    if args.ranks is None and args.launcher is None:  # one process, directly: no launcher to choose
        job = job_id()
        if job is not None:
            print(f"pario: inside Slurm job {job}: running {cmd[0]} once, directly; -n N or "
                  "--launcher srun starts it as the allocation's tasks", file=sys.stderr)
        return
    from pario.run import launchers

    if args.launcher == "srun" and args.ranks is None:
        from pario.platform import slurm

        args.ranks = slurm.default_ranks(slurm.allocation())
        if args.ranks is None:
            raise ParioError("--launcher srun without -n: not inside a Slurm allocation, so give -n RANKS")
    if args.launcher == "mpirun" and args.ranks is None:
        raise ParioError("--launcher mpirun: give the number of ranks, -n RANKS")
    args.launcher = launchers.resolve(args.launcher)
