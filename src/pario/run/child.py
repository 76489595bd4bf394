"""Running a program the way a shell would: it keeps the terminal, the signals a job receives
reach it, and its exit status is ours (its code, or 128 + the signal that killed it)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

from pario.model.errors import ParioError

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)


def _terminal_sends_it_too() -> bool:
    """True when we are the terminal's foreground process group: a Ctrl-C reaches the child by
    itself, and forwarding it would deliver it twice."""
    try:
        fd = sys.stdin.fileno()
        return os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp()
    except (OSError, ValueError, AttributeError):
        return False


def run(argv: list[str], env: dict[str, str] | None = None) -> int:
    """Run argv to its end, forwarding SIGTERM/SIGINT/SIGHUP/SIGUSR1/SIGUSR2; its exit status."""
    try:
        proc = subprocess.Popen(argv, env=env)
    except FileNotFoundError:
        raise ParioError(f"cannot run {argv[0]}: no such program (check the path after --)", exit_code=127) from None
    except PermissionError:
        raise ParioError(f"cannot run {argv[0]}: permission denied (is it executable?)", exit_code=126) from None

    def forward(sig, _frame):
        if sig == signal.SIGINT and _terminal_sends_it_too():
            return
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass

    old = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        while True:
            try:
                code = proc.wait()
                break
            except InterruptedError:
                continue
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return code if code >= 0 else 128 - code
