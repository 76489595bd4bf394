"""`--verify`: the job's pattern run here as it is and with the fix, at the job's size (or scaled
down), and the measured gain set beside the estimate. Each finding with a plan gets a
Verification; the runs are stored (kind "advise-verify") so `pario results` shows them and later
advice can reuse them. A `pario buffer` fix is proven with the program itself, run again
unbuffered and under the buffer (rerun.py); when it cannot run here, the replay says so."""
from __future__ import annotations

from typing import Callable

from pario.advise import rerun
from pario.advise.advisor import Ranked, plan_query, plan_size, side_time
from pario.advise.costs import Measured, Query
from pario.advise.job import Job
from pario.advise.rules.base import Plan
from pario.model.errors import ParioError
from pario.model.findings import Finding, Verification
from pario.model.units import human


def factor_for(plan: Plan, scale: float | None, budget_s: float, free_bytes: int | None) -> tuple[float, str]:
    """How much of the job's pattern to run: --scale if given, else all of it unless the job spent
    more than the time budget in it or the bytes do not fit in half the free space."""
    if scale is not None:
        return scale, f"--scale {scale:g}"
    factor, why = 1.0, "the job's full size"
    if plan.log_s > budget_s:
        factor, why = budget_s / plan.log_s, f"scaled to {budget_s:g} s of the job's {plan.log_s:.0f} s (--scale)"
    per_rank, _ = plan_size(plan)
    need = per_rank * plan.ranks
    if free_bytes and need * factor > free_bytes / 2:
        factor = free_bytes / 2 / need
        why = f"scaled to half the free space ({human(free_bytes / 2)})"
    return min(1.0, factor), why


Measure = Callable[[list[Query]], dict[str, dict[str, Measured]]]


def not_faster(ranked: Ranked) -> None:
    """A fix --verify measured no faster (within the noise, or slower) is not advised: the finding
    moves to "checked, not advised" with the figure (2,000 files written once each: 0.90x under
    pario buffer, and the finding had stayed advised)."""
    for group in (ranked.findings, ranked.not_costed, ranked.minor):
        for f in list(group):
            v = f.verification
            if v is not None and v.verdict is not None and v.verdict != "faster":
                group.remove(f)
                ranked.no_gain.append({"rule": f.rule, "title": f.title,
                                       "why": f"--verify measured the fix {v.verdict}: {v.note}"})


def verify(findings: list[Finding], plans: dict[int, Plan], measure: Measure,
           scale: float | None, budget_s: float, free_bytes: int | None, job: Job | None = None) -> list[str]:
    """Run the plans of these findings; fills f.verification. Returns notes for findings left unverified."""
    notes, todo = [], {}
    instead: dict[int, str] = {}   # finding -> why its program was not run (the replay is said to stand in)
    for f in findings:
        plan = plans.get(id(f))
        if f.fix.kind == "buffer" and job is not None:
            try:
                rerun.verify(f, job, rerun.plan(f, job, budget_s))
                continue
            except ParioError as exc:
                why = f"the program was not run again: {exc}"
                if plan is None:
                    notes.append(f"{f.title}: {why}; nothing for pario bench to replay; not verified")
                    continue
                instead[id(f)] = why
        if plan is None:
            notes.append(f"{f.title}: nothing for pario bench to replay (a code or layout change on a file "
                         "system this machine does not have); not verified")
            continue
        factor, why = factor_for(plan, scale, budget_s, free_bytes)
        todo[id(f)] = (f, plan, plan_query(f.rule, plan, factor, tag="verify"), factor, why)
    if not todo:
        return notes
    got = measure([q for _, _, q, _, _ in todo.values()])
    for f, plan, q, _, why in todo.values():
        pair = got.get(q.key) or {}
        before, after = side_time(pair, "before"), side_time(pair, "after")
        if not before or not after:
            notes.append(f"{f.title}: the verification run gave no figures")
            continue
        gain = before.time_s / after.time_s if after.time_s else None
        est = None
        if f.seconds_at_stake is not None and plan.log_s > f.seconds_at_stake:
            est = plan.log_s / (plan.log_s - f.seconds_at_stake)
        note = (f"pario bench's replay of the pattern ({instead[id(f)]}): " if id(f) in instead else "")
        note += (f"{plan.what}; {before.ranks} rank{'s' if before.ranks > 1 else ''}, {why}, median of "
                f"{min(before.reps, after.reps)}: as it is {before.lo:.3g}-{before.hi:.3g} s, with the fix "
                f"{after.lo:.3g}-{after.hi:.3g} s")
        # faster only when the fix's slowest repetition beat the pattern's fastest (as advisor.rank judges)
        verdict = "faster" if after.hi < before.lo else "slower" if after.lo > before.hi else "within the noise"
        if gain is not None:
            note += f"; measured {gain:.2f}x ({verdict})" + (f" against the estimated {est:.2f}x" if est else "")
        f.verification = Verification(before_s=before.time_s, after_s=after.time_s,
                                      runs=sorted({m.run_id for m in (before, after) if m.run_id is not None}),
                                      note=note, verdict=verdict)
    return notes
