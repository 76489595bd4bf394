"""The one error type a user sees: a clear line and an exit code, never a traceback."""
from __future__ import annotations

from collections.abc import Iterable


class ParioError(Exception):
    """A user-facing error. The message is one line saying what is wrong and how to fix it."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """' (did you mean X?)' when one of choices is close to name, else ''."""
    import difflib

    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


class Stopped(BaseException):
    """A signal asked pario to stop (SIGTERM from `timeout`, `scancel` or a batch time limit; SIGHUP;
    SIGINT). Like KeyboardInterrupt it is not an Exception: only the code that ends the run and
    keeps what it measured catches it. The exit code is the shell's for that signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        import signal
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_code(self) -> int:
        return 128 + self.signum
