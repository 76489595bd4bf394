"""How a running launch reports to whoever shows it: the run layer calls an observer and never
prints; report.terminal.progress is the observer of the terminal."""
from __future__ import annotations

from typing import Any, Protocol

# One `@pario {...}` progress line of the engine (event: start | open | phase | settings | done), or the
# front end's `bytes` event: a long phase's bytes so far, from the status files (run.inphase).
ProgressEvent = dict[str, Any]


class RunObserver(Protocol):
    def event(self, ev: ProgressEvent) -> None:
        """A progress event of the engine."""

    def note(self, text: str) -> None:
        """A sentence about the run (ranks, sizes, what could not be done)."""

    def output(self, line: str) -> None:
        """A line the launcher or the engine printed that pario does not read itself."""

    def close(self) -> None:
        """The launch ended."""

    def quiet(self) -> RunObserver:
        """The observer of an untimed helper launch (the settings launch): no live display."""


class NullObserver:
    """Shows nothing: for callers that only want the record (a tuner's trials)."""

    def event(self, ev: ProgressEvent) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def output(self, line: str) -> None:
        pass

    def close(self) -> None:
        pass

    def quiet(self) -> NullObserver:
        return self
