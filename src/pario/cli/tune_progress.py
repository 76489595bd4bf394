"""`pario tune`'s live log, made of the search's listener calls (tune.search calls the listener after
every launch and when a trial's state changes): a trial's line once, when it is measured; during a
race one line per round (the contenders, their repetitions and medians) and one with its outcome;
a line when the incumbent changes.

A race is not announced by the search: it is read from the calls. A launch that adds repetitions
to a trial already complete is a race's (the rungs and the screening launch trials that are still
running or screened). Its entrants are the screened guesses of the batch (their race) or the
incumbent and its challenger (the challenge of tune.search._challenge), and the rounds follow
racing.needs_more over the entrants' rates, the rule tune.search._race applies: so each round's
contenders, in the order they run, and the end of the race are known, not guessed from timing. A
race the search ends between rounds (its --time budget) is said to end on the higher median, not
beyond the noise; a launch the rule did not predict (another search's order) ends the race as
"stopped" and is shown as a round of its own, so the log stays true even then. (A hook in
tune.search, e.g. a listener call per round, would make this reading unnecessary.)"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TextIO

from pario.model.tuning import Trial, TuningSession
from pario.report.terminal import tune as show
from pario.tune import racing


@dataclass
class _Race:
    entrants: list[int]               # in the search's order: the batch's, or [incumbent, challenger]
    expected: list[int]               # this round's launches still to come, in order
    launched: list[int] = field(default_factory=list)   # this round's launches so far
    screen: bool = False              # the race among a batch of guesses


class LiveLog:
    """The listener's printing half: call it with (session, trial) as the search does."""

    def __init__(self, session: TuningSession, out: TextIO):
        self.out = out
        self.seen = {t.number: len(t.rates) for t in session.trials}   # repetitions at the last call
        self.state = {t.number: t.state for t in session.trials}
        self.snap: dict[int, Trial] = {}      # a running trial as measured so far (its line if it races first)
        self.printed: set[int] = set()
        self.batch: list[int] = []            # guesses screened in the current batch, not judged yet
        self.batch_raced = False
        self.race: _Race | None = None
        self.incumbent = session.incumbent

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def __call__(self, session: TuningSession, trial: Trial | None) -> None:
        if trial is None:
            self._end_race(session, "the budget is spent")
            self._incumbent(session)
            return
        n = trial.number
        grown = len(trial.rates) - self.seen.get(n, 0)
        before = self.state.get(n)
        self.seen[n], self.state[n] = len(trial.rates), trial.state
        further = before in ("complete", "screened") and trial.state == "failed"   # a further launch failed
        if (trial.state == "complete" and grown > 0) or (further and self.race is not None):
            self._race_launch(session, trial, grown)
            return
        self._end_race(session, "the budget is spent")
        if trial.state == "running":
            self.snap[n] = replace(trial, rates=list(trial.rates), state="complete")
            return
        if trial.state == "screened":
            if n not in self.batch:
                if self.batch and all(self.state.get(b) != "screened" for b in self.batch):
                    self.batch = []   # the previous batch was judged
                self.batch.append(n)
                self.batch_raced = False
        elif trial.state == "complete" and n in self.batch:
            self.batch.remove(n)       # the batch is judged: its trials told one by one
        if n not in self.printed:
            self._line(session, trial)
        self._incumbent(session)

    def _line(self, session: TuningSession, trial: Trial) -> None:
        self.printed.add(trial.number)
        self.snap.pop(trial.number, None)
        self._print(show.trial_line(session, trial))

    def _incumbent(self, session: TuningSession) -> None:
        if session.incumbent != self.incumbent:
            self.incumbent = session.incumbent
            inc = next((t for t in session.trials if t.number == session.incumbent), None)
            self._print(show.incumbent_line(session, inc))

    # -- races ----------------------------------------------------------------------------------

    def _trial(self, session: TuningSession, n: int) -> Trial | None:
        return next((t for t in session.trials if t.number == n), None)

    def _rates(self, session: TuningSession, numbers: list[int]) -> dict[int, list[float]]:
        out = {}
        for n in numbers:
            t = self._trial(session, n)
            if t is not None and t.state != "failed":
                out[n] = list(t.rates)
        return out

    def _candidates(self, session: TuningSession) -> list[tuple[list[int], bool]]:
        """The races a launch may open, in the search's order: the batch of guesses (before its
        winner challenges), then the incumbent and its challenger (the batch's winner, or the trial
        just completed)."""
        out = []
        batch = [b for b in self.batch if self.state.get(b) != "failed"]
        if len(batch) >= 2 and not self.batch_raced:
            out.append((batch, True))
        if batch:
            challenger = racing.verdict(self._rates(session, batch))[0]
        else:
            done = [t.number for t in session.trials if t.state == "complete"]
            challenger = done[-1] if done else -1
        inc = session.incumbent
        out.append(([inc, challenger] if inc is not None and inc != challenger else [challenger], False))
        return out

    def _race_launch(self, session: TuningSession, trial: Trial, grown: int) -> None:
        n = trial.number
        race = self.race
        if race is None or not race.expected or race.expected[0] != n:
            if race is not None:
                self._end_race(session, "stopped before the round the rule predicted")
            race = None
            for entrants, screen in self._candidates(session):
                rates = self._rates(session, entrants)
                if n in rates and grown:
                    rates[n] = rates[n][:-grown]           # as the round began
                expected = racing.needs_more(rates)
                if expected and expected[0] == n:          # the race the search runs: its first launch
                    break
                if screen:                                 # decided without a launch: no race of the batch
                    self.batch_raced = True
            else:                                          # not the rule's round: this launch alone
                expected = [n]
            for e in entrants:                             # the challenger's own line first
                if e not in self.printed and e in self.snap:
                    self._line(session, self.snap[e])
            race = self.race = _Race(entrants, list(expected), screen=screen)
        race.expected.pop(0)
        race.launched.append(n)
        if trial.state == "failed":
            self._print(show.race_note(f"#{n}: a further launch failed ({trial.note[:80]}); out of the race"))
            if n in race.entrants:
                race.entrants.remove(n)
        if not race.expected:
            self._round_done(session)

    def _round_done(self, session: TuningSession) -> None:
        race = self.race
        assert race is not None
        shown = [t for t in (self._trial(session, m) for m in race.launched) if t is not None and t.state != "failed"]
        if shown:
            self._print(show.race_round(shown))
        race.launched = []
        rates = self._rates(session, race.entrants)
        race.expected = list(racing.needs_more(rates))
        if not race.expected:
            self._outcome(session, rates, None)

    def _end_race(self, session: TuningSession, why: str) -> None:
        """A race the search ended before the rule would (its budget, or a launch the rule did not
        predict): the round so far, and the leader."""
        race = self.race
        if race is None:
            return
        if race.launched:
            shown = [t for t in (self._trial(session, m) for m in race.launched) if t is not None]
            self._print(show.race_round(shown))
        self._outcome(session, self._rates(session, race.entrants), why)

    def _outcome(self, session: TuningSession, rates: dict[int, list[float]], stopped: str | None) -> None:
        race = self.race
        assert race is not None
        self.race = None
        if race.screen:
            self.batch_raced = True
        if not rates:
            self._print(show.race_note("every entrant failed"))
            return
        number, how = racing.verdict(rates)
        if stopped and how != "beyond the noise":
            how = f"{stopped}: on the higher median, not beyond the noise"
        elif stopped:
            how = f"{how} ({stopped})"
        winner = self._trial(session, number)
        others = [t for t in (self._trial(session, m) for m in rates if m != number) if t is not None]
        if winner is not None:
            self._print(show.race_outcome(winner, others, how))
