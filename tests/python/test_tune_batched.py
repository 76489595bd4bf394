"""tune.jobs.BatchedSearch (`pario tune --submit`) takes tune.search.Search's decisions: the same
rounds of launches (each one Slurm job array), judged the same way. Here a round runs one launch
after the other over a recorded grid (GridReplay: recorded repetitions drawn at random), no Slurm;
tests/python/test_slurm_tune.py runs the arrays on a real Slurm."""
import json
from pathlib import Path

import pytest

from pario.model.tuning import TuningSession
from pario.tune import racing
from pario.tune.jobs import BatchedSearch
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.replay import GridArrays, GridReplay
from pario.tune.search import Budget, Search
from pario.tune.space import Context

GRID = Path(__file__).resolve().parents[2] / "benchmarks" / "tune" / "grid-1m.json"


class Rounds(Search):
    """Search, keeping the rounds it decides (each run one launch after the other)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.rounds = []

    def _launch_many(self, launches, stage):
        self.rounds.append((stage, [(t.number, reps, role) for t, _c, reps, role in launches]))
        return super()._launch_many(launches, stage)


def setup(seed, objective, kind=GridReplay):
    """(space, evaluator over the grid, new session); kind GridArrays: tune --submit's evaluator (a
    round's launches drawn in order, as one job array runs them; no job records to pick up)."""
    doc = json.loads(GRID.read_text())
    space = build(Context.from_dict({**doc["context"], "objective": objective}))
    session = TuningSession(id=None, case=doc["case"], objective=objective, ranks=doc["ranks"],
                            space=space.values(), seed=seed)
    return space, kind(doc, space, seed=seed), session


def decisions(session):
    return session.incumbent, [(t.number, t.state, t.settings, t.rates, t.note) for t in session.trials]


