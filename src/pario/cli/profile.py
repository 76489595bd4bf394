"""`pario profile`: what an unmodified application does to the file system.

    pario profile [-o LOG] [--trace] [--mem MIB] -- ./app args     a serial program (and its children)
    pario profile -n 4 [-o LOG] -- ./mpi_app args                  through mpirun (srun inside a Slurm allocation)
    pario profile --buffer [-o LOG] -- ./app args                  with pario buffer on: the log also shows
                                                                   the writes the file system saw
    pario profile --env [-o DIR]                                   exports for a job script (srun, ...)
    pario profile show LOG [--json] [--top N]                      tables, or one JSON document
    pario profile show LOG --html [-o PAGE]                        an HTML page with plots (pario report)
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

from pario.cli.args import Parser, row
from pario.cli.buffer import BUFFER_FILES, BUFFER_SIZE
from pario.cli.wrapped import LAUNCHER, NODES, RANKS
from pario.model.errors import ParioError
from pario.settings.values import INT64_MAX as INTEGER_MAX
from pario.settings.values import INT_MAX

HELP = __doc__.split("\n", 2)[2]
# The profiler's memory bound per process, in MiB: its arena is mapped at start (csrc/profile), so
# at most 1 TiB; the preload library raises anything under 1 MiB to 1 MiB.
MEM = row("mem", "float", "memory bound per process in MiB", lo=1, hi=1 << 20)
TOP = row("top", "int", "files listed", lo=0, hi=INTEGER_MAX)
SECONDS = row("seconds", "float", "seconds after the job's start", lo=0, hi=1e12)


def register(subparsers) -> None:
    p = subparsers.add_parser("profile", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", "--ranks", type=RANKS,
                   help="launch with mpirun -n RANKS (MPI programs); inside a Slurm allocation with srun")
    p.add_argument("--nodes", type=NODES, metavar="N",
                   help="with -n: the ranks on N nodes, in blocks (srun -N N inside Slurm, else the first N hosts "
                        "of mpirun's hostfile)")
    p.add_argument("--launcher", type=LAUNCHER,
                   help="default with -n: srun inside a Slurm allocation, else mpirun; --launcher srun without -n "
                        "starts the allocation's tasks (SLURM_NTASKS)")
    p.add_argument("-o", "--output", type=row("output", "path"),
                   help="job log to write (for --env: the directory the processes write to)")
    p.add_argument("--trace", action="store_true", help="also keep a per-operation trace (bounded by --mem)")
    p.add_argument("--mem", type=MEM, metavar="MIB",
                   help="memory bound per process for records and trace (default 64)")
    p.add_argument("--runtime-files", action="store_true",
                   help="record the MPI runtime's own files (shared memory, session directories) one by one "
                        "instead of as one '<MPI runtime files>' record")
    p.add_argument("--env", action="store_true", help="print the exports for a job script and exit")
    p.add_argument("--buffer", action="store_true",
                   help="run with pario buffer's write coalescing on; the log gets the file system's view")
    p.add_argument("--buffer-size", default="64m", type=BUFFER_SIZE,
                   help="with --buffer: buffer per file (default 64m)")
    p.add_argument("--buffer-files", action="append", default=[], metavar="PATTERN[:size=N]", type=BUFFER_FILES,
                   help="with --buffer: the files to buffer (as pario buffer --files)")
    p.add_argument("--keep-parts", action="store_true", help="keep the per-process logs next to the job log")
    p.add_argument("--json", action="store_true", help="with show: print one JSON document")
    p.add_argument("--top", type=TOP, default=20, help="with show: how many files to list (default 20)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS, or: show LOG")
    p.set_defaults(run=run)


def _show_args(rest):
    return show_parser().parse_args(rest)


def show_parser() -> Parser:
    """`pario profile show`'s own parser (its arguments follow the command's REMAINDER)."""
    sp = Parser(prog="pario profile show", description="print a profile log")
    sp.add_argument("log", type=row("log", "path"), help="job log (pario profile -o), or a PARIO_PROFILE_DIR directory")
    sp.add_argument("--json", action="store_true", help="one JSON document on stdout")
    sp.add_argument("--top", type=TOP, default=20, help="files listed (default 20)")
    sp.add_argument("--trace", action="store_true", help="the traced operations (a log of pario profile --trace)")
    sp.add_argument("--file", type=row("file", "str"), help="--trace: operations on paths containing this")
    sp.add_argument("--rank", type=row("rank", "int", lo=0, hi=INT_MAX), help="--trace: operations of this MPI rank")
    sp.add_argument("--from", dest="t_from", type=SECONDS, metavar="S", help="--trace: from S seconds after start")
    sp.add_argument("--to", dest="t_to", type=SECONDS, metavar="S", help="--trace: up to S seconds after start")
    sp.add_argument("--limit", type=row("limit", "int", lo=1, hi=INTEGER_MAX), default=50,
                    help="--trace: operations shown (default 50)")
    sp.add_argument("--html", action="store_true", help="write an HTML page with plots instead (pario report)")
    sp.add_argument("-o", "--output", type=row("output", "path"),
                    help="with --html: the page to write (default: the log's name + .html)")
    return sp


def run(args) -> int:
    from pario.cli.wrapped import choose_launcher

    cmd = list(args.command or [])
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if cmd and cmd[0] == "show":
        args.json = args.json or "--json" in cmd[1:]  # an error under `show --json` is a JSON document too
        sub = _show_args(cmd[1:])
        if sub.html:
            return show_html(sub.log, sub.output)
        if sub.trace:
            return show_trace(sub)
        if sub.file or sub.rank is not None or sub.t_from is not None or sub.t_to is not None:
            raise ParioError("--file, --rank, --from and --to filter the trace: add --trace")
        return show(sub.log, sub.json or args.json, sub.top if sub.top != 20 else args.top)
    from pario.profile import run as prun

    if args.env:
        return print_env(args, prun)
    if not cmd:
        raise ParioError("nothing to profile: give the program after --, e.g. `pario profile -- ./app args`, "
                         "or `pario profile show LOG`")
    choose_launcher(args, cmd)
    return profile(args, cmd, prun)


def print_env(args, prun) -> int:
    from pathlib import Path

    lib = prun.preload_path()
    stamp = os.environ.get("SLURM_JOB_ID") or time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.output or f"pario-profile.{stamp}").resolve()
    env = prun.profile_env(lib, str(out), args.trace, args.mem, args.runtime_files)
    print("# pario profile: paste into the job script before the launcher line (srun keeps the environment;")
    print("# with mpirun add -x LD_PRELOAD -x PARIO_PROFILE_DIR). Afterwards:")
    print(f"#   pario profile show {out}")
    for line in prun.env_exports(env):
        print(line)
    return 0


def profile(args, cmd, prun) -> int:
    from pario.platform.outfile import check_output, path_text
    from pario.platform.slurm_env import job_id
    from pario.run import child

    lib = prun.preload_path(prun.mpi_of_launch(cmd, args.ranks, args.launcher), cmd[0])
    output = path_text(args.output) if args.output else prun.default_output(cmd)   # a string: pathlib costs the start
    check_output(output, "-o", "the job log")   # before the program runs: what it did would be lost
    parts = prun.make_parts_dir(os.path.realpath(output))
    env_vars = prun.profile_env(lib, str(parts), args.trace, args.mem, args.runtime_files)
    stats_dir = None
    if args.buffer:
        from pario.buffer import run as brun

        size, files = brun.settings(args.buffer_size, args.buffer_files)
        stats_dir = brun.make_stats_dir(os.path.dirname(parts))
        env_vars.update(brun.buffer_env(lib, size, files, str(stats_dir)))
        env_vars.pop("PARIO_PROFILE_DISABLE")
    started = time.time()
    if args.ranks:
        env_vars["LD_PRELOAD"] = prun.merged_preload(lib)
        argv = prun.launch_argv(args.ranks, env_vars, cmd, args.launcher, args.nodes)
        child_env = dict(os.environ)  # the launcher itself runs without the profiler
    else:
        argv = cmd
        child_env = dict(os.environ)
        child_env.update(env_vars)
        child_env["LD_PRELOAD"] = prun.merged_preload(lib)
    try:  # signals to pario go to the program (a Ctrl-C never SIGKILLs its buffers); pario waits for it
        ended = child.run(argv, env=child_env, meanwhile=_load_merge)  # and writes the log anyway
    except OSError as exc:
        prun.remove_parts(parts)
        if stats_dir:
            brun.remove_stats_dir(stats_dir)
        raise child.cannot_run(argv[0], exc) from None
    code = ended.returncode
    job = {"command": cmd, "cwd": os.getcwd(), "launcher": args.launcher if args.ranks else "direct",
           "ranks": args.ranks or 0, **({"nodes": args.nodes} if args.nodes and args.ranks else {}),
           "exit_code": code, "start": started, "end": time.time()}
    if args.ranks:
        job["launcher_argv"] = argv
    if job_id() is not None:  # platform.slurm (dataclasses) only where there is an allocation to record
        from pario.platform import slurm

        alloc = slurm.allocation()
        if alloc is not None:
            job["slurm"] = alloc.to_dict()
    if ended.forwarded:
        names = ", ".join(dict.fromkeys(signal.Signals(s).name for s in ended.forwarded))
        print(f"pario: passed {names} on to the program", file=sys.stderr)
    try:
        extra = None
        if stats_dir:
            from pario.analysis.buffer_stats import docs_in

            extra = {"filesystem": {"source": "pario buffer", "processes": docs_in(stats_dir)}}
        doc = prun.merge(parts, output, job, ended.signal, extra)
    finally:
        if not args.keep_parts:
            prun.remove_parts(parts)
        if stats_dir:
            brun.remove_stats_dir(stats_dir)
    nproc = len(doc["processes"])
    from pario.analysis.profile.launch import stopped

    partial = sum(1 for p in doc["processes"] if stopped(p["process"]))
    msg = f"pario: profile of {nproc} process{'es' if nproc != 1 else ''} written to {output}"
    if partial:
        msg += f" ({partial} stopped by a signal: partial)"
    print(msg + f"; see it with: pario profile show {output}", file=sys.stderr)
    for line in ranks_said(doc, args.ranks):
        print(f"pario: warning: {line}", file=sys.stderr)
    if ended.signal:
        print(f"pario: the program was ended by {signal.Signals(ended.signal).name}", file=sys.stderr)
    elif code != 0:
        print(f"pario: the program exited with status {code}", file=sys.stderr)
    args.end_now = True  # the log is written and closed, the parts removed: main may skip the teardown
    return ended.shell_code


def _load_merge() -> None:
    """What merging the log needs, loaded while the program runs (on another core, not after it)."""
    from pario.analysis.profile import logread  # noqa: F401


def ranks_said(doc: dict, ranks: int | None) -> list[str]:
    """What the log says about the ranks launched (analysis.profile.launch.launch_lines: pario profile
    show says the same)."""
    from pario.analysis.profile.launch import launch_lines

    return launch_lines(doc, ranks)


def show(log: str, as_json: bool, top: int) -> int:
    from pario.analysis.profile import load, summary

    result = summary(load(log))
    if as_json:
        json.dump({"schema": "pario.profile-summary/1", **result}, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
        return 0
    from pario.report.terminal.profile import show as render

    render(result, top=top)
    return 0


def show_trace(sub) -> int:
    from pario.analysis.profile import load
    from pario.analysis.profile.trace import events
    from pario.report.terminal.profile import show_trace as render

    if sub.limit < 1:
        raise ParioError(f"--limit {sub.limit}: show at least 1 operation")
    found, total = events(load(sub.log), file=sub.file, rank=sub.rank, t_from=sub.t_from, t_to=sub.t_to)
    if sub.json:
        json.dump({"schema": "pario.profile-trace/1", "total": total, "matching": len(found),
                   "events": [vars(e) for e in found[:sub.limit]]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    render(found, total, sub.limit)
    return 0


def show_html(log: str, output: str | None) -> int:
    from pathlib import Path

    from pario.analysis.profile import load
    from pario.report.html import save

    out = output or (Path(log.rstrip("/")).stem or "profile") + ".html"
    print(save(out, profiles=[(log, load(log))]))
    return 0
