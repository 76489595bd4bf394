"""From candidates to ranked findings: what each candidate needs measured, its time at stake, and
the order (costed findings by seconds at stake, then the ones that could not be costed, then
the minor ones). The measuring itself is a callable the conductor passes in (cli/advise.py runs
calibrate.py through it), so this module stays free of launches."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from pario.advise.costs import Coalesce, Measured, Model, Query, Ratio, estimate
from pario.advise.rules.base import Candidate, Plan
from pario.model.findings import Finding
from pario.model.units import seconds as fmt_s

# What a calibration-size measurement of a plan may move per rank: enough calls and bytes to be
# above the timer and the page cache's burstiness, small enough for seconds, not minutes. Bytes go
# up to 1 GiB because the rate of buffered writes depends on how much is written (measured: 512 MiB
# in 1 MiB writes at 1.3 GB/s while the job's 1 GB met dirty-page throttling at 150-250 MB/s).
CAL_BYTES = 1 << 30
CAL_CALLS = 1 << 16
CAL_FILES = 4096   # files a metadata side creates
PAIRS = 3   # before/after alternated this many times, one repetition each: drift hits both sides


def scaled(opts: dict[str, Any], other: dict[str, Any], factor: float) -> dict[str, Any]:
    """`opts` with its count dimension scaled by factor (blocks stay whole multiples of both sides'
    transfers; segments and files at least 1)."""
    out = dict(opts)
    if factor >= 1:
        return out
    if out.get("workload") == "metadata":
        out["files_per_dir"] = max(1, round(out["files_per_dir"] * factor))
        return out
    if out.get("pattern") == "subarray":   # fewer rows of the rank's block (its calls keep their size)
        dims = [int(d) for d in out["dims"]]
        out["dims"] = [max(1, round(dims[0] * factor)), *dims[1:]]
        return out
    if (out.get("segments") or 1) > 1:
        out["segments"] = max(1, round(out["segments"] * factor))
        return out
    step = math.lcm(int(out.get("transfer") or 8), int(other.get("transfer") or 8))
    if other.get("workload") == "metadata" and other.get("file_size"):
        step = math.lcm(step, int(other["file_size"]) or 8)
    out["block"] = max(step, round(out["block"] * factor / step) * step)
    return out


def side_size(o: dict[str, Any]) -> tuple[int, int]:
    """(bytes, calls) per rank of one side of a plan."""
    if o.get("workload") == "metadata":
        return o["files_per_dir"] * (o.get("file_size") or 0), o["files_per_dir"]
    if o.get("pattern") == "subarray":   # the rank's block of 8-byte elements, in calls of `transfer`
        b = 8 * math.prod(int(d) for d in o["dims"])
        return b, max(1, b // int(o.get("transfer") or (1 << 20 if b % (1 << 20) == 0 else b)))
    b = int(o["block"]) * int(o.get("segments") or 1)
    return b, b // int(o.get("transfer") or 1)


def plan_size(plan: Plan) -> tuple[int, int]:
    """(bytes per rank, calls per rank) of the plan's bigger side."""
    return max(side_size(plan.before), side_size(plan.after))


def _factor(sides: list[dict[str, Any]], cap: tuple[int, int, int] | None = None) -> float:
    """The share of the plan's size measured: under CAL_BYTES, CAL_CALLS and CAL_FILES per rank (or
    `cap`: bytes, calls, files)."""
    nbytes, ncalls, nfiles = cap or (CAL_BYTES, CAL_CALLS, CAL_FILES)
    out = 1.0
    for o in sides:
        b, c = side_size(o)
        most = nfiles if o.get("workload") == "metadata" else ncalls
        out = min([out] + ([nbytes / b] if b else []) + ([most / c] if c else []))
    return out


def plan_key(rule: str, plan: Plan) -> str:
    """The pattern a plan measures, whatever size it is measured at."""
    placed = [plan.ranks, plan.before, plan.after, PAIRS] + ([plan.nodes] if plan.nodes else [])
    digest = hashlib.sha1(json.dumps(placed, sort_keys=True).encode())
    return f"{rule}@{digest.hexdigest()[:10]}"


