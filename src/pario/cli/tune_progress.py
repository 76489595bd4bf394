"""`pario tune`'s live log: a trial's line once, when it is measured (the search's listener calls);
during a race one line per round (the contenders that just ran, their repetitions and medians) and
one with its outcome, as the search reports them (tune.search._race's on_race events); a line when
the incumbent changes."""
from __future__ import annotations

from typing import TextIO

from pario.model.tuning import Trial, TuningSession
from pario.report.terminal import tune as show


class LiveLog:
    """Call it with (session, trial) as the search's listener, and give its `race` method to the
    search as `on_race`."""

    def __init__(self, session: TuningSession, out: TextIO):
        self.session, self.out = session, out
        self.printed: set[int] = set()
        self.incumbent = session.incumbent

    def _print(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def __call__(self, session: TuningSession, trial: Trial | None) -> None:
        if trial is not None and trial.state != "running" and trial.number not in self.printed:
            self._line(trial)
        self._incumbent(session)

    def race(self, event: str, trials: list[Trial], how: str) -> None:
        if event == "failed":
            for t in trials:
                self._print(show.race_note(f"#{t.number}: a further launch failed ({how[:80]}); out of the race"))
        elif event == "start":
            for t in trials:   # a challenger races as soon as it is complete, before its own line came
                if t.number not in self.printed:
                    self._line(t)
        elif event == "round":
            if trials:
                self._print(show.race_round(trials))
        elif event == "outcome":
            self._print(show.race_outcome(trials[0], trials[1:], how) if trials else show.race_note(how))

    def _line(self, trial: Trial) -> None:
        self.printed.add(trial.number)
        self._print(show.trial_line(self.session, trial))

    def _incumbent(self, session: TuningSession) -> None:
        if session.incumbent != self.incumbent:
            self.incumbent = session.incumbent
            inc = next((t for t in session.trials if t.number == session.incumbent), None)
            self._print(show.incumbent_line(session, inc))
