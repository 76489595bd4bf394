"""Progress inside a phase: the bytes each rank has moved so far, read from the engine's status
files (schemas/README.md, section 3) and summed over the ranks, as a `bytes` event for the run's
observer. The engine's `phase` line comes only when a phase ends; on a slow file system a phase
can take minutes, and this says how far it is."""
from __future__ import annotations

import os
import time
from typing import Any

from pario.model.case import MD_OPS, case_bytes

SAMPLE_S = 1.0   # the engine rewrites its count at most once a second: reading more often shows nothing new


def read_status(status_dir: str, rank: int) -> tuple[int, str, int, str, int] | None:
    """(case, op, rep, state, bytes) of one rank's status file; None when it is missing, torn or
    from an engine that writes no byte count. The file is untrusted: anything else is None."""
    try:
        with open(os.path.join(status_dir, f"rank.{rank}"), encoding="ascii", errors="replace") as fh:
            parts = fh.read(256).split()
        if len(parts) != 5:
            return None
        moved = int(parts[4])
        return int(parts[0]), parts[1], int(parts[2]), parts[3], moved if moved >= 0 else 0
    except (OSError, ValueError):
        return None


def phase_bytes(status_dir: str, ranks: int, case: int, op: str, rep: int) -> tuple[int, int] | None:
    """(bytes summed over the ranks that are in this phase, how many ranks are); None when none
    is (a rank still showing the previous repetition's phase does not count)."""
    total = seen = 0
    for r in range(ranks):
        st = read_status(status_dir, r)
        if st is None or st[:3] != (case, op, rep):
            continue
        total += st[4]
        seen += 1
    return (total, seen) if seen else None


class Sampler:
    """Reads the status files at most once per SAMPLE_S while a data phase is open and makes a
    `bytes` event: case, op, rep, bytes (so far, all ranks), total (the phase's bytes), rate_mib
    (since the last sample) and since_s (how long the phase has been open)."""

    def __init__(self, status_dir: str | None, ranks: int, cases: list[dict[str, Any]]):
        self.status_dir, self.ranks, self.cases = status_dir, ranks, cases
        self.case: int | None = None
        self.op: str | None = None
        self.rep = 0
        self.opened = self.last_t = 0.0
        self.last_bytes = 0

    def event(self, ev: dict[str, Any], now: float | None = None) -> None:
        """The engine's own lines: an open starts a phase, its phase line ends it."""
        now = time.monotonic() if now is None else now
        kind, case = ev.get("event"), ev.get("case")
        if (kind == "open" and isinstance(case, int) and 0 <= case < len(self.cases) and ev.get("op") not in MD_OPS
                and self.cases[case].get("workload") != "metadata"):
            self.case, self.op, self.opened, self.last_t, self.last_bytes = case, str(ev.get("op")), now, now, 0
            rep = ev.get("rep")
            self.rep = rep if isinstance(rep, int) else 0
        elif kind in ("phase", "done"):
            self.case = None

    def sample(self, now: float | None = None) -> dict[str, Any] | None:
        now = time.monotonic() if now is None else now
        if self.status_dir is None or self.case is None or self.op is None or now - self.last_t < SAMPLE_S:
            return None
        found = phase_bytes(self.status_dir, self.ranks, self.case, self.op, self.rep)
        dt = now - self.last_t
        self.last_t = now
        if found is None:
            return None
        moved, _ = found
        rate = max(0, moved - self.last_bytes) / dt / (1 << 20) if dt > 0 else None
        self.last_bytes = moved
        try:
            total = case_bytes(self.cases[self.case], self.ranks)
        except (KeyError, TypeError, ValueError):
            total = 0
        return {"event": "bytes", "case": self.case, "name": self.cases[self.case].get("name"), "op": self.op,
                "rep": self.rep, "bytes": moved, "total": total, "rate_mib": rate, "since_s": now - self.opened}
