"""tune.importance: a knob is named as having mattered only when the trials' medians show it beyond
chance (a permutation test), a knob under another (cb_nodes under collective calls) is not named for
the split it inherits, a knob that only went along with a named one is not named, and a flat
landscape names none. (PED-ANOVA, used before, gave every knob a share: 0.12-0.17 each, here.)"""
import random

from pario.model.tuning import Trial
from pario.tune import importance
from pario.tune.prior import guesses
from pario.tune.search import Budget, Search
from test_tune_search import Synthetic, session, space

SEEDS = range(5)


def searched(rule, seed, spread=0.15, trials=30):
    sp = space()
    s = session(sp, seed=seed)
    Search(sp, Synthetic(sp, rule, spread=spread, seed=seed), s, Budget(trials=trials)).run(guesses(sp))
    return sp, s


def test_the_one_knob_that_matters_is_named_and_the_knobs_under_it_are_not():
    def rule(eff):
        return 1000.0 if eff.get("collective") == "false" else 500.0
    inert = 0
    for seed in SEEDS:
        sp, s = searched(rule, seed)
        named, how = importance.importance(s, sp)
        assert "collective" in named and 0.5 < named["collective"] <= 1.0, (seed, named)
        assert named["collective"] == max(named.values())
        assert "permutation test" in how
        inert += len(named) - 1
    assert inert <= 1   # at 5% per knob and step, about one in 20 sessions names a knob by chance


def test_a_flat_landscape_names_no_knob():
    named_any = 0
    for seed in SEEDS:
        sp, s = searched(lambda eff: 500.0, seed, spread=0.3)
        named, how = importance.importance(s, sp)
        named_any += bool(named)
        if not named:
            assert how.startswith("none stands out from the noise")
    assert named_any <= 1


def test_a_knob_that_only_went_along_with_a_named_one_is_not_named():
    """strategy and collective changed together in every trial: the data cannot tell them apart, so
    only one of them is named (the other adds nothing within its strata)."""
    sp = space()
    s = session(sp)
    rng = random.Random(4)
    for n in range(16):
        fast = n % 2 == 0
        settings = {"strategy": "fpp", "collective": "false"} if fast else {}
        rates = [(900.0 if fast else 300.0) * (1 + 0.1 * rng.uniform(-1, 1)) for _ in range(3)]
        s.trials.append(Trial(n, settings, "complete" if n else "control", rates, sorted(rates)[1]))
    named, _ = importance.importance(s, sp)
    assert len(named) == 1 and set(named) <= {"strategy", "collective"} and named[next(iter(named))] > 0.9


def test_too_few_trials_are_not_judged():
    sp = space()
    s = session(sp)
    for n in range(5):
        s.trials.append(Trial(n, {"collective": "false"} if n % 2 else {}, "complete", [100.0 * (n + 1)],
                              100.0 * (n + 1)))
    named, how = importance.importance(s, sp)
    assert named == {} and how.startswith("not judged: 5 measured trial(s)")
