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
so an interruption keeps what was measured and `--resume` goes on from it.

Each step first decides a round of launches, runs them with Ledger._launch_many (ledger.py: one
after the other here, one Slurm job array in tune.jobs.BatchedSearch), then judges them: the first
control with the first guess batch, each guess batch, each race round, the final control with the
confirmation."""
from __future__ import annotations

import random

from optuna.trial import TrialState

from pario.analysis import noise
from pario.model.tuning import Trial, TuningSession
from pario.tune import racing
from pario.tune.ledger import Budget, Launch, Ledger
from pario.tune.space import Config

__all__ = ["Budget", "REPEATS_BEFORE_NUDGE", "Search"]

REPEATS_BEFORE_NUDGE = 8   # proposals in a row already measured: then an unmeasured one is enqueued


class Search(Ledger):
    # -- the loop -----------------------------------------------------------------------------

    def run(self, guesses: list[tuple[Config, str]]) -> TuningSession:
        self.session.budget = self.budget.to_dict()
        self._pickup()
        self._guesses([config for config, _why in guesses])
        failed = [t for t in self.session.trials if t.state == "failed" and not t.settings]
        if failed and not any(t.state == "control" for t in self.session.trials):
            # nothing can be compared with a default that does not run: trials would be spent for nothing
            self.session.note(f"the default configuration failed ({failed[0].note}); no setting can be "
                              "compared with it, so the search stopped: fix the case, then tune it")
        else:
            self._proposals_taken_up()
            self._explore()
            self._finish()
        self._unused()
        self.session.status = "done"
        self.listener(self.session, None)
        return self.session

    def _pickup(self) -> None:
        """--resume: launches that went on while no search followed them (none here: an engine run ends
        with the pario that started it; BatchedSearch's jobs do not)."""

    def _guesses(self, configs: list[Config]) -> None:
        """The first control (with the first batch, in one round), the guesses in batches, then the
        screened trials of an earlier launch of the session that are no longer guesses."""
        batches = self._batches(configs)
        if not any(t.state == "control" for t in self.session.trials):
            self._screen(batches.pop(0) if batches else [], control=True)
        for batch in batches:
            self._screen(batch)
        for trial in list(self.pending.values()):
            config = self.config_of(trial)
            if not trial.rates:   # interrupted before it measured, and not among the guesses now
                self._leave(trial, "a guess interrupted before its first launch ended, no longer a guess here")
            elif len(trial.rates) >= self.budget.rungs[-1]:   # its full rung: judged like a guess
                trial.state = "complete"
                self._told(config, trial)
                self._challenge(trial)
            else:
                trial.state = "pruned"
                self._told(config, trial)
            self.listener(self.session, trial)
        self.pending.clear()

    def _proposals_taken_up(self) -> None:
        """--resume: TPE's proposals interrupted while they ran their next rung (their first did not
        prune them), each with the repetitions it had: it runs only the ones it still needs, and is
        judged as `_one` judges a proposal (its optuna trial is told, not asked again). First the race
        with the incumbent that was cut off, if one was: it goes on from the repetitions both have."""
        if self.challenger is not None:
            self._challenge(self.challenger)
            self.listener(self.session, self.challenger)
            self.challenger = None
        for trial in self.resumed:
            config = self.config_of(trial)
            trial.state = "running"
            need = self.budget.rungs[-1] - len(trial.rates)
            if need > 0:
                self._launch_many([(trial, config, need, "trial")], "proposals")
            if trial.state != "failed":
                trial.state = "complete"
            self._told(config, trial)
            if trial.state == "complete":
                self._challenge(trial)
            self.listener(self.session, trial)
        self.resumed.clear()

    def _explore(self) -> None:
        """TPE's proposals, a control every `control_every` trials, until the budget's end."""
        repeats = 0
        while self._room(reserve=2):
            # a control due when only the final control could follow it is left to that one: two in
            # a row measure the same moment twice and spend a trial of the budget
            if self._since_control() >= self.budget.control_every and self._room(reserve=3):
                self._control()
                continue
            if self._one():
                repeats = 0
                continue
            repeats += 1
            if repeats % REPEATS_BEFORE_NUDGE == 0 and not self._nudge():
                self.session.note("every configuration of the space was measured")
                break

    def _nudge(self) -> bool:
        """TPE keeps proposing what was measured: enqueue an unmeasured configuration at random
        (False: there is none left)."""
        left = [c for c in self.space.grid() if self.space.canonical(c) not in self.cache]
        if not left:
            return False
        pick = random.Random(self.session.seed * 7919 + len(self.session.trials)).choice(left)
        self.study.enqueue_trial({k: v for k, v in pick.items() if self.space.knob(k)})
        return True

    def _control(self) -> Trial:
        trial = self._begin({}, "control")
        self._launch_many([(trial, self.default, self.budget.rungs[-1], "control")], "control")
        self._as_control(trial)
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
        trial = self._new(self._diff(config), "running", role="proposal")
        self.cache[key] = trial
        rungs = self.budget.rungs
        for i, total in enumerate(rungs):
            self._launch_many([(trial, config, total - len(trial.rates), "trial")], "proposals")
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

    def _screen(self, configs: list[Config], control: bool = False) -> None:
        """One batch of guesses, in one round: each runs the full rung (not one repetition: a guess is
        a likely configuration, and one draw of a heavy-tailed rate ranks it badly: in the recorded
        1 MiB grid the best configuration's 8 repetitions include two at a quarter of its median, and
        a one-repetition screen pruned it in 3 of 10 replays); the batch is raced and its winner
        challenges the incumbent. Told to optuna after (TPE learns from them). control: the session's
        first control runs first in the same round (the guesses' ratios are taken against it)."""
        lead: list[Launch] = []
        taken = set(self.cache)
        if control:
            first = self._begin({}, "control")
            lead.append((first, self.default, self.budget.rungs[-1], "control"))
            taken.add(self.space.canonical(self.default))
        plan: list[tuple[Trial, Config]] = []
        for config in configs:
            key = self.space.canonical(config)
            trial = self.pending.pop(key, None)   # begun before an interruption (resume): taken up
            if trial is None:   # (cached when its launch is recorded: the trace counts measured ones)
                if key in taken or not self._room(reserve=2, ahead=len(lead) + len(plan)):
                    continue
                trial = self._new(self._diff(config), "running", role="guess")
            taken.add(key)
            plan.append((trial, config))
        # "screened" until the batch is judged: a resumed session takes it up with its repetitions
        ok = self._more([(t, self.budget.rungs[-1] - len(t.rates)) for t, _ in plan],
                        "control and guesses" if control else "guesses", before=lead)
        if control:
            self._as_control(lead[0][0])
        batch: list[tuple[Trial, Config]] = []
        for (trial, config), measured in zip(plan, ok):
            trial.state = "screened" if measured else "failed"
            self.listener(self.session, trial)
            if measured:
                batch.append((trial, config))
            else:
                self._told(config, trial)
        if batch:
            best, how = self._race([t for t, _ in batch], "race")
            if len(batch) > 1:
                best.note = f"the best of the guesses ({how})"
            self._challenge(best)
        for trial, config in batch:
            trial.state = "complete"
            self._told(config, trial)
            self.listener(self.session, trial)

    def _race(self, entrants: list[Trial], stage: str) -> tuple[Trial, str]:
        """More repetitions for the entrants within noise of the leader, a round at a time (one launch
        each), until one is left or each has racing.CAP (racing.py)."""
        out = {t.number: t for t in entrants}
        rounds, spent = 0, False
        while True:
            more = racing.needs_more({n: t.rates for n, t in out.items()})
            if not more:
                break
            if not self._room(reserve=2):
                spent = True   # the budget ends the race before the rule does
                break
            ran = [out[n] for n in more]
            if not rounds:
                self.on_race("start", list(out.values()), "")
            ok = self._more([(t, min(racing.STEP, racing.CAP - len(t.rates))) for t in ran], stage)
            rounds += 1
            for trial, measured in zip(ran, ok):
                if not measured:
                    del out[trial.number]   # its launches fail now: it cannot be the winner
                    self.on_race("failed", [trial], trial.note)
            self.on_race("round", [t for t, measured in zip(ran, ok) if measured], "")
            if not out:
                self.on_race("outcome", [], "every entrant failed")
                return entrants[0], "every entrant failed"
        number, how = racing.verdict({n: t.rates for n, t in out.items()})
        if spent and how != "beyond the noise":
            how = "the budget is spent: on the higher median, not beyond the noise"
        if rounds:
            self.on_race("outcome", [out[number], *(t for n, t in out.items() if n != number)], how)
        return out[number], how

    def _challenge(self, trial: Trial) -> None:
        """A complete trial against the incumbent: it replaces it beyond the noise; within noise of a
        trial incumbent they race (not of the default: a winner must beat it beyond the noise)."""
        inc = self.trial(self.session.incumbent)
        cmp = noise.compare(self.incumbent_rates(), trial.rates)
        how = ""
        if not cmp.faster and inc is not None and cmp.verdict == "within noise":
            self.session.challenger = trial.number   # saved with each launch: --resume finishes the race
            best, how = self._race([inc, trial], "challenge")
            self.session.challenger = None
            if best is inc:
                return
            cmp = noise.compare(inc.rates, trial.rates)
        if cmp.faster or how:
            self.session.incumbent = trial.number
            trial.note = (f"new incumbent: {cmp.ratio:.2f}x [{cmp.low or 0:.2f}-{cmp.high or 0:.2f}] "
                          + (f"over #{inc.number}" if inc is not None else "over the default")
                          + (f" (after a race: {how})" if how else ""))
            self._mark()

    def _finish(self) -> None:
        """The last control, and the incumbent confirmed beside it (one round)."""
        inc = self.trial(self.session.incumbent)
        # --resume after Ctrl-C cut off the confirmation once the final control had measured: that control
        # is the one beside it, so only the confirmation runs (before, the round needed room for two trials
        # and the winner went unconfirmed)
        spare = inc is not None and any(t.role == "confirm" for t in self.spares) and not any(
            t.role == "control" for t in self.spares)
        if inc is not None and spare and self.session.counted() + 1 <= self.budget.trials:
            confirm = self._begin(dict(inc.settings), "confirm", note=f"#{inc.number}")
            self._launch_many([(confirm, self.config_of(inc), self.budget.rungs[-1], "confirm")], "confirmation")
            self.listener(self.session, confirm)
        elif self.session.counted() + 2 <= self.budget.trials:
            control = self._begin({}, "control")
            launches: list[Launch] = [(control, self.default, self.budget.rungs[-1], "control")]
            if inc is not None:
                confirm = self._begin(dict(inc.settings), "confirm", note=f"#{inc.number}")
                launches.append((confirm, self.config_of(inc), self.budget.rungs[-1], "confirm"))
            self._launch_many(launches, "final control and confirmation")
            self._as_control(control)
            for trial, *_ in launches[1:]:
                self.listener(self.session, trial)
        self._settle()

    def _settle(self) -> None:
        """The winner's gain pools every control of the default against every confirmation of the winner
        (tune.verdict): the repetitions that picked the winner overstate it. While the noise test cannot
        tell the two pools apart, the last control and the confirmation beside it get more repetitions,
        alternating a round at a time, as a race does (up to racing.CAP each; repetitions, not trials: the
        trial budget is spent by now; a time budget still ends it). The race is judged on the pools the
        verdict reads, so it never stops on a pair the verdict then calls within the noise. Also what a
        resumed session does when Ctrl-C cut this race off."""
        last = self.session.trials[-2:]
        if len(last) < 2 or self.session.incumbent is None:
            return
        control, confirm = last
        if (control.state, confirm.state) != ("control", "confirm") or confirm.note != f"#{self.session.incumbent}":
            return
        pair = {control.number: control, confirm.number: confirm}
        before = {control.number: [r for t in self.session.trials[:-2] if t.state == "control" for r in t.rates],
                  confirm.number: [r for t in self.session.trials[:-2] if t.state == "confirm"
                                   and t.note == confirm.note for r in t.rates]}
        rounds = 0
        while True:
            more = racing.needs_more_pooled({n: (before[n], t.rates) for n, t in pair.items()})
            if not more or not self._time_for(len(more)):
                break
            if not rounds:
                self.on_race("start", [confirm, control], "")
            ran = [pair[n] for n in more]
            roles, notes = [t.state for t in ran], [t.note for t in ran]
            self._launch_many([(t, self.config_of(t), min(racing.STEP, racing.CAP - len(t.rates)), role)
                               for t, role in zip(ran, roles)], "confirmation race")
            rounds += 1
            broke = [t for t, role in zip(ran, roles) if t.state != role]
            for trial, role, note in zip(ran, roles, notes):
                if trial.state != role:   # it keeps what it measured (the confirmation its "#N"); the race ends
                    trial.state, trial.note = role, note
            if broke:
                self.on_race("failed", broke, "the confirmation race ends with what both measured")
                break
            self.on_race("round", [confirm, control], "")
        if rounds:
            told = noise.compare(before[control.number] + control.rates,
                                 before[confirm.number] + confirm.rates).verdict != "within noise"
            self.on_race("outcome", [], f"confirmation #{confirm.number} against the default's control "
                         f"#{control.number}: {len(confirm.rates)} and {len(control.rates)} reps; every control "
                         "against every confirmation: "
                         + ("told apart beyond the noise" if told else "not told apart beyond the noise"))
