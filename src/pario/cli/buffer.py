"""`pario buffer`: coalesce an unmodified program's small writes (the preload library's buffer).

    pario buffer [--size 64m] [--files 'PATTERN[:size=N]']... [--stats] -- ./app args
    pario buffer -n 4 [...] -- ./mpi_app args              through mpirun
    pario buffer --env [--size ...] [--files ...] [--stats]   exports for a job script (srun, ...)
    pario buffer show DIR                                      the stats a job script's processes wrote

By default every regular file the program opens for writing is buffered (64 MiB each); terminals,
pipes, sockets and /proc, /sys, /dev pass through untouched. --files chooses the files instead
(first match wins; size=0 leaves matching files unbuffered). The program's exit status is pario's.
To profile a buffered run: pario profile --buffer -o app.log -- ./app.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from pario.cli.args import checked, row
from pario.cli.wrapped import LAUNCHER, RANKS
from pario.model.errors import ParioError
from pario.settings.values import control_char

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from pathlib import Path  # imported where used: it costs a wrapper's start (platform/outfile.py)

HELP = __doc__.split("\n", 2)[2]
_MOST = 4096  # characters of a size or a pattern: a path's limit; the library reads them from the environment


def _plain(text: str, what: str) -> str:
    bad = control_char(text)
    if bad:  # an environment variable cannot hold a NUL, and a newline breaks the --env exports
        raise ParioError(f"{what} holds the control character {bad}; remove it")
    if len(text) > _MOST:
        raise ParioError(f"{what} is {len(text)} characters long; at most {_MOST}")
    return text


def _size(text: str) -> str:
    """--size: a size the library takes (checked as settings() reads it; the text is kept)."""
    from pario.buffer import run as brun

    _plain(text, "the size")
    try:  # argparse names the flag before the message
        size = brun.size_of(text)
    except ParioError:
        raise ParioError(f"{text!r} is not a size; write e.g. 8m, 64m or 1g") from None
    if size == 0:
        raise ParioError("0: the buffer needs a size (e.g. 64m); to leave files unbuffered use "
                         "--files 'PATTERN:size=0'")
    return text


def _files(spec: str) -> str:
    """--files PATTERN[:size=N], checked as settings() reads it (the text is kept)."""
    from pario.buffer import run as brun

    brun.pattern(_plain(spec, "the pattern"), 1)
    return spec


BUFFER_SIZE = checked(_size)    # also pario profile --buffer-size and --buffer-files
BUFFER_FILES = checked(_files)


def register(subparsers) -> None:
    p = subparsers.add_parser("buffer", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="64m", type=BUFFER_SIZE,
                   help="buffer per file (default 64m); what SIGKILL may lose per file")
    p.add_argument("--files", action="append", default=[], metavar="PATTERN[:size=N]", type=BUFFER_FILES,
                   help="buffer only files matching PATTERN (fnmatch on the absolute path; repeatable)")
    p.add_argument("--stats", action="store_true", help="print per-file statistics at exit (on stderr)")
    p.add_argument("-o", "--stats-dir", metavar="DIR", type=row("stats_dir", "path"),
                   help="with --env --stats: the directory the processes write their stats to")
    p.add_argument("-n", "--ranks", type=RANKS,
                   help="launch with mpirun -n RANKS (MPI programs); inside a Slurm allocation with srun")
    p.add_argument("--launcher", type=LAUNCHER,
                   help="default with -n: srun inside a Slurm allocation, else mpirun; --launcher srun without -n "
                        "starts the allocation's tasks (SLURM_NTASKS)")
    p.add_argument("--env", action="store_true", help="print the exports for a job script and exit")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")
    p.set_defaults(run=run)


def settings(args) -> tuple[int, list[tuple[str, int]]]:
    from pario.buffer import run as brun

    return brun.settings(args.size, args.files)


def run(args) -> int:
    from pario.buffer import run as brun
    from pario.profile import run as prun

    cmd = list(args.command or [])
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if cmd and cmd[0] == "show":
        from pathlib import Path

        if len(cmd) != 2 or not Path(cmd[1]).is_dir():
            raise ParioError("pario buffer show DIR: give the directory of --env --stats (PARIO_BUFFER_STATS)")
        report(Path(cmd[1]), missing_ok=False)
        return 0
    if args.stats_dir is not None and not (args.env and args.stats):   # it was ignored, and the program run
        raise ParioError(f"-o {args.stats_dir}: the directory of the stats goes with --env --stats (a job script's "
                         "processes write them there); without --env, --stats prints them at exit")
    size, files = settings(args)
    if args.env:
        return print_env(args, prun.preload_path(), size, files)
    if not cmd:
        raise ParioError("nothing to run: give the program after --, e.g. `pario buffer --stats -- ./app args`")
    from pario.cli.wrapped import choose_launcher

    choose_launcher(args, cmd)
    lib = prun.preload_path(prun.mpi_of_launch(cmd, args.ranks, args.launcher), cmd[0])
    if not args.stats:  # nothing to do after the program: pario becomes it (or its launcher)
        return launch(lib, cmd, args.ranks, brun.buffer_env(lib, size, files, None), args.launcher, replace=True)
    stats_dir = brun.make_stats_dir()
    try:
        code = launch(lib, cmd, args.ranks, brun.buffer_env(lib, size, files, str(stats_dir)), args.launcher)
        report(stats_dir)
    finally:
        brun.remove_stats_dir(stats_dir)
    return code


def print_env(args, lib: str, size: int, files: list[tuple[str, int]]) -> int:
    from pario.buffer import run as brun
    from pario.profile import run as prun

    stats_dir = None
    if args.stats:
        stamp = os.environ.get("SLURM_JOB_ID") or time.strftime("%Y%m%d-%H%M%S")
        from pathlib import Path

        stats_dir = Path(args.stats_dir or f"pario-buffer-stats.{stamp}").resolve()
        from pario.platform.outfile import check_place

        check_place(stats_dir, "-o")   # the job script's mkdir -p would fail, and the stats with it
    print("# pario buffer: paste into the job script before the launcher line (srun keeps the environment;")
    print("# with mpirun add -x for each variable).")
    if stats_dir:
        print(f"mkdir -p {stats_dir}")
        print(f"# afterwards: pario buffer show {stats_dir}")
    for line in prun.env_exports(brun.buffer_env(lib, size, files, str(stats_dir) if stats_dir else None)):
        print(line)
    return 0


def launch(lib: str, cmd: list[str], ranks: int | None, env_vars: dict[str, str], launcher: str | None = None,
           replace: bool = False) -> int:
    """Run cmd under the library (with -n: through mpirun, or srun inside an allocation), as pario
    profile does; signals are forwarded and the exit status is the program's. replace: exec it (or
    its launcher) instead, when nothing is left to do after it (run/child.py)."""
    from pario.profile import run as prun
    from pario.run import child

    env_vars = dict(env_vars)
    env_vars["LD_PRELOAD"] = prun.merged_preload(lib)
    if ranks:
        argv, env = prun.launch_argv(ranks, env_vars, cmd, launcher or "mpirun"), dict(os.environ)
    else:
        argv, env = cmd, {**os.environ, **env_vars}
    try:
        if replace:
            child.replace(argv, env)
        return child.run(argv, env).shell_code
    except OSError as exc:
        raise child.cannot_run(argv[0], exc) from None


def report(stats_dir: Path, missing_ok: bool = True) -> None:
    from pario.analysis.buffer_stats import docs_in, summarize
    from pario.report.terminal.buffer import show

    docs = docs_in(stats_dir)
    if not docs and not missing_ok:
        raise ParioError(f"{stats_dir} holds no buffer stats (*.json); did the job run with the exports of "
                         "`pario buffer --env --stats`?")
    if not docs:
        print("pario buffer: the program left no stats: it may be static (cannot be preloaded) or it was "
              "killed with SIGKILL", file=sys.stderr)
        return
    show(summarize(docs), base=os.getcwd())
