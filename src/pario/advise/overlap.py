"""Every second counted once. Each finding draws its seconds at stake from some of the log's time:
the write, read or metadata time of some files. Findings that draw from the same time (small
writes and misaligned writes of one file) say so, and together they are worth at most that time;
no finding is worth more than the run; the job's total at stake is the sum over groups of findings
sharing time, each group capped by the time it draws from, and the whole capped by the run (a
464.8 + 92.0 + 10.6 ms claim in a 508.7 ms run was three findings on the same writes)."""
from __future__ import annotations

from typing import Any

from pario.advise.advisor import Ranked
from pario.advise.job import Job, Rec, rank_shares
from pario.model.findings import Finding
from pario.model.units import seconds

_ALL = frozenset({"read", "write", "meta"})


def components(rule: str) -> frozenset[str]:
    """The kinds of time a rule's fix saves."""
    if rule.endswith("-writes") or rule in ("lib-small-writes",):
        return frozenset({"write"})
    if rule.endswith("-reads") or rule in ("read-back",):
        return frozenset({"read"})
    if rule in ("reopen", "stat-calls", "seek-per-transfer", "hdf5-independent-metadata"):
        return frozenset({"meta"})
    if rule == "sync-every-write":
        return frozenset({"write", "meta"})
    if rule == "misaligned" or rule == "lib-misaligned-data":
        return frozenset({"write", "read"})
    return _ALL


def _files(f: Finding, job: Job) -> frozenset[str]:
    named = [p for p in f.evidence.files if not p.startswith("... and ")]
    if len(named) < len(f.evidence.files) or not named:
        return frozenset(r.name for r in job.records)   # a list cut short: any of the job's files
    return frozenset(named)


def _time(r: Rec, comps: frozenset[str]) -> float:
    return (r.read_time if "read" in comps else 0.0) + (r.write_time if "write" in comps else 0.0) + \
        (r.meta_time if "meta" in comps else 0.0)


def drawn(job: Job, files: frozenset[str], comps: frozenset[str]) -> float:
    """The busiest rank's seconds in these kinds of time on these files (a reduced record counts its
    per-rank mean, for its node's ranks where its file is node-local; a file reached through MPI-IO
    counts its MPI-IO time, which holds the POSIX calls)."""
    through = {r.path for r in job.records if r.module == "mpiio"}
    per, shared = rank_shares((r for r in job.records if r.name in files and not (r.module == "posix" and r.path in
                                                                                 through)), lambda r: _time(r, comps))
    return (max(per.values()) if per else 0.0) + shared


def settle(ranked: Ranked, job: Job) -> dict[str, Any] | None:
    """Cap each finding at the run, mark the ones that share time, and the job's total at stake
    (None when no finding is costed)."""
    costed = [f for f in ranked.findings + ranked.minor if f.seconds_at_stake is not None]
    for f in costed:
        if job.run_time and (f.seconds_at_stake or 0) > job.run_time:
            f.estimate += f"; capped at the run's {seconds(job.run_time)}"
            f.seconds_at_stake = job.run_time
    if not costed:
        return None
    base = {id(f): (_files(f, job), components(f.rule)) for f in costed}
    groups: list[list[Finding]] = []
    for f in costed:
        fb = base[id(f)]
        joined = [g for g in groups if any(fb[0] & base[id(h)][0] and fb[1] & base[id(h)][1] for h in g)]
        merged = [f] + [h for g in joined for h in g]
        groups = [g for g in groups if g not in joined] + [merged]
    total = 0.0
    for g in groups:
        if len(g) == 1:
            total += g[0].seconds_at_stake or 0
            continue
        files = frozenset().union(*(base[id(f)][0] for f in g))
        comps = frozenset().union(*(base[id(f)][1] for f in g))
        cap = drawn(job, files, comps)
        left = cap if cap > 0 else sum(f.seconds_at_stake or 0 for f in g)
        g.sort(key=lambda f: -(f.seconds_at_stake or 0))
        first = g[0]
        for f in g:
            alone = f.seconds_at_stake or 0
            counted = min(alone, max(0.0, left))
            left -= counted
            if f is first:
                f.estimate += (f"; the same {'/'.join(sorted(comps))} time as "
                               + ", ".join(f"'{h.title}'" for h in g[1:]) + ", counted here")
            else:
                f.seconds_at_stake = counted
                f.estimate += (f"; {seconds(alone)} by itself, of the same time as '{first.title}': "
                               f"{seconds(counted)} more once that is fixed (every second counted once)")
            total += counted
    # a finding worth less once counted once may now be minor: the order and the split follow
    floor = max(1e-4, 0.01 * (job.run_time or 0))
    both = ranked.findings + ranked.minor
    ranked.findings = sorted((f for f in both if (f.seconds_at_stake or 0) >= floor),
                             key=lambda f: -(f.seconds_at_stake or 0))
    ranked.minor = sorted((f for f in both if (f.seconds_at_stake or 0) < floor),
                          key=lambda f: -(f.seconds_at_stake or 0))
    capped = job.run_time is not None and total > job.run_time
    total = min(total, job.run_time) if job.run_time else total
    how = ("the findings' seconds, those that share the log's time counted once" +
           (f", capped at the run's {seconds(job.run_time)}" if capped and job.run_time else ""))
    return {"seconds": total, "how": how}
