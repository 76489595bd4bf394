"""The per-operation trace of a profile log (`pario profile --trace`) as bars to draw: one row per
process, one bar per operation, or, past a budget, one bar per run of operations of one kind whose
gaps are shorter than a threshold chosen so that the bars fit the budget (a page of a million
operations then stays small). Pure: no printing, no files.

The threshold is the smallest that fits: every gap longer than it is still shown, so idle time,
stragglers and phases stay visible at any zoom, while bursts of small operations become one bar
that says how many operations and bytes it stands for."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pario.model.errors import ParioError

# What a page can carry and a browser draw: about 90 bytes of JSON and two SVG elements per bar;
# 15,000 bars are about 1.4 MB and draw in seconds (benchmarks/report/RESULTS.md).
DEFAULT_BUDGET = 15_000
NEEDED = ("module", "op", "size", "start", "duration")


@dataclass
class Segment:
    row: int          # index into Timeline.rows
    op: str           # read, write, open, close, seek, sync, stat, other
    module: str       # posix, stdio, mpiio
    start: float      # seconds since the first process started
    end: float
    count: int        # operations this bar stands for
    nbytes: int       # bytes they moved (sizes of reads and writes)


@dataclass
class Timeline:
    rows: list[str]                      # one label per process: "rank 3", "pid 1234"
    segments: list[Segment] = field(default_factory=list)
    events: int = 0                      # events in the log
    dropped: int = 0                     # events the profiler did not keep (its memory bound)
    gap: float | None = None             # gaps up to this many seconds were merged; None: none were
    budget: int = DEFAULT_BUDGET

    @property
    def decimated(self) -> bool:
        return self.gap is not None


Group = tuple[int, str, str]             # (row, module, op)


def _label(proc: dict[str, Any], hosts: int) -> str:
    rank = proc.get("rank")
    label = f"rank {rank}" if isinstance(rank, int) and rank >= 0 else f"pid {proc.get('pid', '?')}"
    return f"{label} ({proc.get('host', '?')})" if hosts > 1 else label


def _events(where: str, trace: Any) -> tuple[list[int], list[Any]]:
    if not isinstance(trace, dict) or not isinstance(trace.get("events"), list):
        raise ParioError(f"{where}: its trace has no event list; give a log written by `pario profile --trace`")
    columns = trace.get("columns") or []
    missing = [c for c in NEEDED if c not in columns]
    if missing:
        raise ParioError(f"{where}: trace columns lack {', '.join(missing)}; give a log written by this pario")
    return [columns.index(c) for c in NEEDED], trace["events"]


def groups_of(job: dict[str, Any]) -> tuple[list[str], dict[Group, list[tuple[float, float, int]]], int, int]:
    """(row labels, (row, module, op) -> [(start, end, bytes)], events, dropped) of a job document."""
    procs = [p for p in job.get("processes", []) if isinstance(p, dict) and p.get("trace") is not None]
    infos = [p.get("process") or {} for p in procs]
    starts = [float(i.get("start") or 0.0) for i in infos]
    t0 = min(starts) if starts else 0.0
    hosts = len({i.get("host") for i in infos})
    rows = [_label(i, hosts) for i in infos]
    groups: dict[Group, list[tuple[float, float, int]]] = {}
    total = dropped = 0
    for row, (proc, info, start) in enumerate(zip(procs, infos, starts)):
        where = f"profile log, process {info.get('pid', row)}"
        (mod_i, op_i, size_i, start_i, dur_i), events = _events(where, proc["trace"])
        dropped += int((proc.get("limits") or {}).get("trace_dropped", 0) or 0)
        base = start - t0
        try:
            for ev in events:
                s = base + float(ev[start_i])
                key = (row, str(ev[mod_i]), str(ev[op_i]))
                bucket = groups.get(key)
                if bucket is None:
                    bucket = groups[key] = []
                size = int(ev[size_i])
                bucket.append((s, s + float(ev[dur_i]), size if size > 0 else 0))
        except (TypeError, ValueError, IndexError):
            raise ParioError(f"{where}: a trace event is malformed ({str(ev)[:60]}); "
                             "give a log written by `pario profile --trace`") from None
        total += len(events)
    return rows, groups, total, dropped


def merge_gap(groups: dict[Group, list[tuple[float, float, int]]], budget: int) -> float | None:
    """The smallest gap threshold that leaves at most `budget` bars, or None when every event fits.
    Sorts each group by start in place."""
    total = sum(len(v) for v in groups.values())
    if total <= budget:
        return None
    gaps: list[float] = []
    for events in groups.values():
        events.sort()
        end = events[0][1]
        for s, e, _ in events[1:]:
            gaps.append(s - end)
            if e > end:
                end = e
    keep = budget - len(groups)        # bars beyond the first one of each group
    if keep <= 0:
        return float("inf")
    gaps.sort(reverse=True)
    # bars = groups + gaps longer than the threshold; at most `keep` gaps are longer than gaps[keep]
    return max(gaps[keep], 0.0)


def decimate(groups: dict[Group, list[tuple[float, float, int]]], budget: int = DEFAULT_BUDGET
             ) -> tuple[list[Segment], float | None]:
    """Bars of at most `budget` (or one per group when there are more groups than that), and the
    gap threshold used (None: one bar per event)."""
    gap = merge_gap(groups, budget)
    segments: list[Segment] = []
    for (row, module, op), events in sorted(groups.items()):
        if gap is None:
            segments += [Segment(row, op, module, s, e, 1, n) for s, e, n in events]
            continue
        s0, e0, n0 = events[0]
        cur = Segment(row, op, module, s0, e0, 1, n0)
        for s, e, n in events[1:]:
            if s - cur.end <= gap:
                cur.count += 1
                cur.nbytes += n
                if e > cur.end:
                    cur.end = e
            else:
                segments.append(cur)
                cur = Segment(row, op, module, s, e, 1, n)
        segments.append(cur)
    return segments, gap


def timeline(job: dict[str, Any], budget: int = DEFAULT_BUDGET) -> Timeline | None:
    """The job's trace as bars, or None when no process kept a trace."""
    if not any(isinstance(p, dict) and p.get("trace") is not None for p in job.get("processes", [])):
        return None
    rows, groups, total, dropped = groups_of(job)
    segments, gap = decimate(groups, budget)
    return Timeline(rows=rows, segments=segments, events=total, dropped=dropped, gap=gap, budget=budget)


