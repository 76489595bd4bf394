"""Running one launcher with a watchdog: the engine's `@pario` progress lines go to a RunObserver,
and when no progress comes for too long (Limit: --timeout, else measured from the phases so far)
the stuck ranks are named from their status files and the launcher's whole session is ended."""
from __future__ import annotations

import json
import math
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pario.model.case import case_bytes, md_files
from pario.model.errors import ParioError
from pario.model.events import RunObserver
from pario.model.units import human
from pario.platform.host import disk_room
from pario.platform.mpi import INSTALL_MPI
from pario.run import session
from pario.run.inphase import Sampler

PROGRESS = "@pario "
POLL_S = 0.2          # how often the watchdog looks: it fires within this of its limit
FULL_DISK_STALL_S = 5.0  # a write with no progress this long on a full file system cannot finish


@dataclass
class Outcome:
    returncode: int
    watchdog: str | None = None       # why the watchdog ended the run
    events: list[dict[str, Any]] = field(default_factory=list)
    stragglers: int = 0               # processes of the launch that outlived the launcher and were ended
    removed: list[str] = field(default_factory=list)  # what the killed launcher's MPI left and pario removed
    limit_s: float | None = None      # the watchdog's limit when the launch ended


class Limit:
    """How long the watchdog waits for the next progress line: --timeout S, else measured: FACTOR
    times the slowest phase seen so far, scaled to the size of the phase in progress, never under
    FLOOR_S; until a phase of the kind (data or metadata) has ended, FLOOR_S plus the phase's size
    at a pessimistic FIRST_MIB_S (or FIRST_FILES_S)."""
    FLOOR_S = 60.0
    FACTOR = 10.0
    FIRST_MIB_S = 4.0
    FIRST_FILES_S = 20.0

    def __init__(self, fixed: float | None, cases: list[dict[str, Any]], ranks: int):
        self.fixed = fixed
        self.kinds = ["files" if c.get("workload") == "metadata" else "bytes" for c in cases]
        self.work = [_work(c, k, ranks) for c, k in zip(cases, self.kinds)]
        self.per_unit: dict[str, float] = {}   # kind -> slowest seconds per byte or per file
        self.longest = 0.0                     # seconds of the longest phase so far
        self.case: int | None = None           # the phase in progress (from the open event)
        self.op: str | None = None
        self.opened = 0.0

    def event(self, ev: dict[str, Any], now: float) -> None:
        kind = ev.get("event")
        case = ev.get("case")
        if kind == "open" and isinstance(case, int) and 0 <= case < len(self.work):
            self.case, self.op, self.opened = case, ev.get("op"), now
        elif kind == "phase" and self.case is not None and ev.get("case") == self.case:
            took = now - self.opened
            self.longest = max(self.longest, took)
            if self.work[self.case] > 0:
                unit = self.kinds[self.case]
                self.per_unit[unit] = max(self.per_unit.get(unit, 0.0), took / self.work[self.case])

    def seconds(self) -> float:
        if self.fixed is not None:
            return self.fixed
        index = self.case if self.case is not None else (max(range(len(self.work)), key=self.work.__getitem__)
                                                         if self.work else None)
        if index is None:
            return self.FLOOR_S
        kind, work = self.kinds[index], self.work[index]
        if kind not in self.per_unit:
            rate = self.FIRST_FILES_S if kind == "files" else self.FIRST_MIB_S * (1 << 20)
            return self.FLOOR_S + work / rate
        return max(self.FLOOR_S, self.FACTOR * max(self.longest, self.per_unit[kind] * work))

    def policy(self) -> str:
        """The rule in words, for the run's notes."""
        if self.fixed is not None:
            return f"the run is ended after {self.fixed:g} s without progress (--timeout)"
        return (f"the run is ended after {self.seconds():.0f} s without progress until a phase ends, then after "
                f"{self.FACTOR:g}x the slowest phase (at least {self.FLOOR_S:.0f} s; --timeout S fixes it)")

    def why(self) -> str:
        """Where the value in use comes from, for the message when it fires."""
        if self.fixed is not None:
            return "--timeout"
        if self.per_unit:
            return f"{self.FACTOR:g}x the slowest phase so far, at least {self.FLOOR_S:.0f} s; --timeout S sets it"
        return "no phase had ended yet; --timeout S sets it"

    def record(self) -> dict[str, Any]:
        return {"policy": "fixed" if self.fixed is not None else "measured", "limit_s": round(self.seconds(), 3),
                "floor_s": self.FLOOR_S, "factor": self.FACTOR, "longest_phase_s": round(self.longest, 3)}


def _work(case: dict[str, Any], kind: str, ranks: int) -> float:
    """Bytes (data) or files (metadata) of one phase of the case; 0 when the case does not say."""
    try:
        return float(md_files(case, ranks) if kind == "files" else case_bytes(case, ranks))
    except (KeyError, TypeError, ValueError):
        return 0.0


