"""What a tuning search keeps (tune.search decides, this keeps the books): the session's trials, the
configurations measured once each (the cache, by canonical form), what optuna was told, each
launch's measurement recorded into its trial (and the benchmark's trace), knobs a run showed not
applied, and the budget's room.

`_launch_many` is the one step that runs launches: one after the other here, one Slurm job array
in tune.jobs.BatchedSearch. The search decides which launches a round needs before it runs them
and judges them after, so `pario tune` and `pario tune --submit` take the same decisions."""
from __future__ import annotations

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
from pario.tune.space import Config, Space
from pario.tune.trials import Evaluator, Measured

optuna.logging.set_verbosity(optuna.logging.WARNING)

Launch = tuple[Trial, Config, int, str]   # the trial, its configuration, repetitions, role (trial|control|confirm)
LEFT = "interrupted: not used"   # the note of an interrupted trial that a resumed search did not take up


@dataclass
class Budget:
    trials: int = 30                 # trial records, controls and the confirmation included
    seconds: float | None = None
    rungs: tuple[int, ...] = (1, 3)  # counted repetitions a trial has after each rung
    control_every: int = 8

    def to_dict(self) -> dict[str, Any]:
        return {"trials": self.trials, "seconds": self.seconds, "rungs": list(self.rungs),
                "control_every": self.control_every}