def plan_query(rule: str, plan: Plan, factor: float | None = None, tag: str = "cal",
               sides_apart: bool = False, cap: tuple[int, int, int] | None = None) -> Query:
    """The plan's cases, scaled, as a query: before and after alternated PAIRS times. factor None:
    the calibration's size; sides_apart: each side scaled on its own (the per-byte cost of each is
    what is used, so the side with few big calls can move more bytes than the one with many small)."""
    if factor is not None:
        fb = fa = factor
    elif sides_apart:
        fb, fa = _factor([plan.before], cap), _factor([plan.after], cap)
    else:
        fb = fa = _factor([plan.before, plan.after], cap)
    before, after = scaled(plan.before, plan.after, fb), scaled(plan.after, plan.before, fa)
    if fb == fa and plan.before.get("workload") != "metadata" and plan.after.get("workload") != "metadata":
        # both sides move the same bytes: scale them with one block
        if "block" in after and (after.get("segments") or 1) == 1 and (before.get("segments") or 1) == 1:
            # a whole number of both sides' transfers (unscaled sides of different transfer sizes, e.g.
            # 27.6 KiB requests vs 28 KiB ones, made a block the engine refused)
            step = math.lcm(int(before.get("transfer") or 8), int(after.get("transfer") or 8))
            before["block"] = after["block"] = max(step, round(int(before["block"]) / step) * step)
    elif fb == fa and plan.before.get("workload") == "metadata":
        after["block"] = int(after["transfer"]) * int(before["files_per_dir"])
    cases: dict[str, dict[str, Any]] = {}
    for k in range(PAIRS):
        cases[f"before.{k}"] = dict(before, reps=1)
        cases[f"after.{k}"] = dict(after, reps=1)
    placed = [plan.ranks, before, after, PAIRS] + ([plan.nodes] if plan.nodes else [])
    digest = hashlib.sha1(json.dumps(placed, sort_keys=True).encode()).hexdigest()[:10]
    return Query.of(f"{rule}@{tag}-{digest}", plan.ranks, cases, why=plan.what, nodes=plan.nodes,
                    pin=plan_key(rule, plan))


