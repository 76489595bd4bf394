"""tune_support's checks, which the real-engine tune tests rely on, can fail: against synthetic
sessions (test_tune_search's evaluator, seeded: one confirmation told apart after a race, one raced to
the cap) they pass in both branches, and a session doctored as a bug would leave it (a verdict not
the noise test's, a race cut short or run on) is refused."""
import copy

import pytest

from pario.tune import racing, verdict
from pario.tune.prior import guesses
from pario.tune.search import Budget, Search
from test_tune_search import CASE, Synthetic, session, space
from tune_support import check_ending, race_went_on_while_undecided, winner_title


def _ended(seed: int) -> dict:
    """test_tune_confirm's 1.15x winner under +-25% noise: seed 3 told apart at 12 each, seed 0 capped."""
    sp = space()
    ev = Synthetic(sp, lambda eff: 575.0 if eff.get("collective") == "false" else 500.0, spread=0.25, seed=seed)
    s = session(sp, seed=seed)
    Search(sp, ev, s, Budget(trials=16)).run(guesses(sp))
    s.winner = verdict.conclude(s, sp, CASE, 4)
    return s.to_dict()


@pytest.mark.parametrize("seed,rounds,said", [(3, 3, "faster"), (0, 4, "within noise")])
def test_both_branches_pass_and_say_which(seed, rounds, said):
    doc = _ended(seed)
    assert check_ending(doc).endswith(f"after {rounds} confirmation race round(s), {said} "
                                      f"({doc['winner']['gain']:.2f}x)")
    assert winner_title(doc).startswith("Winner:" if said == "faster" else "Nowinner")


@pytest.mark.parametrize("seed", [3, 0])
def test_a_verdict_the_rates_do_not_support_is_refused(seed):
    doc = _ended(seed)
    doc["winner"]["verdict"] = "within noise" if doc["winner"]["verdict"] == "faster" else "faster"
    with pytest.raises(AssertionError):
        check_ending(doc)
    kept = copy.deepcopy(_ended(seed))
    kept["incumbent"] = None   # "default kept" with an incumbent's winner record
    with pytest.raises(AssertionError):
        check_ending(kept)


def test_a_race_cut_short_or_run_on_is_refused():
    doc = _ended(3)
    told = doc["trials"][-2:]   # told apart after 3 rounds (12 reps each)
    pair = [told[0]["rates"], told[1]["rates"]]
    before = tuple([r for t in doc["trials"][:-2] if t["state"] == state for r in t["rates"]]
                   for state in ("control", "confirm"))
    assert race_went_on_while_undecided(pair, 3, before) == 3
    with pytest.raises(AssertionError, match="still undecided"):
        race_went_on_while_undecided([r[:9] for r in pair], 3, before)      # stopped a round early
    longer = [r + r[-racing.STEP:] for r in pair]
    with pytest.raises(AssertionError, match="raced on after 12"):
        race_went_on_while_undecided(longer, 3, before)                     # a round after it was decided
    with pytest.raises(AssertionError):
        race_went_on_while_undecided([pair[0], pair[1][:-1]], 3, before)    # the pair's repetitions differ
