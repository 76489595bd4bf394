"""`--verify` of a `pario buffer` fix with the user's own program: run again as the log recorded it
(its command and, for pario profile logs, its directory), unbuffered and under the buffer the fix
names, alternated (plain, buffered, then buffered, plain, ...) so that a drift of the machine's
load falls on both sides; the medians of the whole program's wall time and the noise test of
analysis/noise.py say whether the fix made it faster. A program that cannot be run again here
(a Darshan log keeps no command line to run, an MPI job, a program or directory not found, a
run too long for --budget) is named with the reason, and verify.py falls back to pario bench's
replay of the pattern. The program ends with pario (also a SIGKILL of pario: _ends_with); pario
makes no file for these runs, and removes none of what the program writes."""
from __future__ import annotations

import ctypes
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from pario.advise.job import Job
from pario.advise.rules.base import s
from pario.analysis import noise
from pario.model.errors import ParioError
from pario.model.findings import Finding, Verification

MIN_PAIRS = noise.MIN_N      # the noise test needs 3 runs a side
MAX_PAIRS = 5
_SIZE = re.compile(r"--size (\S+)")
# variables that would put the library or its buffer into the unbuffered runs
_OURS = ("PARIO_BUFFER", "PARIO_BUFFER_SIZE", "PARIO_BUFFER_FILES", "PARIO_BUFFER_STATS", "PARIO_PROFILE_DIR")


@dataclass
class Program:
    argv: list[str]
    cwd: str
    size: int                # the buffer size of the fix's command
    pairs: int


def _resolve(job: Job) -> tuple[list[str], str]:
    """The command and directory to run it in, or ParioError with why it cannot run here."""
    cwd = job.cwd or os.getcwd()
    if job.cwd and not os.path.isdir(job.cwd):
        raise ParioError(f"the directory it ran in, {job.cwd}, is not here")
    exe = job.argv[0]
    if "/" in exe:
        path = exe if os.path.isabs(exe) else os.path.join(cwd, exe)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise ParioError(f"{exe} is not an executable file here")
    elif not shutil.which(exe):
        raise ParioError(f"{exe} is not on PATH here")
    return list(job.argv), cwd


def plan(f: Finding, job: Job, budget_s: float) -> Program:
    """How to run the program for this finding, or ParioError with the reason it cannot be."""
    if not job.argv:
        raise ParioError("a Darshan log keeps the executable's name, not a command line to run again"
                         if job.format == "darshan" else "the log does not record the command")
    if job.nprocs > 1 or job.launcher not in ("", "direct"):
        ranks = f"{job.nprocs} rank{'s' if job.nprocs != 1 else ''}"
        raise ParioError(f"an MPI program ({ranks}): --verify runs serial programs again, not MPI jobs")
    m = _SIZE.search(f.fix.command or "")
    if not m:
        raise ParioError("the fix names no buffer size")
    from pario.buffer.run import size_of
    size = size_of(m.group(1))
    argv, cwd = _resolve(job)
    each = job.run_time or 0.0
    pairs = MAX_PAIRS if not each else max(0, min(MAX_PAIRS, int(budget_s / (2 * each))))
    if pairs < MIN_PAIRS:
        raise ParioError(f"it ran {each:.1f} s; {MIN_PAIRS} runs each way take about {2 * MIN_PAIRS * each:.0f} s, "
                         f"over --budget {budget_s:g} s")
    return Program(argv=argv, cwd=cwd, size=size, pairs=pairs)


def _env(buffered: bool, size: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _OURS}
    if buffered:
        from pario.buffer.run import buffer_env
        from pario.profile.run import merged_preload, preload_path
        lib = preload_path()
        env.update(buffer_env(lib, size, [], None))
        env["LD_PRELOAD"] = merged_preload(lib, os.environ)
    return env


PR_SET_PDEATHSIG = 1


