"""The search of a tuning session, the same against the engine and against a recorded grid.

- the default runs first (a control), then the knowledge-based guesses (prior.py) run in batches,
  one per file layout: the full rung each, then raced (racing.py); the race's winner challenges the
  incumbent (the default: it must beat it beyond the noise; a trial: within noise they race); every
  guess is told to optuna;
- optuna's TPE sampler proposes the next configurations (define-by-run over the space's tree);
- configurations the stack treats the same (Space.canonical) are measured once: a repeat proposal
  is told the known value without a run, and after 8 repeats in a row an unmeasured configuration is
  enqueued at random (TPE concentrates on a small region of a categorical space);
- short runs first: a trial starts with one counted repetition (rung 0) and optuna's
  SuccessiveHalvingPruner (reduction factor 3) decides whether it earns the rest (rung 1, up to
  `rungs[-1]` repetitions) or is pruned as hopeless;
- noise-aware: a complete trial replaces the incumbent when analysis.noise says it is faster
  beyond the noise (bootstrap interval of the ratio of medians above 1); when the two are within
  noise of each other they race (more repetitions on both, alternating, up to racing.CAP each) and a
  tie at the cap goes to the higher median (the trial's note says so); the default runs as a
  control every `control_every` trials and once more at the end, and the winner is re-run
  (confirm) beside that last control, so a file system that got faster does not make a winner;
- a knob that a run's effective settings show was not applied, and that settings.equivalence did
  not predict, is dropped from the rest of the search and reported.
Every trial is appended to the session when it starts and saved after each launch (`listener`),
so an interruption keeps what was measured and `--resume` goes on from it."""
from __future__ import annotations

import random
import statistics
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution
from optuna.trial import TrialState, create_trial

from pario.analysis import noise
from pario.model.tuning import Dropped, Trial, TuningSession
from pario.settings.equivalence import explain
from pario.tune import racing
from pario.tune.space import Config, Space
from pario.tune.trials import Evaluator, Measured

optuna.logging.set_verbosity(optuna.logging.WARNING)

REPEATS_BEFORE_NUDGE = 8   # proposals in a row already measured: then an unmeasured one is enqueued


