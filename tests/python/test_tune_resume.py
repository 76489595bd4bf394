"""tune --resume after an interruption (tune.ledger._take_up, tune.search), against the synthetic
evaluator of test_tune_search: a trial cut off while it ran is taken up in its role with the
repetitions it had finished (a guess in its batch, a TPE proposal past its first rung, a control,
the final control and the confirmation), runs only what it still needs, and costs the budget one
trial; one whose role is unknown is left with a note and not counted."""
import pytest

from pario.model.tuning import TuningSession
from pario.tune.ledger import LEFT
from pario.tune.prior import guesses
from pario.tune.search import Budget, Search
from test_tune_search import Synthetic, best_is_romio_independent, session, space

TRIALS = 20


def aggregation_wins(eff):
    """A landscape where TPE's proposals (not the guesses) find the best: some pass their first rung."""
    return 2000.0 if eff["strategy"] == "shared+agg" else 300.0


def interrupted(stop_after, rate=best_is_romio_independent):
    """A session cut off at its launch number `stop_after` (0-based), as stored, and the launches it ran."""
    sp = space()
    s = session(sp)
    ev = Synthetic(sp, rate, stop_after=stop_after)
    with pytest.raises(KeyboardInterrupt):
        Search(sp, ev, s, Budget(trials=TRIALS)).run(guesses(sp))
    return TuningSession.from_dict(s.to_dict()), ev.launches


def resumed(stored, rate=best_is_romio_independent):
    sp = space()
    ev = Synthetic(sp, rate, seed=2)
    Search(sp, ev, stored, Budget(trials=TRIALS)).run(guesses(sp))
    return sp, ev.launches


def uninterrupted(rate=best_is_romio_independent):
    """The same session run to its end: its trials and its launches (where to cut it)."""
    sp = space()
    s = session(sp)
    ev = Synthetic(sp, rate)
    Search(sp, ev, s, Budget(trials=TRIALS)).run(guesses(sp))
    return s, sp, ev.launches


def the_books_hold(stored, sp):
    assert stored.status == "done"
    assert not [t for t in stored.trials if t.state in ("interrupted", "running")], \
        [(t.number, t.state, t.role, t.note) for t in stored.trials]
    assert stored.counted() == len(stored.trials) <= TRIALS
    measured = [sp.canonical({**sp.default(), **t.settings}) for t in stored.trials
                if t.state not in ("control", "confirm")]
    assert len(measured) == len(set(measured)), "a configuration measured by two trials"


def test_a_guess_cut_off_in_its_batch_is_taken_up_with_its_repetitions():
    # launch 0: the first control, 1: the first guess (3 repetitions), 2: the second guess (cut off)
    stored, before = interrupted(stop_after=2)
    first = stored.trials[1]
    assert first.role == "guess" and first.state == "running" and len(first.rates) == 3
    kept, runs = list(first.rates), list(first.runs)
    sp, after = resumed(stored)
    the_books_hold(stored, sp)
    again = stored.trials[1]
    assert again.rates[:3] == kept and again.runs[: len(runs)] == runs and again.state == "complete"
    key = sp.canonical({**sp.default(), **again.settings})
    # not measured again from scratch: only race rounds (racing.STEP repetitions) may add to it
    assert [reps for k, reps, role in after if k == key and role == "trial"] in ([], [3], [3, 3], [3, 3, 3])
    assert stored.trials[2].role == "guess" and stored.trials[2].rates   # the one cut off: run in its place


def test_a_proposal_cut_off_after_its_first_rung_runs_only_the_rest():
    full, sp, launches = uninterrupted(aggregation_wins)
    proposal = next(t for t in full.trials if t.role == "proposal" and t.state == "complete")
    key = sp.canonical({**sp.default(), **proposal.settings})
    second = [i for i, (k, reps, role) in enumerate(launches) if k == key and role == "trial"][1]
    stored, _ = interrupted(stop_after=second, rate=aggregation_wins)
    cut = stored.trials[proposal.number]
    assert cut.role == "proposal" and len(cut.rates) == 1
    one = list(cut.rates)
    sp2, after = resumed(stored, aggregation_wins)
    the_books_hold(stored, sp2)
    again = stored.trials[proposal.number]
    assert again.rates[:1] == one and again.state == "complete" and len(again.rates) >= 3
    assert [reps for k, reps, role in after if k == key and role == "trial"][0] == 2   # the rest of its rung


@pytest.mark.parametrize("which", ["periodic", "final"])
def test_a_control_cut_off_is_run_in_its_record(which):
    _, _, launches = uninterrupted()
    controls = [i for i, (_, _, role) in enumerate(launches) if role == "control"]
    assert len(controls) >= 3
    stored, _ = interrupted(stop_after=controls[1] if which == "periodic" else controls[-1])
    cut = [t for t in stored.trials if t.state == "running"]
    assert cut and cut[0].role == "control" and not cut[0].rates
    numbers = {t.number for t in cut}   # the final control and the confirmation beside it
    sp2, _ = resumed(stored)
    the_books_hold(stored, sp2)
    assert all(stored.trials[n].state in ("control", "confirm") and stored.trials[n].rates for n in numbers)


def test_a_trial_of_unknown_role_is_left_with_a_note_and_not_counted():
    stored, _ = interrupted(stop_after=2)
    first = stored.trials[1]
    first.role = ""   # a session stored before roles were kept
    settings = dict(first.settings)
    sp, _ = resumed(stored)
    left = stored.trials[1]
    assert left.state == "interrupted" and left.note.startswith(LEFT) and "not counted" in left.note
    assert "role could not be recovered" in left.note and len(left.rates) == 3
    assert stored.counted() == len(stored.trials) - 1 <= TRIALS
    assert any(t.settings == settings and t.state == "complete" for t in stored.trials[2:])   # measured anew


def test_a_challenge_race_cut_off_goes_on_after_resume():
    # a proposal within noise of the incumbent races it; cut off in the race's second round, --resume
    # finishes the race (it was 'complete' and told: before, it never challenged again)
    full, sp, launches = uninterrupted(aggregation_wins)
    raced = next(t for t in full.trials if t.role == "proposal" and "after a race" in t.note)
    key = sp.canonical({**sp.default(), **raced.settings})
    own = [i for i, (k, _, role) in enumerate(launches) if k == key and role == "trial"]
    assert len(own) >= 4   # its two rungs, then race rounds
    stored, _ = interrupted(stop_after=own[3], rate=aggregation_wins)
    cut = stored.trials[raced.number]
    assert cut.state == "complete" and stored.challenger == raced.number and stored.incumbent != raced.number
    had = len(cut.rates)
    sp2, after = resumed(stored, aggregation_wins)
    the_books_hold(stored, sp2)
    assert [k for k, _, role in after if k == key and role == "trial"], "the race did not go on"
    again = stored.trials[raced.number]
    assert len(again.rates) > had and stored.challenger is None
    assert stored.incumbent == raced.number or stored.trials[stored.incumbent].state == "complete"
