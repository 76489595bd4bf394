"""The trace timeline's decimation (analysis.profile.trace): every event drawn while it fits the
budget; past it, runs of one kind merged with the smallest gap threshold that fits, nothing lost
from the counts, every longer gap kept; and a million operations render under the stated page size."""
from __future__ import annotations

import random

import pytest

from pario.analysis.profile.trace import Segment, decimate, merge_gap, timeline
from pario.model.errors import ParioError
from pario.report.html import build, write

COLUMNS = ["module", "op", "id", "offset", "size", "start", "duration", "tid"]
PAGE_LIMIT = 10_000_000      # the "about 10 MB"
# A module without records, as the profiler writes it for an interface the program did not call.
EMPTY_MODULE = {"counters": [], "kinds": [], "ops": [], "fcounters": [], "fkinds": [], "fops": [], "records": []}


def process(rank: int, events: list, start: float = 1000.0, dropped: int = 0) -> dict:
    return {"format": "pario-profile", "version": 1, "kind": "process",
            "process": {"host": "node01", "pid": 100 + rank, "rank": rank, "nprocs": 2, "start": start,
                        "end": start + 60, "reason": "exit", "partial": False},
            "settings": {"trace": True}, "modules": {m: dict(EMPTY_MODULE) for m in ("posix", "stdio", "mpiio")},
            "limits": {"dropped_records": 0, "trace_kept": len(events), "trace_dropped": dropped,
                       "trace_capacity": len(events) + dropped},
            "trace": {"columns": COLUMNS, "events": events}}


def job(*procs) -> dict:
    return {"format": "pario-profile", "version": 1, "kind": "job", "job": {}, "processes": list(procs)}


def ev(op: str, start: float, dur: float, size: int = 0, module: str = "posix") -> list:
    return [module, op, "0" * 16, 0, size, start, dur, 1]


def burst(t0: float, n: int, op: str = "write", size: int = 512, dur: float = 1e-6, step: float = 2e-6) -> list:
    return [ev(op, t0 + k * step, dur, size) for k in range(n)]


def test_every_event_is_a_bar_while_it_fits():
    tl = timeline(job(process(0, burst(0.0, 10) + [ev("open", 5.0, 1e-4)]), process(1, burst(0.5, 5), 1000.25)))
    assert tl is not None and not tl.decimated and tl.gap is None
    assert tl.events == 16 and len(tl.segments) == 16 and all(s.count == 1 for s in tl.segments)
    assert tl.rows == ["rank 0", "rank 1"]
    # times are from the first process's start: rank 1 started 0.25 s later
    first = min(s.start for s in tl.segments if s.row == 1)
    assert first == pytest.approx(0.75)


def test_decimation_keeps_counts_bytes_and_long_gaps():
    # four bursts of 5,000 writes with idle seconds between them, and a few reads
    events = []
    for b in range(4):
        events += burst(10.0 * b, 5000, size=512 + b)
    events += [ev("read", 3.0 + k, 1e-3, 4096) for k in range(3)]
    groups_job = job(process(0, events, dropped=7))
    tl = timeline(groups_job, budget=100)
    assert tl is not None and tl.decimated and tl.dropped == 7
    assert len(tl.segments) <= 100
    writes = [s for s in tl.segments if s.op == "write"]
    assert sum(s.count for s in writes) == 20000
    assert sum(s.nbytes for s in writes) == sum(5000 * (512 + b) for b in range(4))
    assert sum(s.count for s in tl.segments if s.op == "read") == 3
    # the idle gaps of ~10 s between bursts are never filled: each burst is within its own 10 s window
    for s in writes:
        assert int(s.start // 10) == int((s.end - 1e-9) // 10)
    assert tl.gap is not None and tl.gap < 9.0


def test_threshold_is_the_smallest_that_fits():
    rng = random.Random(7)
    t, events = 0.0, []
    for _ in range(5000):
        t += rng.choice([1e-6, 1e-5, 1e-3, 0.1])
        events.append((t, t + 5e-7, 100))
    groups = {(0, "posix", "write"): list(events)}
    gap = merge_gap(groups, 1000)
    segments, used = decimate({(0, "posix", "write"): list(events)}, 1000)
    assert used == gap and len(segments) <= 1000
    # a slightly smaller threshold would not fit: more bars than the budget
    bars = 1 + sum(1 for a, b in zip(events, events[1:]) if b[0] - a[1] > gap * 0.999)
    assert bars > 1000 or gap == 0.0
    assert sum(s.count for s in segments) == 5000


def test_more_groups_than_budget_gives_one_bar_per_group():
    procs = [process(r, burst(0.0, 3)) for r in range(5)]
    tl = timeline(job(*procs), budget=2)
    assert tl is not None and len(tl.segments) == 5 and all(s.count == 3 for s in tl.segments)


def test_no_trace_and_bad_trace():
    plain = process(0, [])
    del plain["trace"]
    assert timeline(job(plain)) is None
    bad = process(0, [["posix", "write", "0" * 16, 0, "x", 0.0, 1.0, 1]])
    with pytest.raises(ParioError, match="malformed"):
        timeline(job(bad))
    odd = process(0, [])
    odd["trace"]["columns"] = ["module", "op"]
    with pytest.raises(ParioError, match="lack"):
        timeline(job(odd))


def million_job() -> dict:
    """A million operations: rank 0 in bursts of small writes with reads between them, rank 1 with
    random gaps (nothing to merge for free: the budget is what limits the page)."""
    rng = random.Random(1)
    bursts: list = []
    for b in range(100):
        bursts += burst(b * 1.0, 4950, "write", 4096, 2e-6, 3e-6)
        bursts += burst(b * 1.0 + 0.5, 50, "read", 1 << 20, 1e-4, 2e-4)
    t, scattered = 0.0, []
    for k in range(500_000):
        t += rng.expovariate(1 / 2e-4)
        scattered.append(ev("write" if k % 3 else "read", t, 5e-5, 4096))
    return job(process(0, bursts), process(1, scattered, start=1000.01))


def test_million_operations_page_stays_under_the_limit(tmp_path):
    doc = million_job()
    assert sum(len(p["trace"]["events"]) for p in doc["processes"]) == 1_000_000
    out = tmp_path / "million.html"
    size = write(build(profiles=[("million.log", doc)]), out)
    assert size < PAGE_LIMIT, f"{size} bytes"
    html = out.read_text()
    assert "1,000,000 operations in the log" in html and "are drawn as one bar" in html
    tl = timeline(doc)
    assert tl is not None and tl.decimated and len(tl.segments) <= tl.budget
    assert sum(s.count for s in tl.segments) == 1_000_000


def test_segment_fields():
    s = Segment(0, "write", "posix", 1.0, 2.0, 3, 4)
    assert (s.end - s.start, s.count, s.nbytes) == (1.0, 3, 4)