@dataclass
class Event:
    t: float          # seconds since the first process started
    who: str          # "rank 3", "pid 1234"
    rank: int | None
    module: str
    op: str
    path: str
    offset: int | None
    size: int
    duration: float


def _names(procs: list[Any]) -> dict[str, str]:
    """Record id -> path over the given processes' records."""
    return {str(r.get("id")): str(r.get("path")) for p in procs if isinstance(p, dict)
            for m in (p.get("modules") or {}).values() if isinstance(m, dict)
            for r in m.get("records") or [] if isinstance(r, dict)}


def events(job: dict[str, Any], *, file: str | None = None, rank: int | None = None, t_from: float | None = None,
           t_to: float | None = None) -> tuple[list[Event], int]:
    """The traced operations in time order, filtered: `file` a part of the path, `rank` an MPI rank,
    [t_from, t_to] seconds since the first process started. Returns them and how many the log has."""
    procs = [p for p in job.get("processes", []) if isinstance(p, dict) and p.get("trace") is not None]
    if not procs:
        raise ParioError("this profile log has no trace: record one with `pario profile --trace`")
    infos = [p.get("process") or {} for p in procs]
    t0 = min(float(i.get("start") or 0.0) for i in infos)
    hosts = len({i.get("host") for i in infos})
    out, total = [], 0
    # A file shared by the ranks is reduced into one rank's records at MPI_Finalize, so the other
    # ranks' traces name it by an id only that rank's records resolve: look the ids up job-wide.
    everyone = _names(job.get("processes", []))
    for n, (proc, info) in enumerate(zip(procs, infos)):
        where = f"profile log, process {info.get('pid', n)}"
        trace = proc["trace"]
        _events(where, trace)
        cols = trace["columns"]
        names = {**everyone, **_names([proc])}
        who, base = _label(info, hosts), float(info.get("start") or 0.0) - t0
        proc_rank = info.get("rank") if isinstance(info.get("rank"), int) else None
        total += len(trace["events"])
        if rank is not None and proc_rank != rank:
            continue
        try:
            for ev in trace["events"]:
                e = dict(zip(cols, ev))
                t = base + float(e["start"])
                path = names.get(str(e.get("id")), str(e.get("id")))
                if (file and file not in path) or (t_from is not None and t < t_from) or \
                        (t_to is not None and t > t_to):
                    continue
                offset = int(e["offset"]) if e.get("offset") is not None and int(e["offset"]) >= 0 else None
                out.append(Event(t, who, proc_rank, str(e["module"]), str(e["op"]), path, offset,
                                 max(int(e["size"]), 0), float(e["duration"])))
        except (TypeError, ValueError, KeyError):
            raise ParioError(f"{where}: a trace event is malformed; give a log written by `pario profile --trace`") \
                from None
    out.sort(key=lambda e: e.t)
    return out, total
