"""What advice may measure, where, and where it is kept.

- Only on the system the job ran on (systems.py): a log from elsewhere is never costed or vetoed
  with this machine's measurements.
- Once per system: the model and each pattern, once measured, are kept in the system's
  calibration (under the pattern's key, whatever size it was measured at), and later advice reads
  them there instead of measuring again: the same log gets the same findings.
- Unasked, little: without --calibrate or --verify, at most AUTO_SECONDS and AUTO_BYTES written
  in all, said before it starts. Patterns are measured at AUTO_CAP per rank in a deterministic
  order, and the budget counts the kept ones too, so a pattern left out for lack of budget is left
  out every time (uncosted, with the command that measures it) instead of appearing on the
  second run. A case that cannot run leaves its finding uncosted; the others are measured."""
from __future__ import annotations

import math
import os
import shlex
import statistics
import sys
from dataclasses import dataclass
from typing import Any, Callable

from pario.advise import calibrate, systems
from pario.advise.advisor import side_size
from pario.advise.calibrate import Measurements
from pario.advise.costs import FALSE_ALARM, Model, Query, model_of, model_query, t_quantile
from pario.model.units import human, seconds

AUTO_SECONDS = 8.0    # of measuring: reading the log and starting pario take the rest of the ~10 s
AUTO_BYTES = 1 << 30
AUTO_CAP = (16 << 20, 1 << 14, 512)   # per rank and side: bytes, calls, files of a pattern measured unasked
LAUNCH_S = 2.0                         # starting the engine under mpirun, per launch (a busy machine)
# Repetitions of the rank-noise measurement (one launch, ~0.3 s and 320 MiB written at 4 ranks).
# Each repetition's spread is kept; the largest of them is no bound (a job of equal ranks beats the
# largest of n with chance 1/(n+1): 1 in 11, seen as false "rank 0 slower" findings).
NOISE_REPS = 10
# How often a job of equal ranks, on the system the noise was measured on, may be called slow:
# costs.FALSE_ALARM, chosen before looking at any case, not fitted to one. noise_bound() is the
# spread that such a job passes this rarely.
SPREAD_FLOOR = 1e-3   # a spread below the timer's resolution: its log stays finite


def noise_bound(spreads: list[float], false_alarm: float = FALSE_ALARM) -> float | None:
    """The spread a job of equal ranks passes with chance `false_alarm`, from the spreads of
    repetitions measured the same way: the upper prediction bound of a log-normal fitted to them
    (mean and standard deviation of the logs, Student's t for the few repetitions:
    mu + t(1 - a, n - 1) * sd * sqrt(1 + 1/n)). Spreads are ratios that vary by factors, hence the
    logs. None with fewer than 3 repetitions."""
    logs = [math.log(max(x, SPREAD_FLOOR)) for x in spreads]
    if len(logs) < 3:
        return None
    n = len(logs)
    mu, sd = statistics.fmean(logs), statistics.stdev(logs)
    return math.exp(mu + t_quantile(1 - false_alarm, n - 1) * sd * math.sqrt(1 + 1 / n))


@dataclass
class Budget:
    seconds: float | None      # None: no bound (--calibrate)
    nbytes: int | None
    spent_s: float = 0.0
    spent_b: int = 0

    def take(self, sec: float | None, nbytes: int) -> bool:
        """Count a measurement against the budget; False (and nothing counted) when it does not fit."""
        if self.seconds is not None and sec is not None and self.spent_s + sec > self.seconds:
            return False
        if self.nbytes is not None and self.spent_b + nbytes > self.nbytes:
            return False
        self.spent_s += sec or 0.0
        self.spent_b += nbytes
        return True

    def said(self) -> str:
        return (f"at most {self.seconds:g} s and {human(self.nbytes)} written" if self.seconds and self.nbytes
                else "as long as it takes")


def query_cost(q: Query, model: Model | None, cpus: int) -> tuple[float | None, int]:
    """(seconds, bytes written) of running a query, predicted from the model; seconds None without one."""
    total_s: float | None = 0.0 if model is not None else None
    written = 0
    for o in q.options().values():
        per_rank, calls = side_size(o)
        reps = int(o.get("reps") or 1)
        ops = o.get("ops") or []
        if o.get("workload") == "metadata" or "write" in ops:
            written += per_rank * q.ranks * reps
        if total_s is None or model is None:
            continue
        if o.get("workload") == "metadata":
            t = calls * sum(model.md.get(op, 0.0) for op in ops)
        else:
            op = "write" if "write" in ops else "read"
            line = model.line(o.get("backend") or "posix", op)
            t = calls * line.call(int(o.get("transfer") or 8)) if line else 0.0
            if o.get("fsync") and model.fsync_s:
                t += model.fsync_s
            if o.get("fsync_per_write") and model.fsync_s:
                t += calls * model.fsync_s
        total_s += t * reps * max(1.0, q.ranks / max(1, cpus))
    return (None if total_s is None else total_s + LAUNCH_S), written