def _ends_with(parent: int) -> Callable[[], None] | None:
    """For the program's process, before its exec: SIGTERM when pario dies. A SIGKILL of pario runs
    no handler, and the program (the user's, rewriting its own files) would go on alone, orphaned,
    for as long as it runs; SIGTERM (what `timeout` and Slurm send) lets it end as it would there.
    Linux only (prctl); elsewhere the program is left to end by itself, as before. libc is looked
    up here, in pario: the child only makes the call (no loader work between fork and exec)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # pario died between the fork and the prctl
            os.kill(os.getpid(), signal.SIGTERM)
    return arm


def _once(prog: Program, env: dict[str, str], timeout: float) -> float:
    started = time.perf_counter()
    try:
        done = subprocess.run(prog.argv, cwd=prog.cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout,
                              preexec_fn=_ends_with(os.getpid()))
    except subprocess.TimeoutExpired:
        raise ParioError(f"a run took over {timeout:.0f} s (the log's run was much shorter)") from None
    except OSError as exc:
        raise ParioError(f"cannot run {prog.argv[0]}: {exc.strerror}") from None
    took = time.perf_counter() - started
    if done.returncode:
        last = (done.stderr or b"").decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise ParioError(f"the program exited with status {done.returncode} ({last[0][:120]})")
    return took


def measure(prog: Program, timeout: float) -> tuple[list[float], list[float]]:
    """Seconds of each run: (unbuffered, buffered), alternated in pairs of swapped order."""
    plain_env, buf_env = _env(False, prog.size), _env(True, prog.size)
    plain: list[float] = []
    buffered: list[float] = []
    for k in range(prog.pairs):
        order = (False, True) if k % 2 == 0 else (True, False)
        for b in order:
            (buffered if b else plain).append(_once(prog, buf_env if b else plain_env, timeout))
    return plain, buffered


def verify(f: Finding, job: Job, prog: Program) -> None:
    """Run the program both ways; fills f.verification (method "program")."""
    timeout = max(60.0, 20 * (job.run_time or 0.0))
    plain, buffered = measure(prog, timeout)
    before, after = statistics.median(plain), statistics.median(buffered)
    test = noise.compare([1 / t for t in plain], [1 / t for t in buffered])
    cmd = shlex.join(prog.argv)
    load = os.getloadavg()[0]
    note = (f"the program itself, as profiled ({cmd}, in {prog.cwd}; it wrote its files again), "
            f"{prog.pairs} runs each way alternated, wall time from start to exit: unbuffered median "
            f"{s(before)} [{s(min(plain))}-{s(max(plain))}], under {_fix_words(f)} median {s(after)} "
            f"[{s(min(buffered))}-{s(max(buffered))}]")
    if test.ratio is not None and test.low is not None and test.high is not None:
        verdict = {"faster": "faster beyond the noise", "slower": "slower beyond the noise"}.get(
            test.verdict, "within the noise")
        note += f"; {test.ratio:.2f}x [{test.low:.2f}x-{test.high:.2f}x], {verdict}"
    else:
        note += f"; {before / after:.2f}x ({test.verdict})"
    if test.verdict == "faster" and job.run_time:
        # the re-runs' times are this machine's now (often slower than the profiled run): the
        # share they saved, applied to the profiled run, is what the fix saves of it, never more
        saved = job.run_time * (1 - after / before)
        note += f"; saves {100 * (1 - after / before):.0f}% of the program's time: {s(saved)} of the profiled " \
                f"{s(job.run_time)}"
        if f.seconds_at_stake is not None:
            note += f", against {s(f.seconds_at_stake)} estimated at stake"
    note += f" (load average {load:.1f} on {os.cpu_count()} cores; not stored: not a pario bench run)"
    f.verification = Verification(before_s=before, after_s=after, runs=[], note=note, method="program",
                                  verdict=test.verdict)


def _fix_words(f: Finding) -> str:
    m = _SIZE.search(f.fix.command or "")
    return f"pario buffer --size {m.group(1)}" if m else "pario buffer"
