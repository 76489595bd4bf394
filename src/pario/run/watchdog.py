"""Running one launcher with a watchdog: the engine's `@pario` progress lines go to a RunObserver,
and when no progress comes for too long the stuck ranks are named from their status files and
the launcher's whole session is ended."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pario.model.errors import ParioError
from pario.model.events import RunObserver
from pario.platform.mpi import INSTALL_MPI

PROGRESS = "@pario "


@dataclass
class Outcome:
    returncode: int
    watchdog: str | None = None       # why the watchdog ended the run
    events: list[dict[str, Any]] = field(default_factory=list)


_STATES = ("open", "xfer", "sync", "close", "done")


def stuck_ranks(status_dir: str, ranks: int, cases: list[dict[str, Any]], verb: str = "stuck in") -> str:
    """Name the ranks the others are waiting for, from the per-rank status files."""
    where: dict[int, tuple | None] = {}
    for r in range(ranks):
        try:
            with open(os.path.join(status_dir, f"rank.{r}"), encoding="utf-8") as fh:
                parts = fh.read().split()
            c, op, rep, state = int(parts[0]), parts[1], int(parts[2]), parts[3]
            ops = cases[c]["ops"] if 0 <= c < len(cases) else []
            pos = (c, rep, ops.index(op) if op in ops else -1, _STATES.index(state) if state in _STATES else -1)
            where[r] = (pos, c, op, rep, state)
        except (OSError, ValueError, IndexError):
            where[r] = None
    missing = [r for r, w in where.items() if w is None]
    if len(missing) == ranks:
        return "no rank wrote a status file (stuck before the first phase: MPI start-up or file open)"
    if missing:
        return f"rank{'s' if len(missing) > 1 else ''} {_ranges(missing)} never reported a phase"
    known = {r: w for r, w in where.items() if w is not None}
    low = min(w[0] for w in known.values())
    lag = [r for r, w in known.items() if w[0] == low]
    _, c, op, rep, state = known[lag[0]]
    name = cases[c]["name"] if 0 <= c < len(cases) else f"case {c}"
    waiting = ranks - len(lag)
    tail = (f"; the other {waiting} wait{'s' if waiting == 1 else ''} for {'it' if len(lag) == 1 else 'them'}"
            if waiting and verb == "stuck in" else "")
    phase = f"{op} rep {rep}" if rep >= 0 else f"{op} (the untimed write that prepares a read-only case)"
    return f"rank{'s' if len(lag) > 1 else ''} {_ranges(lag)} {verb} {name} {phase} (state {state}){tail}"


def _ranges(ranks: list[int]) -> str:
    out, start = [], None
    for i, r in enumerate(ranks):
        if start is None:
            start = r
        if i + 1 == len(ranks) or ranks[i + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}-{r}")
            start = None
    return ",".join(out)


def _session_pids(sid: int) -> list[int]:
    """Processes of our launcher's session, so that ranks it forked are ended too."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def terminate(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """End the launcher and everything in its session (it was started in a new one)."""
    if proc.poll() is not None and not _session_pids(proc.pid):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        for pid in _session_pids(proc.pid):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _session_pids(proc.pid):
                return
            time.sleep(0.1)


def run(argv: list[str], *, env: dict[str, str], timeout: float, status_dir: str | None,
        ranks: int, cases: list[dict[str, Any]], observer: RunObserver, sink=None, stderr=None) -> Outcome:
    """Run the launcher; stdout progress lines go to `observer`, other output to observer.output unless
    `sink.line(text)` takes it (the hint reports of settings.effective.OutputCollector). `stderr`:
    where the launcher's own stderr goes (a file object; default: ours)."""
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=stderr, env=env,
                                start_new_session=True, text=True, bufsize=1, errors="replace")
    except OSError as exc:
        raise ParioError(f"cannot start {argv[0]}: {exc.strerror}; {INSTALL_MPI}", exit_code=3) from None
    lines: queue.Queue[str | None] = queue.Queue()

    def reader():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    outcome = Outcome(returncode=0)
    last = time.monotonic()
    try:
        while True:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if time.monotonic() - last > timeout:
                    who = stuck_ranks(status_dir, ranks, cases) if status_dir else "no status files"
                    outcome.watchdog = (f"no progress for {timeout:g} s: {who}; the run was ended "
                                        "(raise --timeout if a phase is just slow)")
                    terminate(proc)
                    break
                continue
            if line is None:
                break
            if line.startswith(PROGRESS):
                try:
                    ev = json.loads(line[len(PROGRESS):])
                except ValueError:
                    continue
                outcome.events.append(ev)
                observer.event(ev)
                if sink is not None:
                    sink.event(ev)
                last = time.monotonic()
            elif sink is None or not sink.line(line):
                observer.output(line)
        outcome.returncode = proc.wait()
    except BaseException:
        terminate(proc)
        raise
    finally:
        observer.close()
    return outcome
