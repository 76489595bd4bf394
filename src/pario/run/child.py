"""Running a program the way a shell runs a foreground job, for the commands that wrap one
(`pario profile`, `pario buffer`): the signals that ask a job to stop or to act (SIGTERM, SIGINT,
SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) are passed on to the program instead of ending pario, pario
waits for the program, and the caller learns how it ended (exit code, or the signal that ended
it) to do its own work afterwards (write a log) and exit as the program did (shell_code). A
wrapper with nothing to do afterwards becomes the program instead (replace: exec).

SIGINT and SIGQUIT typed at a terminal reach the whole foreground process group, the program
included: they are passed on only when pario is not that group (a batch job, `kill -INT`), so
that the program does not get them twice."""
from __future__ import annotations

import os
import signal
import sys

from pario.model.errors import ParioError

TYPE_CHECKING = False  # typing itself costs a wrapper's start (benchmarks/startup)
if TYPE_CHECKING:
    from types import FrameType
    from typing import Callable, NoReturn

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
FROM_TERMINAL = (signal.SIGINT, signal.SIGQUIT)


class ChildExit:
    """How the program ended (a plain class: `pario buffer` imports this module to exec the program,
    and dataclasses would cost it more than the rest of its start)."""

    def __init__(self, returncode: int, forwarded: list[int] | None = None) -> None:
        self.returncode = returncode  # as Popen says it: -N when signal N ended the program
        self.forwarded: list[int] = forwarded if forwarded is not None else []  # the signals pario passed on

    def __repr__(self) -> str:
        return f"ChildExit(returncode={self.returncode}, forwarded={self.forwarded})"

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode < 0 else None

    @property
    def shell_code(self) -> int:
        """The exit code a shell reports for it: the program's, or 128 + N for signal N."""
        return 128 - self.returncode if self.returncode < 0 else self.returncode


def in_terminal_foreground() -> bool:
    """Whether this process's group is the foreground group of its controlling terminal."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


def cannot_run(program: str, exc: OSError) -> ParioError:
    """The one line for a program that could not be started, with the shell's exit code."""
    if isinstance(exc, FileNotFoundError):
        return ParioError(f"cannot run {program}: no such program (check the path after --)", exit_code=127)
    if isinstance(exc, PermissionError):
        return ParioError(f"cannot run {program}: permission denied (is it executable?)", exit_code=126)
    return ParioError(f"cannot run {program}: {exc.strerror or exc}", exit_code=126)


def replace(argv: list[str], env: dict[str, str]) -> NoReturn:
    """Become argv (exec), for a wrapper with nothing left to do after the program: pario's
    interpreter is gone while it runs, signals reach it directly and its exit status (or the
    signal that ended it) is the caller's as it would be of the program alone. The signals Python
    ignores for itself (SIGPIPE, SIGXFSZ) get their default action back first, as subprocess does
    for a child. OSError (no such program, not executable) is the caller's to name; pario is then
    still running, as it was."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    ignored = [s for s in (getattr(signal, "SIGPIPE", None), getattr(signal, "SIGXFSZ", None)) if s is not None]
    old = {s: signal.signal(s, signal.SIG_DFL) for s in ignored}
    try:
        os.execvpe(argv[0], argv, env)
    except OSError:
        for s, disposition in old.items():
            signal.signal(s, disposition)
        raise


def run(argv: list[str], env: dict[str, str] | None = None, meanwhile: Callable[[], object] | None = None) -> ChildExit:
    """Start argv and wait for it, passing FORWARDED signals on; meanwhile(), if given, is called
    once the program runs (what the caller needs only after it: imports, on another core). OSError
    (no such program, not executable) is the caller's to name. Call it from the main thread
    (signal handlers).

    The program is started with posix_spawn: the signals Python ignores for itself (SIGPIPE,
    SIGXFSZ) are back to their default in it, and the descriptors pario was given stay open in it
    (pario's own are close-on-exec), as a shell leaves them. One difference from a shell: glibc's
    posix_spawn leaves the two signals it keeps for itself (32 and 33, below SIGRTMIN) ignored in
    the program, where glibc installs its own handlers when it uses them (as with subprocess
    whenever it spawns that way). subprocess's own fork and exec would cost the wrapper's start
    more than the rest of its work (benchmarks/startup)."""
    out = ChildExit(returncode=0)
    pid: int | None = None
    done = False
    pending: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if signum in FROM_TERMINAL and in_terminal_foreground():
            return  # the terminal sent it to the program as well
        if done:
            return  # the program has ended (and its process id may be another's)
        if pid is None:
            pending.append(signum)  # came before the program started: passed on once it has
            return
        try:
            os.kill(pid, signum)
            out.forwarded.append(signum)
        except ProcessLookupError:
            pass

    ignored = [s for s in (getattr(signal, "SIGPIPE", None), getattr(signal, "SIGXFSZ", None)) if s is not None]
    old = {sig: signal.signal(sig, handler) for sig in FORWARDED}
    try:
        for stream in (sys.stdout, sys.stderr):  # what pario said comes before what the program says
            stream.flush()
        pid = os.posix_spawnp(argv[0], argv, os.environ if env is None else env, setsigdef=ignored)
        for signum in pending:
            handler(signum, None)
        try:
            if meanwhile is not None:
                meanwhile()
        finally:
            _, status = os.waitpid(pid, 0)  # retried after each handler (PEP 475)
        done = True
        out.returncode = os.waitstatus_to_exitcode(status)
    finally:
        for sig, disposition in old.items():
            signal.signal(sig, disposition)
    return out