@pytest.mark.parametrize("objective", ["write", "read"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_search_takes_the_decisions_of_search(seed, objective):
    # one rung of 3 and one proposal per array: then even TPE's part is the same, launch for launch
    budget = Budget(trials=24, rungs=(3,))
    space, grid, alone = setup(seed, objective)
    search = Rounds(space, grid, alone, budget)
    search.run(guesses(space))
    space2, ev, batched = setup(seed, objective, GridArrays)
    BatchedSearch(space2, ev, batched, budget, batch_size=1).run(guesses(space2))
    assert decisions(batched) == decisions(alone)
    assert ev.rounds == search.rounds
    stages = [stage for stage, _ in ev.rounds]
    assert stages[0] == "control and guesses" and stages[-1] == "final control and confirmation"
    assert batched.status == "done" and len(batched.trials) <= 24


def test_guess_batches_and_race_rounds_are_one_array_each():
    raced = 0
    for seed in range(3):
        space, grid, alone = setup(seed, "write")
        search = Rounds(space, grid, alone, Budget(trials=30))
        search.run(guesses(space))
        space2, ev, batched = setup(seed, "write", GridArrays)
        BatchedSearch(space2, ev, batched, Budget(trials=30), batch_size=4).run(guesses(space2))
        # up to TPE's proposals (pruned one rung at a time alone, 4 to an array batched), the same rounds
        first = next(i for i, (stage, _) in enumerate(ev.rounds) if stage == "proposals")
        assert ev.rounds[:first] == search.rounds[:first]
        assert search.rounds[first][0] in ("proposals", "control")
        drawn: dict[int, int] = {}   # repetitions per trial in those rounds: the same draws of the grid
        for _, launches in ev.rounds[:first]:
            for n, reps, _ in launches:
                drawn[n] = drawn.get(n, 0) + reps
        for n, reps in drawn.items():
            assert batched.trials[n].settings == alone.trials[n].settings
            assert batched.trials[n].rates[:reps] == alone.trials[n].rates[:reps]
        # the first control shares its array with the first guess batch; each guess batch is one file
        # layout; a race round gives each contender racing.STEP more repetitions (at most the cap)
        stage, launches = ev.rounds[0]
        assert [role for _, _, role in launches][:2] == ["control", "trial"]
        layouts = []
        rates = {}
        for stage, launches in ev.rounds[:first]:
            trials = [batched.trials[n] for n, _, role in launches if role == "trial"]
            if stage in ("control and guesses", "guesses"):
                found = {space2.strategy({**space2.default(), **t.settings}) for t in trials}
                assert len(found) == 1 and found != set(layouts[-1:])
                layouts.append(found.pop())
                rates = {t.number: t.rates[:3] for t in trials}
            elif stage == "race":
                raced += 1
                assert sorted(n for n, _, _ in launches) == sorted(racing.needs_more(rates))
                assert all(reps <= racing.STEP for _, reps, _ in launches)
                for n, reps, _ in launches:
                    rates[n] = batched.trials[n].rates[: len(rates[n]) + reps]
            else:
                assert stage == "challenge", stage
        # TPE's proposals: --batch of them to an array (the control when due in the same array)
        proposals = [[role for _, _, role in launches] for stage, launches in ev.rounds if stage == "proposals"]
        assert proposals and all(1 <= roles.count("trial") <= 4 for roles in proposals)
        assert all(reps == 3 for stage, launches in ev.rounds if stage == "proposals" for _, reps, _ in launches)
        assert ev.rounds[-1][0] == "final control and confirmation"
        assert batched.status == "done" and batched.incumbent is not None and len(batched.trials) <= 30
    assert raced   # the recorded grid has close guesses: they raced


class Jobs:
    """A store's job records, for BatchedSearch._pickup (no Slurm)."""

    def __init__(self, records):
        self.records = records

    def list_jobs(self, **_kw):
        return self.records

    def runs_of_job(self, job_id):
        return []


class Finished(GridArrays):
    """Jobs that ran while nobody followed them: collect gives what they measured."""

    def __init__(self, doc, space, seed, records, measured):
        super().__init__(doc, space, seed=seed)
        self.store, self.measured, self.collected = Jobs(records), measured, []

    def collect(self, job_id):
        self.collected.append(job_id)
        return self.measured[job_id]


def test_resume_picks_up_a_screened_batch_and_a_race_round_then_judges_them():
    stop = {"at": None}

    class Interrupting(GridArrays):
        def run_batch(self, launches, stage):
            if stage == "race":   # the user logged out while the first race round ran
                stop["at"] = [(t.number, config, reps) for t, config, reps, _role in launches]
                raise KeyboardInterrupt
            return super().run_batch(launches, stage)

    space, grid, session = setup(0, "write", Interrupting)
    with pytest.raises(KeyboardInterrupt):
        BatchedSearch(space, grid, session, Budget(trials=30)).run(guesses(space))
    assert stop["at"], "the grid's first guess batch did not race"
    screened = [t for t in session.trials if t.state == "screened"]
    assert {t.number for t in screened} >= {n for n, _, _ in stop["at"]}
    for n, _, _ in stop["at"]:
        session.trials[n].job = f"9_{n}"
    before = {n: list(session.trials[n].rates) for n, _, _ in stop["at"]}
    # what the race round's jobs measured while nobody followed them
    records = [{"id": i, "job_id": f"9_{n}", "doc": {"trial": n, "role": "trial", "stage": "race"}}
               for i, (n, _, _) in enumerate(stop["at"])]
    measured = {f"9_{n}": grid.run(config, reps, "trial") for n, config, reps in stop["at"]}
    stored = TuningSession.from_dict(session.to_dict())
    space2, _, _ = setup(0, "write")
    ev = Finished(json.loads(GRID.read_text()), space2, 0, records, measured)
    BatchedSearch(space2, ev, stored, Budget(trials=30)).run(guesses(space2))
    assert sorted(ev.collected) == sorted(measured)
    for n, _, reps in stop["at"]:   # the race's repetitions were kept, not run again
        assert stored.trials[n].rates[: len(before[n]) + reps] == before[n] + measured[f"9_{n}"].rates
        assert stored.trials[n].state == "complete"
    again = {stage for stage, launches in ev.rounds for n, _, _ in launches if n in before}
    assert again <= {"race", "challenge"}   # no guess of the batch was screened again
    # the batch was judged again from there: its race went on (or ended) and nothing was screened twice
    keys = [space2.canonical({**space2.default(), **t.settings}) for t in stored.trials
            if t.state not in ("control", "confirm")]
    assert len(keys) == len(set(keys))
    assert stored.status == "done" and stored.incumbent is not None
