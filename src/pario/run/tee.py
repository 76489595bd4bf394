"""A launcher's stderr, passed on line by line as it comes and kept (the last lines), so that a
failed launch can be explained from what the launcher said (srun's reasons) without hiding it."""
from __future__ import annotations

import collections
import os
import threading
from typing import IO, Callable


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