def side_time(measured: dict[str, Measured], side: str) -> Measured | None:
    """One side of a plan over its alternated instances: the median instance, with the fastest and
    slowest as lo and hi; an instance of a metadata side sums its phases."""
    inst: dict[str, list[Measured]] = {}
    for key, m in measured.items():
        base = key.split(":", 1)[0]
        if base == side or base.startswith(side + "."):
            inst.setdefault(base, []).append(m)
    if not inst:
        return None
    runs = []
    for parts in inst.values():
        first = parts[0]
        runs.append(Measured(name=side, op="+".join(m.op for m in parts), ranks=first.ranks,
                             bytes=sum(m.bytes for m in parts), calls=sum(m.calls for m in parts),
                             time_s=sum(m.time_s for m in parts), xfer_s=sum(m.xfer_s for m in parts),
                             spread=0.0, reps=1, run_id=first.run_id, kind=first.kind,
                             lo=sum(m.lo for m in parts), hi=sum(m.hi for m in parts)))
    runs.sort(key=lambda m: m.time_s)
    mid = runs[len(runs) // 2]
    lo, hi = min(m.lo for m in runs), max(m.hi for m in runs)
    return Measured(name=side, op=mid.op, ranks=mid.ranks, bytes=mid.bytes, calls=mid.calls, time_s=mid.time_s,
                    xfer_s=mid.xfer_s, spread=(hi - lo) / mid.time_s if mid.time_s else 0.0, reps=len(runs),
                    run_id=mid.run_id, kind=mid.kind, lo=lo, hi=hi)


def pairs_faster(measured: dict[str, Measured]) -> tuple[int, int] | None:
    """In how many of the alternated pairs (before.k then after.k, run back to back, so that a
    drift of the machine between pairs hits both sides of each) the fix was faster, and of how
    many. None when the measurement has no numbered pairs."""
    inst: dict[str, float] = {}
    for key, m in measured.items():
        base = key.split(":", 1)[0]
        inst[base] = inst.get(base, 0.0) + m.time_s
    ks = ({b[len("before."):] for b in inst if b.startswith("before.")} &
          {b[len("after."):] for b in inst if b.startswith("after.")})
    if not ks:
        return None
    return sum(inst[f"after.{k}"] < inst[f"before.{k}"] for k in ks), len(ks)


def replay_verdict(got: dict[str, Measured], pair: dict[str, Measured]) -> tuple[str, str]:
    """("faster" | "slower" | "inconclusive", said) of a fix's replay: faster or slower in every
    alternated pair (without pairs: the fix's slowest repetition beat the pattern's fastest, or its
    fastest lost to the pattern's slowest, as --verify judges), else inconclusive: the pairs' ratios
    straddle 1. A fix whose true gain is near the noise would come out faster in some fresh
    measurements and not in others; the two-sided verdict keeps such a finding shown, said to be
    unproven, in both (issue 25: netCDF-4's default chunks, 0.83x by the median, advised in one
    score and not in the next). But only while the medians, which price the finding (Ratio), say
    the fix is faster: a replay no faster by the median has no gain to show, however its pairs
    fell, and is "checked, not advised" (adios2-per-rank: faster in 1 of 3 pairs, 2.35x the time by
    the median, had been shown as a possible fix with 0 s at stake)."""
    before, after = pair["before"], pair["after"]
    ratio = after.time_s / before.time_s if before.time_s else 1.0
    median = f"{ratio:.2f}x the time by the median"
    counts = pairs_faster(got)
    if counts is not None:
        faster, n = counts
        verdict = "faster" if faster == n else "slower" if faster == 0 or ratio >= 1 else "inconclusive"
        return verdict, f"faster in {faster} of {n} alternated pairs, {median}"
    verdict = "faster" if after.hi < before.lo else "slower" if after.lo >= before.hi or ratio >= 1 \
        else "inconclusive"
    return verdict, f"the fix {after.lo:.3g}-{after.hi:.3g} s against {before.lo:.3g}-{before.hi:.3g} s, {median}"


@dataclass
class Ranked:
    findings: list[Finding] = field(default_factory=list)     # costed, most expensive first
    not_costed: list[Finding] = field(default_factory=list)
    minor: list[Finding] = field(default_factory=list)        # costed, below what matters for this job
    no_gain: list[dict[str, str]] = field(default_factory=list)   # measured here: the fix would not help
    plans: dict[int, Plan] = field(default_factory=dict)      # id(finding) -> its plan (for --verify)
    unproven: set[int] = field(default_factory=set)           # id(finding): its replay here was inconclusive


Measure = Callable[[list[Query]], dict[str, dict[str, Measured]]]


def rank(cands: list[Candidate], model: Model | None, measure: Measure | None, run_time: float | None,
         io_time: float, cap: tuple[int, int, int] | None = None) -> Ranked:
    """Estimate each candidate (measuring what Ratio costs need through `measure`, when given),
    drop what was measured to gain nothing, keep one stance per file, and order the rest."""
    # Ratio costs need their plan measured; Coalesce costs use the measured better pattern when
    # there is a plan to measure (else the calibration's fit)
    floor = max(1e-4, 0.01 * (run_time or io_time or 0))
    # a fix can save at most the time the log shows in what it changes: below what matters for this
    # job, whatever a measurement said, the finding is minor; it is not measured (nor vetoed by a
    # measurement within the noise of a machine: the same log, the same findings)
    bounded = {id(c) for c in cands if isinstance(c.cost, Ratio) and c.cost.log_s < floor}
    queries = {id(c): plan_query(c.rule, c.plan, sides_apart=isinstance(c.cost, Coalesce), cap=cap) for c in cands
               if isinstance(c.cost, (Ratio, Coalesce)) and c.plan is not None and id(c) not in bounded}
    measured: dict[str, dict[str, Measured]] = measure(list(queries.values())) if measure and queries else {}
    out = Ranked()
    scored: list[tuple[Candidate, Finding, float | None, str]] = []
    for c in cands:
        pair, got = None, {}
        if id(c) in queries:
            got = measured.get(queries[id(c)].key) or {}
            pair = {side: m for side in ("before", "after") if (m := side_time(got, side)) is not None}
        seconds, how = estimate(c.cost, model, pair)
        if id(c) in bounded and isinstance(c.cost, Ratio):
            seconds = c.cost.log_s
            how = (f"at most the log's {fmt_s(seconds)} in what the fix changes ({c.cost.what}; not measured: "
                   "under 1% of the run whatever the fix saves)")
        why = getattr(measured, "why", {}).get(queries[id(c)].key) if id(c) in queries else None
        if seconds is None and why:
            how = f"not costed: {why}"
        f = Finding(rule=c.rule, title=c.title, evidence=c.evidence, fix=c.fix, seconds_at_stake=seconds,
                    estimate=how, confidence=c.confidence)
        if c.veto and isinstance(c.cost, Ratio) and pair and len(pair) == 2 and seconds is not None:
            verdict, said = replay_verdict(got, pair)
            if verdict == "slower":   # measured here, slower every time: not advised
                out.no_gain.append({"rule": c.rule, "title": c.title,
                                    "why": f"measured here, the fix was no faster ({said}): {how}"})
                continue
            if verdict == "inconclusive":   # shown, with the measurement that does not prove it
                f.estimate = f"{how}; inconclusive here: {said}, within this system's noise"
                f.confidence = "low"
                out.unproven.add(id(f))
        scored.append((c, f, seconds, how))
    # one stance per file: the costlier one stays
    stance: dict[str, tuple[float, int]] = {}
    for i, (c, _, sec, _) in enumerate(scored):
        if c.stance:
            best = stance.get(c.stance[0])
            if best is None or (sec or 0) > best[0]:
                stance[c.stance[0]] = (sec or 0, i)
    for i, (c, f, sec, _) in enumerate(scored):
        if c.stance and stance[c.stance[0]][1] != i and scored[stance[c.stance[0]][1]][0].stance != c.stance:
            out.no_gain.append({"rule": c.rule, "title": c.title,
                                "why": "the other stance on this file costs more (advice takes one, never both)"})
            continue
        if c.plan is not None:
            out.plans[id(f)] = c.plan
        if sec is None:
            out.not_costed.append(f)
        elif sec < floor:
            out.minor.append(f)
        else:
            out.findings.append(f)
    out.findings.sort(key=lambda f: -(f.seconds_at_stake or 0))
    out.minor.sort(key=lambda f: -(f.seconds_at_stake or 0))
    return out