def check_timeout(value: float | None) -> None:
    """--timeout: a positive, finite number of seconds (nan compares false with everything)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ParioError(f"--timeout {value:g}: give a positive number of seconds")


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
    if rep >= 0:
        phase = f"{op} rep {rep}"
    elif 0 <= c < len(cases) and cases[c].get("workload") == "metadata":
        phase = f"{op} (untimed, around the timed phases)"
    else:
        phase = f"{op} (the untimed write that prepares a read-only case)"
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


def full_disk(directory: str) -> str | None:
    """'0 bytes free in DIR' (or no free inodes) when the file system of directory is full."""
    room = disk_room(directory)
    if room is None:
        return None
    free, inodes = room
    if free < (1 << 20):
        return f"{human(free)} free in {directory}"
    if inodes == 0:
        return f"no free inodes in {directory}"
    return None


def run(argv: list[str], *, env: dict[str, str], timeout: float | Limit, status_dir: str | None,
        ranks: int, cases: list[dict[str, Any]], observer: RunObserver, sink=None, stderr=None,
        pidfile: str | None = None, directory: str | None = None) -> Outcome:
    """Run the launcher; stdout progress lines go to `observer`, other output to observer.output unless
    `sink.line(text)` takes it (the hint reports of settings.effective.OutputCollector). `stderr`:
    where the launcher's own stderr goes (a file object; default: ours). `pidfile`: where to write
    the launcher's "PID START" (the engine's orphan guard reads it). `directory`: the scratch
    directory, watched for a full disk while a write makes no progress."""
    limit = timeout if isinstance(timeout, Limit) else Limit(timeout, cases, ranks)
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=stderr, env=env,
                                start_new_session=True, text=True, bufsize=1, errors="replace")
    except OSError as exc:
        raise ParioError(f"cannot start {argv[0]}: {exc.strerror}; {INSTALL_MPI}", exit_code=3) from None
    started = time.time()
    if pidfile:
        write_pidfile(pidfile, proc.pid)
    lines: queue.Queue[str | None] = queue.Queue()

    def reader():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    outcome = Outcome(returncode=0)
    shm: set[str] = set()
    last = time.monotonic()
    inphase = Sampler(status_dir, ranks, cases)
    try:
        while True:
            sampled = inphase.sample()
            if sampled is not None:  # the bytes of a long phase so far: shown, not a progress line
                observer.event(sampled)
            try:
                line = lines.get(timeout=POLL_S)
            except queue.Empty:
                idle = time.monotonic() - last
                stalled = _full_disk_stall(limit, directory, idle)
                if idle > limit.seconds() or stalled:
                    who = stuck_ranks(status_dir, ranks, cases) if status_dir else "no status files"
                    if stalled:
                        outcome.watchdog = (f"No space left on device: {stalled}, and no progress for "
                                            f"{idle:.0f} s in a {limit.op} phase: {who}; the run was ended")
                    else:
                        disk = full_disk(directory) if directory else None
                        outcome.watchdog = (f"no progress for {limit.seconds():.0f} s ({limit.why()}): {who}"
                                            + (f"; the file system is full ({disk})" if disk else "")
                                            + "; the run was ended")
                    shm |= session.shm_files(proc.pid, started)
                    session.terminate(proc)
                    break
                continue
            if line is None:
                break
            if line.startswith(PROGRESS):
                try:
                    ev = json.loads(line[len(PROGRESS):])
                except ValueError:
                    continue
                now = time.monotonic()
                limit.event(ev, now)
                inphase.event(ev, now)
                if ev.get("event") == "start":  # MPI is up: its shared-memory segments exist now
                    shm |= session.shm_files(proc.pid, started)
                outcome.events.append(ev)
                observer.event(ev)
                if sink is not None:
                    sink.event(ev)
                last = now
            elif sink is None or not sink.line(line):
                observer.output(line)
        session.exit_status(proc)
        if not outcome.watchdog:
            # ranks that outlive their launcher (killed with SIGKILL) would go on writing
            outcome.stragglers = len(session.outliving(proc.pid))
            session.terminate(proc)
        outcome.removed = session.remove_leftovers(proc.pid, shm)
        outcome.returncode = proc.wait()
    except BaseException:
        shm |= session.shm_files(proc.pid, started)
        session.terminate(proc)
        session.remove_leftovers(proc.pid, shm)
        proc.wait()
        raise
    finally:
        outcome.limit_s = limit.seconds()
        observer.close()
    return outcome


def _full_disk_stall(limit: Limit, directory: str | None, idle: float) -> str | None:
    """A write (or create) phase without progress while its file system is full: some libraries
    never return from it (ADIOS2's aggregation, collective HDF5 over ROMIO), the others fail at
    once; either way it cannot finish."""
    if directory is None or idle < FULL_DISK_STALL_S or limit.op not in ("write", "create"):
        return None
    return full_disk(directory)


def write_pidfile(path: str, pid: int) -> None:
    start = session.start_time(pid)
    try:
        with open(path + ".tmp", "w", encoding="ascii") as fh:
            fh.write(f"{pid} {start if start is not None else 0}\n")
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # the orphan guard then cannot end the launch: the watchdog still can
