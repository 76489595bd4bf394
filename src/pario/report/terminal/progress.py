"""The progress display of a run: a rich bar on stderr when it is a terminal, else one plain line
per phase; and the notes of the run, one `pario: ...` line each on stderr. It is the terminal's
RunObserver (model.events): the run layer tells it what happens and never prints."""
from __future__ import annotations

import sys
import time
from typing import Any

from pario.model.case import MD_OPS


class Progress:
    """A rich bar on stderr when it is a terminal, else one plain line per phase."""

    def __init__(self, plain: bool):
        self.plain = plain or not sys.stderr.isatty()
        self.bar: Any = None   # a rich Progress once the run starts on a terminal
        self.task: Any = None
        self.steps = 0
        self.started = time.monotonic()

    def event(self, ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "start":
            self.steps = int(ev.get("steps") or 0)
            self.started = time.monotonic()
            if not self.plain:
                from rich.console import Console
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    TextColumn,
                    TimeElapsedColumn,
                    TimeRemainingColumn,
                )
                from rich.progress import Progress as Bar
                self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                               console=Console(stderr=True), transient=True)
                self.bar.start()
                self.task = self.bar.add_task("starting", total=self.steps or None)
        elif kind == "phase":
            bw, iops = ev.get("bw_mib"), ev.get("iops")
            rate = (f": {iops:.0f} files/s" if ev.get("op") in MD_OPS and iops is not None
                    else f": {bw:.1f} MiB/s" if bw is not None else "")
            text = f"{ev.get('name')} {ev.get('op')} rep {ev.get('rep')}" + rate
            if self.bar is not None:
                self.bar.update(self.task, completed=ev.get("step", 0), description=text)
            else:
                print(f"pario: [{ev.get('step', '?')}/{ev.get('steps', self.steps)}] {text}"
                      f"{self.timing(ev.get('step'), ev.get('steps', self.steps))}", file=sys.stderr, flush=True)

    def timing(self, step: Any, steps: Any) -> str:
        """Elapsed time of the run and what is left, from the mean time per phase so far (phases of
        one case take about as long as each other; a larger case later makes it an underestimate)."""
        elapsed = time.monotonic() - self.started
        try:
            done, total = int(step), int(steps)
        except (TypeError, ValueError):
            return f" ({_clock(elapsed)} elapsed)"
        if done <= 0 or total <= done:
            return f" ({_clock(elapsed)} elapsed)"
        return f" ({_clock(elapsed)} elapsed, about {_clock(elapsed / done * (total - done))} left)"

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def note(self, text: str) -> None:
        print(f"pario: {text}", file=sys.stderr, flush=True)

    def output(self, line: str) -> None:
        sys.stderr.write(line)

    def quiet(self) -> Progress:
        """The observer of the settings launch: plain lines, never a bar."""
        return Progress(plain=True)


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
