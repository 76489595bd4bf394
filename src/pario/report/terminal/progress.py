"""The progress display of a run: a rich bar on stderr when it is a terminal, else one plain line
per phase, and inside a long phase its bytes so far (at most one line per PLAIN_EVERY_S); and the
notes of the run, one `pario: ...` line each on stderr. It is the terminal's
RunObserver (model.events): the run layer tells it what happens and never prints."""
from __future__ import annotations

import sys
import time
from typing import Any

from pario.model.case import MD_OPS
from pario.model.units import human

PLAIN_FIRST_S = 2.0   # a phase shorter than this shows only its phase line
PLAIN_EVERY_S = 5.0   # in-phase lines of a plain display: no flood in a log file
WIDTH = 80


class Progress:
    """A rich bar on stderr when it is a terminal, else one plain line per phase."""

    def __init__(self, plain: bool):
        self.plain = plain or not sys.stderr.isatty()
        self.bar: Any = None   # a rich Progress once the run starts on a terminal
        self.task: Any = None
        self.steps = 0
        self.done = 0         # phases finished
        self.started = time.monotonic()
        self.last_plain = 0.0  # when the last in-phase line was printed

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
        elif kind == "bytes":
            self.inphase(ev)
        elif kind == "phase":
            try:
                self.done = int(ev.get("step", self.done))
            except (TypeError, ValueError):
                pass
            bw, iops = ev.get("bw_mib"), ev.get("iops")
            rate = (f": {iops:.0f} files/s" if ev.get("op") in MD_OPS and iops is not None
                    else f": {bw:.1f} MiB/s" if bw is not None else "")
            text = f"{ev.get('name')} {ev.get('op')} rep {ev.get('rep')}" + rate
            if self.bar is not None:
                self.bar.update(self.task, completed=ev.get("step", 0), description=text)
            else:
                print(f"pario: [{ev.get('step', '?')}/{ev.get('steps', self.steps)}] {text}"
                      f"{self.timing(ev.get('step'), ev.get('steps', self.steps))}", file=sys.stderr, flush=True)

    def inphase(self, ev: dict[str, Any]) -> None:
        """Bytes so far of the phase in progress (all ranks), its current rate, the run's elapsed
        time and what is left of the whole run, counting the open phase's fraction."""
        moved, total = ev.get("bytes") or 0, ev.get("total") or 0
        frac = min(1.0, moved / total) if total > 0 else 0.0
        rate = ev.get("rate_mib")
        where = f"{ev.get('op')} rep {ev.get('rep')}"
        so_far = f"{human(moved)} of {human(total)}" if total else human(moved)
        speed = f", {rate:.1f} MiB/s" if isinstance(rate, (int, float)) else ""
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done + frac, description=f"{where}: {so_far}{speed}")
            return
        now = time.monotonic()
        if (ev.get("since_s") or 0) < PLAIN_FIRST_S or now - self.last_plain < PLAIN_EVERY_S:
            return
        self.last_plain = now
        head = f"pario: [{self.done + 1}/{self.steps}] " if self.steps else "pario: "
        elapsed, left = self.clocks(self.done + frac, self.steps)
        short = f"; {elapsed} elapsed" + (f", {left} left" if left else "")
        # the first that fits 80 columns: the step number names the phase, the case name and the
        # repetition are in its phase line too
        lines = [f"{head}{ev.get('name')} {where}: {so_far}{speed}{short}", f"{head}{where}: {so_far}{speed}{short}",
                 f"{head}{ev.get('op')}: {so_far}{speed}{short}"]
        print(next((x for x in lines if len(x) <= WIDTH), lines[-1]), file=sys.stderr, flush=True)

    def timing(self, step: Any, steps: Any) -> str:
        elapsed, left = self.clocks(step, steps)
        return f" ({elapsed} elapsed" + (f", about {left} left)" if left else ")")

    def clocks(self, step: Any, steps: Any) -> tuple[str, str | None]:
        """Elapsed time of the run and what is left, from the mean time per phase so far (phases of
        one case take about as long as each other; a larger case later makes it an underestimate);
        `step` may count the open phase's fraction."""
        elapsed = time.monotonic() - self.started
        try:
            done, total = float(step), int(steps)
        except (TypeError, ValueError):
            return _clock(elapsed), None
        if done <= 0 or total <= done:
            return _clock(elapsed), None
        return _clock(elapsed), _clock(elapsed / done * (total - done))

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