@dataclass
class Budget:
    trials: int = 30                 # trial records, controls and the confirmation included
    seconds: float | None = None
    rungs: tuple[int, ...] = (1, 3)  # counted repetitions a trial has after each rung
    control_every: int = 8

    def to_dict(self) -> dict[str, Any]:
        return {"trials": self.trials, "seconds": self.seconds, "rungs": list(self.rungs),
                "control_every": self.control_every}


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Search:
    def __init__(self, space: Space, evaluator: Evaluator, session: TuningSession, budget: Budget,
                 listener: Callable[[TuningSession, Trial | None], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, sampler: optuna.samplers.BaseSampler | None = None):
        self.space, self.ev, self.session, self.budget = space, evaluator, session, budget
        self.listener = listener or (lambda s, t: None)
        self.clock = clock
        self.started = clock()
        self.durations: list[float] = []
        if sampler is None:
            with warnings.catch_warnings():   # group=True is marked experimental in optuna: not news here
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                sampler = optuna.samplers.TPESampler(seed=session.seed, n_startup_trials=4, multivariate=True,
                                                     group=True)
        pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
        self.study = optuna.create_study(direction="maximize", sampler=sampler, pruner=pruner)
        self.cache: dict[str, Trial] = {}
        self.pending: dict[str, Trial] = {}   # screened guesses not judged yet when a session stopped
        self.default = space.default()
        self.evals = 0                   # counted repetitions drawn so far (the benchmark's "evaluations")
        # (repetitions drawn, incumbent trial, configurations measured) after each launch: the benchmark's
        # two counts (a configuration is measured once whatever its repetitions; the default counts)
        self.trace: list[tuple[int, int | None, int]] = []
        self._restore()

    # -- the session's records ------------------------------------------------------------------

    def config_of(self, trial: Trial) -> Config:
        return self.space.effective({**self.default, **trial.settings})

    def _diff(self, config: Config) -> dict[str, str]:
        return {k: v for k, v in self.space.effective(config).items() if self.default.get(k) != v}

    def control_rates(self) -> list[float]:
        return [r for t in self.session.trials if t.state == "control" for r in t.rates]

    def trial(self, number: int | None) -> Trial | None:
        return next((t for t in self.session.trials if t.number == number), None)

    def incumbent_rates(self) -> list[float]:
        inc = self.trial(self.session.incumbent)
        if inc is None:
            return self.control_rates()
        return inc.rates + [r for t in self.session.trials if t.state == "confirm" and t.note == f"#{inc.number}"
                            for r in t.rates]

    def _distributions(self, config: Config) -> dict[str, BaseDistribution]:
        knobs = [self.space.knob(k) for k in config]
        return {k.key: CategoricalDistribution(list(k.values)) for k in knobs if k is not None}

    def _told(self, config: Config, trial: Trial) -> None:
        """A finished trial of an earlier launch of this session, told to optuna (resume)."""
        params = {k: v for k, v in config.items() if self.space.knob(k)}
        state = {"complete": TrialState.COMPLETE, "control": TrialState.COMPLETE,
                 "pruned": TrialState.PRUNED}.get(trial.state, TrialState.FAIL)
        inter = {i + 1: float(statistics.median(trial.rates[: i + 1])) for i in range(len(trial.rates))}
        attrs = {"completed_rung_0": trial.rates[0]} if trial.rates else {}
        self.study.add_trial(create_trial(params=params, distributions=self._distributions(params), state=state,
                                          value=trial.median if state == TrialState.COMPLETE else None,
                                          intermediate_values=inter if state != TrialState.FAIL else {},
                                          system_attrs=attrs))

    def _restore(self) -> None:
        for trial in self.session.trials:
            if trial.state == "running":
                trial.state, trial.note = "interrupted", trial.note or "interrupted: not used"
            config = self.config_of(trial)
            key = self.space.canonical(config)
            if trial.state == "screened" and trial.rates:
                self.pending[key] = trial
                self.cache.setdefault(key, trial)
            if trial.state not in ("complete", "pruned", "control"):
                continue
            if trial.state != "control" or key not in self.cache:
                self._told(config, trial)
            self.cache.setdefault(key, trial)

    # -- the loop -----------------------------------------------------------------------------

    def run(self, guesses: list[tuple[Config, str]]) -> TuningSession:
        self.session.budget = self.budget.to_dict()
        if not any(t.state == "control" for t in self.session.trials):
            self._control()
        for batch in self._batches([config for config, _why in guesses]):
            self._screen(batch)
        for trial in self.pending.values():   # screened before a resume, no longer a guess
            trial.state = "pruned"
            self._told(self.config_of(trial), trial)
        self.pending.clear()
        repeats = 0
        while self._room(reserve=2):
            if self._since_control() >= self.budget.control_every:
                self._control()
                continue
            if self._one():
                repeats = 0
                continue
            repeats += 1
            if repeats % REPEATS_BEFORE_NUDGE == 0 and not self._nudge():
                self.session.notes.append("every configuration of the space was measured")
                break
        self._finish()
        self.session.status = "done"
        self.listener(self.session, None)
        return self.session

    def _nudge(self) -> bool:
        """TPE keeps proposing what was measured: enqueue an unmeasured configuration at random
        (False: there is none left)."""
        left = [c for c in self.space.grid() if self.space.canonical(c) not in self.cache]
        if not left:
            return False
        pick = random.Random(self.session.seed * 7919 + len(self.session.trials)).choice(left)
        self.study.enqueue_trial({k: v for k, v in pick.items() if self.space.knob(k)})
        return True

    def _room(self, reserve: int) -> bool:
        if len(self.session.trials) + reserve >= self.budget.trials:
            return False
        if self.budget.seconds is not None:
            per = sum(self.durations) / len(self.durations) if self.durations else 0.0
            return self.clock() - self.started + per * (1 + reserve) <= self.budget.seconds
        return True

    def _since_control(self) -> int:
        n = 0
        for t in reversed(self.session.trials):
            if t.state == "control":
                break
            n += 1
        return n

    def _new(self, settings: dict[str, str], state: str, note: str = "") -> Trial:
        trial = Trial(number=len(self.session.trials), settings=settings, state=state, started=_now(), note=note)
        self.session.trials.append(trial)
        return trial

    def _launch(self, trial: Trial, config: Config, reps: int, role: str) -> Measured:
        t0 = self.clock()
        m = self.ev.run(config, reps, role)
        self.durations.append(self.clock() - t0)
        return self._record(trial, config, m)

    def _mark(self) -> None:
        self.trace.append((self.evals, self.session.incumbent, len(self.cache)))

    def _record(self, trial: Trial, config: Config, m: Measured) -> Measured:
        """What one launch of the trial measured, into the trial (and the session's trace)."""
        self.evals += len(m.rates)
        if m.run_id is not None:
            trial.runs.append(m.run_id)
            trial.run_id = trial.runs[0]
        if m.status != "complete" or not m.rates:
            trial.state, trial.note = "failed", (m.message or "no rate measured")[:300]
        else:
            trial.rates += m.rates
            trial.median = noise.median(trial.rates)
            base = noise.median(self.control_rates())
            trial.ratio = trial.median / base if base and trial.median else None
            self._check_effective(m, config)
        self._mark()
        self.listener(self.session, trial)
        return m

    def _control(self, role: str = "control") -> Trial:
        trial = self._new({}, "running")
        self._launch(trial, self.default, self.budget.rungs[-1], role)
        if trial.state != "failed":
            trial.state = "control"
            if not self.cache.get(self.space.canonical(self.default)):
                self.cache[self.space.canonical(self.default)] = trial
                self._told(self.default, trial)
        self.listener(self.session, trial)
        return trial

    def _one(self) -> bool:
        """One proposal: False when it was measured already (no run)."""
        ot = self.study.ask()
        config = self.space.suggest(ot)
        key = self.space.canonical(config)
        known = self.cache.get(key)
        if known is not None:
            if known.state == "pruned" or known.median is None:
                self.study.tell(ot, state=TrialState.PRUNED)
            else:
                self.study.tell(ot, known.median)
            return False
        trial = self._new(self._diff(config), "running")
        self.cache[key] = trial
        rungs = self.budget.rungs
        for i, total in enumerate(rungs):
            self._launch(trial, config, total - len(trial.rates), "trial")
            if trial.state == "failed":
                self.study.tell(ot, state=TrialState.FAIL)
                return True
            ot.report(float(trial.median or 0.0), step=len(trial.rates))
            if i + 1 < len(rungs) and ot.should_prune():
                trial.state = "pruned"
                self.study.tell(ot, state=TrialState.PRUNED)
                self.listener(self.session, trial)
                return True
        trial.state = "complete"
        self.study.tell(ot, float(trial.median or 0.0))
        self._challenge(trial)
        self.listener(self.session, trial)
        return True

    # -- screening the guesses, racing the close ones ---------------------------------------------

    def _batches(self, configs: list[Config]) -> list[list[Config]]:
        """The guesses in batches of one file layout each, in order: the layout class is decided
        first (anchors-tuning.md (g)8), and an incumbent is set after each batch, not after all."""
        out: list[list[Config]] = []
        for config in configs:
            if out and self.space.strategy(out[-1][-1]) == self.space.strategy(config):
                out[-1].append(config)
            else:
                out.append([config])
        return out

    def _screen(self, configs: list[Config]) -> None:
        """One batch of guesses: each runs the full rung (not one repetition: a guess is a likely
        configuration, and one draw of a heavy-tailed rate ranks it badly: in the recorded 1 MiB grid
        the best configuration's 8 repetitions include two at a quarter of its median, and a one-
        repetition screen pruned it in 3 of 10 replays); the batch is raced and its winner challenges
        the incumbent. Told to optuna after (TPE learns from them)."""
        batch: list[tuple[Trial, Config]] = []
        for config in configs:
            key = self.space.canonical(config)
            trial = self.pending.pop(key, None)   # begun before an interruption (resume): taken up
            if trial is None:
                if key in self.cache or not self._room(reserve=2):
                    continue
                trial = self._new(self._diff(config), "running")
                self.cache[key] = trial
            # "screened" until the batch is judged: a resumed session takes it up with its repetitions
            ok = self._more(trial, self.budget.rungs[-1] - len(trial.rates))
            trial.state = "screened" if ok else "failed"
            self.listener(self.session, trial)
            if ok:
                batch.append((trial, config))
            else:
                self._told(config, trial)
        for trial, _ in batch:
            trial.state = "complete"
        if batch:
            best, how = self._race([t for t, _ in batch])
            if len(batch) > 1:
                best.note = f"the best of the guesses ({how})"
            self._challenge(best)
        for trial, config in batch:
            self._told(config, trial)
            self.listener(self.session, trial)

    def _more(self, trial: Trial, reps: int) -> bool:
        """More repetitions of a measured trial; a failed launch keeps what it had (False)."""
        if reps <= 0:
            return True
        state = trial.state
        m = self._launch(trial, self.config_of(trial), reps, "trial")
        if m.status != "complete" or not m.rates:
            trial.state, trial.note = state, f"a further launch failed: {(m.message or 'no rate')[:200]}"
            return False
        return True

    def _race(self, entrants: list[Trial]) -> tuple[Trial, str]:
        """More repetitions, alternating, for the entrants within noise of the leader, until one is
        left or each has racing.CAP (racing.py)."""
        out = {t.number: t for t in entrants}
        while self._room(reserve=2):
            more = racing.needs_more({n: t.rates for n, t in out.items()})
            if not more:
                break
            for n in more:
                if not self._more(out[n], min(racing.STEP, racing.CAP - len(out[n].rates))):
                    del out[n]   # its launches fail now: it cannot be the winner
            if not out:
                return entrants[0], "every entrant failed"
        number, how = racing.verdict({n: t.rates for n, t in out.items()})
        return out[number], how

    def _challenge(self, trial: Trial) -> None:
        """A complete trial against the incumbent: it replaces it beyond the noise; within noise of a
        trial incumbent they race (not of the default: a winner must beat it beyond the noise)."""
        inc = self.trial(self.session.incumbent)
        cmp = noise.compare(self.incumbent_rates(), trial.rates)
        how = ""
        if not cmp.faster and inc is not None and cmp.verdict == "within noise":
            best, how = self._race([inc, trial])
            if best is inc:
                return
            cmp = noise.compare(inc.rates, trial.rates)
        if cmp.faster or how:
            self.session.incumbent = trial.number
            trial.note = (f"new incumbent: {cmp.ratio:.2f}x [{cmp.low or 0:.2f}-{cmp.high or 0:.2f}] the last one"
                          + (f" (after a race: {how})" if how else ""))
            self._mark()

    def _check_effective(self, m: Measured, config: Config) -> None:
        """Drop a knob whose setting the run shows was not applied, unless the equivalence rules
        predicted it (then the canonical form already accounts for it)."""
        predicted = {a.key for a in explain(self.space.settings_of(config), self.space.stack_view(config))[1]}
        for row in m.checks:
            key = str(row.get("key") or "")
            knob = self.space.knob(key)
            if knob is None or row.get("status") != "not applied" or key in predicted:
                continue
            self.space.knobs.remove(knob)
            where = f"run {m.run_id}" if m.run_id is not None else "a trial"
            self.session.dropped.append(Dropped(key, f"{row.get('reason') or 'not applied'} (requested "
                                                     f"{row.get('requested')}, in effect {row.get('effective')})",
                                                where))
            self.session.space = self.space.values()

    def _finish(self) -> None:
        """The last control, and the incumbent confirmed beside it."""
        inc = self.trial(self.session.incumbent)
        if len(self.session.trials) + 2 <= self.budget.trials:
            self._control()
            if inc is not None:
                trial = self._new(dict(inc.settings), "running", note=f"#{inc.number}")
                self._launch(trial, self.config_of(inc), self.budget.rungs[-1], "confirm")
                if trial.state != "failed":
                    trial.state = "confirm"
                self.listener(self.session, trial)
