"""A launcher's stderr, passed on line by line as it comes and kept (the last lines), so that a
failed launch can be explained from what the launcher said (srun's reasons, the engine's) without
hiding it; only a line that is certainly the launcher's own noise is kept and not shown."""
from __future__ import annotations

import collections
import os
import re
import threading
from typing import IO, Callable

# Open MPI 4's runtime failing to print its own help message while it tears the job down (after
# MPI_Abort: "[vm:24659] [[3245,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/
# show_help.c at line 501"): nothing the user can act on, said in place of the message it lost.
# Only this exact line is hidden; every other line of the launcher is shown.
_NOISE = re.compile(r"\[[^\]\s]+\] \[\[\d+,\d+\],\d+\] ORTE_ERROR_LOG: Out of resource in file "
                    r"\S*orte/util/show_help\.c at line \d+\s*")


def launcher_noise(line: str) -> bool:
    """The line is the launcher's own noise (kept in tee.lines, not shown)."""
    return _NOISE.fullmatch(line) is not None


class StderrTee:
    """with StderrTee(show) as tee: Popen(..., stderr=tee.file); afterwards tee.lines."""

    def __init__(self, show: Callable[[str], None], keep: int = 200):
        self.show = show
        self._kept: collections.deque[str] = collections.deque(maxlen=keep)
        self.file: IO[str] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> StderrTee:
        return self.start()

    def start(self) -> StderrTee:
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w")
        reader = os.fdopen(read_fd, "r", errors="replace")

        def pump() -> None:
            with reader:
                for line in reader:
                    self._kept.append(line)
                    if not launcher_noise(line):
                        self.show(line)

        self._thread = threading.Thread(target=pump, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self, wait: float = 5.0) -> None:
        """Our copy of the write end goes; the pump ends once the launcher's copies are closed too
        (a process it left behind may hold one: then we stop waiting after `wait` seconds)."""
        if self.file is not None:
            self.file.close()
            self.file = None
        if self._thread is not None:
            self._thread.join(wait)

    @property
    def lines(self) -> list[str]:
        return list(self._kept)