# What a race does, as it happens (Search._race): ("start", its entrants, "") before its first round,
# ("round", the contenders that just ran, ""),
# ("failed", [the contender whose launch failed], its note) and ("outcome", [winner, *the others], how),
# the outcome only after a race that ran at least one round. The live log prints these.
RaceListener = Callable[[str, list[Trial], str], None]


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Ledger:
    def __init__(self, space: Space, evaluator: Evaluator, session: TuningSession, budget: Budget,
                 listener: Callable[[TuningSession, Trial | None], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, sampler: optuna.samplers.BaseSampler | None = None,
                 on_race: RaceListener | None = None):
        self.space, self.ev, self.session, self.budget = space, evaluator, session, budget
        self.listener = listener or (lambda s, t: None)
        self.on_race = on_race or (lambda event, trials, how: None)
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
        # --resume: trials interrupted while they ran, taken up in their role with what they measured: TPE's
        # proposals past their first rung (Search finishes them), controls and confirmations that measured
        # nothing (`_begin` reuses the record); interrupted guesses go to `pending`
        self.resumed: list[Trial] = []
        self.spares: list[Trial] = []
        self.challenger: Trial | None = None   # a complete trial whose race with the incumbent was cut off
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
        """A finished trial told to optuna without an ask (a guess, a resumed session's trial)."""
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
            if trial.state == "running":   # stopped without the CLI's handler (killed): as interrupted
                trial.state, trial.note = "interrupted", trial.note or "interrupted"
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
        racing = self.trial(self.session.challenger)   # (a guess's race: its batch is judged again)
        if racing is not None and racing.state == "complete" and racing.number != self.session.incumbent:
            self.challenger = racing
        self.session.challenger = None
        for trial in self.session.trials:
            # a submitted trial's job went on without us: BatchedSearch._pickup takes up what it measured
            if trial.state == "interrupted" and not trial.job and not trial.note.startswith(LEFT):
                self._take_up(trial)

    def _take_up(self, trial: Trial) -> None:
        """An interrupted trial back in the role it had, with the repetitions it finished (its launch
        that was cut off measured nothing); one whose role cannot be recovered safely is left, not
        counted in the budget (TuningSession.counted), and its note says why."""
        key = self.space.canonical(self.config_of(trial))
        done = len(trial.rates)
        other = self.cache.get(key)
        measured = other is not None and other is not trial and trial.role not in ("control", "confirm")
        if any(self.space.knob(k) is None for k in trial.settings) or measured:
            self._leave(trial, "another trial measured its configuration, or the space no longer has it")
        elif trial.role == "guess":   # (running again: counted once, as it was before the interruption)
            trial.state, trial.note = "running", ""
            self.pending[key] = trial   # Search._screen runs the repetitions it still needs, in its batch
            if done:
                self.cache[key] = trial
        elif trial.role == "proposal" and done:
            trial.state, trial.note = "running", ""
            self.resumed.append(trial)   # not pruned at its first rung: it was running the next
            self.cache[key] = trial
        elif trial.role in ("control", "confirm") and not done:
            self.spares.append(trial)
        elif trial.role == "proposal":
            self._leave(trial, "a proposal interrupted before its first repetition ended; TPE proposes anew")
        else:
            self._leave(trial, f"its role could not be recovered, so its {done} repetition(s) are not used; its "
                               "configuration is measured anew if the search comes to it")

    def _leave(self, trial: Trial, why: str) -> None:
        trial.state, trial.note = "interrupted", f"{LEFT} ({why}); not counted in the budget"

    # -- the budget ------------------------------------------------------------------------------

    def _room(self, reserve: int, ahead: int = 0) -> bool:
        """Room for one more trial, keeping `reserve` for the end; `ahead`: launches already planned in
        this round and not run yet (a time budget counts them at the mean duration)."""
        if self.session.counted() + reserve >= self.budget.trials:
            return False
        return self._time_for(1 + reserve + ahead)

    def _since_control(self) -> int:
        n = 0
        for t in reversed(self.session.trials):
            if t.state == "control":
                break
            n += 1
        return n

    def _time_for(self, launches: int) -> bool:
        """Room in a time budget for `launches` more launches at their mean duration (none: True)."""
        if self.budget.seconds is None:
            return True
        per = sum(self.durations) / len(self.durations) if self.durations else 0.0
        return self.clock() - self.started + per * launches <= self.budget.seconds

    # -- launches --------------------------------------------------------------------------------

    def _new(self, settings: dict[str, str], state: str, note: str = "", role: str = "") -> Trial:
        trial = Trial(number=len(self.session.trials), settings=settings, state=state, started=_now(), note=note,
                      role=role)
        self.session.trials.append(trial)
        return trial

    def _begin(self, settings: dict[str, str], role: str, note: str = "") -> Trial:
        """A control's or a confirmation's record: the one an interruption cut off before it measured
        (--resume), else a new one."""
        spare = next((t for t in self.spares if t.role == role and t.settings == settings), None)
        if spare is None:
            return self._new(settings, "running", note, role)
        self.spares.remove(spare)
        spare.state, spare.note, spare.started = "running", note, _now()
        return spare

    def _unused(self) -> None:
        """The end of a resumed search: interrupted records nothing took up say so."""
        for trial in self.spares:
            self._leave(trial, f"an interrupted {trial.role} that no later {trial.role} replaced")
        for trial in self.resumed:   # the search stopped before it took them up (the default failed)
            self._leave(trial, "a proposal the search stopped before taking up")
        self.spares.clear()
        self.resumed.clear()

    def _launch_many(self, launches: list[Launch], stage: str) -> list[Measured]:
        """Run a round's launches, each recorded into its trial in order; one after the other here
        (BatchedSearch: one job array). stage: what the round is for (its jobs say so)."""
        out = []
        for trial, config, reps, role in launches:
            t0 = self.clock()
            m = self.ev.run(config, reps, role)
            self.durations.append(self.clock() - t0)
            out.append(self._record(trial, config, m, role))
        return out

    def _more(self, wants: list[tuple[Trial, int]], stage: str, before: list[Launch] | None = None) -> list[bool]:
        """More repetitions of measured trials, in one round (after the launches `before`); a failed
        launch keeps what its trial had (False)."""
        todo = [(t, n) for t, n in wants if n > 0]
        states = [t.state for t, _ in todo]
        lead = list(before or [])
        measured = self._launch_many(lead + [(t, self.config_of(t), n, "trial") for t, n in todo], stage)
        failed = set()
        for (trial, _), state, m in zip(todo, states, measured[len(lead):]):
            if m.status != "complete" or not m.rates:
                trial.state, trial.note = state, f"a further launch failed: {(m.message or 'no rate')[:200]}"
                failed.add(trial.number)
        return [t.number not in failed for t, _ in wants]

    def _mark(self) -> None:
        self.trace.append((self.evals, self.session.incumbent, len(self.cache)))

    def _record(self, trial: Trial, config: Config, m: Measured, role: str = "trial") -> Measured:
        """What one launch of the trial measured, into the trial (and the session's trace); a control or
        a confirmation that measured takes its state. A trial's configuration counts as measured from
        its first launch on, the default from its first control that measured (the trace's count)."""
        if role == "trial":
            self.cache.setdefault(self.space.canonical(config), trial)
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
            if role == "confirm":   # against the control beside it, as the verdict is (not every control's)
                beside = next((t for t in reversed(self.session.trials) if t.state == "control" and t.rates), None)
                base = noise.median(beside.rates) if beside else base
            trial.ratio = trial.median / base if base and trial.median else None
            self._check_effective(m, config)
            if role in ("control", "confirm"):
                trial.state = role
        self._mark()
        if trial.state == "control":
            self.cache.setdefault(self.space.canonical(self.default), trial)
        self.listener(self.session, trial)
        return m

    def _as_control(self, trial: Trial) -> None:
        """The first control that measured is the default's record: told to optuna (once)."""
        if trial.state == "control" and self.cache.get(self.space.canonical(self.default)) is trial:
            self._told(self.default, trial)
        self.listener(self.session, trial)

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
