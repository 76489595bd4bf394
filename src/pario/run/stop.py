"""Stopping a run on a signal: SIGTERM (what `timeout`, `scancel` and a Slurm time limit send),
SIGHUP and SIGINT become a Stopped exception in the main thread, once. The run then ends its
launch and removes its files; what it measured is stored. While that happens (`disarm`), later
signals are only counted, so that they cannot cut the storing short; the exit code still says the
first one (128 + N)."""
from __future__ import annotations

import signal
from types import FrameType

from pario.model.errors import Stopped

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class StopOnSignals:
    """with StopOnSignals() as stop: ... stop.disarm() ...; stop.received: the signals that came."""

    def __init__(self, signals: tuple[int, ...] = SIGNALS):
        self.signals = signals
        self.armed = False
        self.received: list[int] = []
        self._old: dict[int, object] = {}

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if self.armed:
            self.armed = False
            raise Stopped(signum)

    def disarm(self) -> None:
        """From now on a signal is noted, not raised (the run has ended; what follows is storing)."""
        self.armed = False

    @property
    def first(self) -> int | None:
        return self.received[0] if self.received else None

    def __enter__(self) -> StopOnSignals:
        global _current
        for sig in self.signals:
            self._old[sig] = signal.signal(sig, self._handler)
        self.armed = True
        _current = self
        return self

    def __exit__(self, *exc) -> None:
        global _current
        self.armed = False
        _current = None
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]


_current: StopOnSignals | None = None


def current() -> StopOnSignals | None:
    """The handlers in place, if any (cli/bench.py installs them around a run)."""
    return _current


def disarm() -> None:
    """The run's launch has ended: signals from now on are noted, not raised (see StopOnSignals)."""
    if _current is not None:
        _current.disarm()