class Measurer:
    """The measurements of one job's advice: from the calibration of its system, else measured
    here when the job ran here, within the budget."""

    def __init__(self, cal: systems.Calibration | None, can_measure: bool, why_not: str, *, store: Any,
                 mpi: Callable[[], Any], where: Callable[[], calibrate.Where], observer: Any, budget: Budget,
                 force: bool, kind: str = calibrate.KIND, cap: tuple[int, int, int] | None = AUTO_CAP,
                 timeout: float | None = None):
        self.cal, self.can_measure, self.why_not = cal, can_measure, why_not
        self.store, self._mpi, self._where, self.observer = store, mpi, where, observer
        self.budget, self.force, self.kind, self.cap, self.timeout = budget, force, kind, cap, timeout
        self.notes: list[str] = []
        self.model_: Model | None = None
        self.told = False

    # ---- the model ----
    def model(self) -> tuple[Model | None, str]:
        if self.cal is not None and self.cal.model and not self.force:
            m = model_of(self.cal.model)
            m.where = self.cal.describe()
            self.model_ = m
            return m, f"{self.cal.describe()}: {m.describe()}"
        if not self.can_measure:
            return None, self.why_not or "nothing measured"
        q = model_query(quick=not self.force)
        cost = query_cost(q, None, os.cpu_count() or 1)
        self.budget.take(cost[0], cost[1])   # the model comes first: always fits
        self._tell([q])
        got = calibrate.run([q], self._where(), self.store, self.observer, mpi=self._mpi(), kind=self.kind,
                            command="pario " + shlex.join(sys.argv[1:]), timeout=self.timeout)
        cases = got.get(q.key)
        if not cases:
            return None, f"no calibration: {got.why.get(q.key, 'the calibration gave no figures')}"
        cal = self._calibration()
        cal.model, cal.dirty = dict(cases), True
        self._save()
        m = model_of(cases)
        m.where = cal.describe()
        self.model_ = m
        return m, f"measured now, {cal.describe()}: {m.describe()}"

    # ---- patterns ----
    def measure(self, queries: list[Query]) -> Measurements:
        out = Measurements()
        todo: list[Query] = []
        cpus = os.cpu_count() or 1
        for q in queries:
            kept = self.cal.measured.get(q.pin) if self.cal is not None and not self.force else None
            cost = query_cost(q, self.model_, cpus)
            fits = self.budget.take(*cost)   # kept ones count too: the same log measures the same every time
            if kept:
                out[q.key] = dict(kept)
            elif not self.can_measure:
                out.why[q.key] = self.why_not or "nothing measured"
            elif not fits:
                sec = f"about {seconds(cost[0])} and " if cost[0] is not None else ""
                out.why[q.key] = (f"measuring it would take {sec}{human(cost[1])} written, past what advice "
                                  f"measures unasked ({self.budget.said()}): pario advise --calibrate LOG "
                                  "measures it")
            else:
                todo.append(q)
        if not todo:
            return out
        found = {} if self.force else calibrate.lookup(todo, self.store, self._where())
        run = [q for q in todo if q.key not in found]
        if run:
            self._tell(run)
            got = calibrate.run(run, self._where(), self.store, self.observer, mpi=self._mpi(), kind=self.kind,
                                command="pario " + shlex.join(sys.argv[1:]), timeout=self.timeout)
            found.update(got)
            out.why.update(got.why)
        cal = self._calibration()
        for q in todo:
            if q.key in found:
                out[q.key] = found[q.key]
                if self.kind == calibrate.KIND:   # --verify's full-size runs are not the calibration's
                    cal.measured[q.pin] = dict(found[q.key])
                    cal.dirty = True
        self._save()
        return out

    def rank_noise(self, ranks: int) -> tuple[float | None, str]:
        """The spread of `ranks` ranks' times beyond which a job moving the same bytes is slower
        than noise explains on the job's system: noise_bound() of NOISE_REPS repetitions of a file
        each, 8 MiB in 1 MiB writes (kept like any pattern). (None, why) when it is not known."""
        if ranks < 2:
            return None, "one rank"
        case = {"backend": "posix", "strategy": "fpp", "transfer": 1 << 20, "block": 8 << 20, "ops": ["write"],
                "reps": NOISE_REPS}
        # its own key: a calibration kept before each repetition's spread was (only the largest) is measured again
        q = Query.of(f"rank-spreads@{ranks}x{NOISE_REPS}", ranks, {"same": case},
                     why=f"how much {ranks} ranks moving the same bytes differ here")
        got = self.measure([q])
        m = (got.get(q.key) or {}).get("same")
        if m is None or not m.rank_spreads:
            return None, got.why.get(q.key, "the ranks' spread was not measured")
        bound = noise_bound(m.rank_spreads)
        lo, hi = min(m.rank_spreads), max(m.rank_spreads)
        said = (f"{ranks} ranks writing the same 8 MiB differ by {100 * lo:.0f}-{100 * hi:.0f}% here over "
                f"{len(m.rank_spreads)} repetitions")
        if bound is None:
            return None, f"{said}: too few to bound"
        said += (f"; equal ranks pass {100 * bound:.0f}% about 1 time in {round(1 / FALSE_ALARM)} (a log-normal "
                 "fitted to them)")
        if bound >= ranks:   # (slowest - fastest) / mean of `ranks` times is at most `ranks`
            said += f", more than {ranks} ranks' times can differ: no rank is called slower from its time alone"
        return bound, said

    # ---- kept ----
    def _calibration(self) -> systems.Calibration:
        if self.cal is None:
            where = self._where()
            ident = systems.here_identity(where.directory, self._mpi())
            self.cal = systems.new(ident, systems.default_path(ident["name"]), where.to_dict())
        return self.cal

    def _save(self) -> None:
        if self.cal is not None and self.cal.dirty:
            why = self.cal.save()
            if why:
                self.notes.append(f"the measurements were not kept ({why}): the next advice measures again")

    def _tell(self, queries: list[Query]) -> None:
        """Say what is measured, and how much at most, before it starts."""
        what = "; ".join(q.why or q.key for q in queries)
        self.observer.note(f"measuring on this system ({self._where().directory}), {self.budget.said()}: {what}")
