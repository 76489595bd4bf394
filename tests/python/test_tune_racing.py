"""tune.racing (pure) and the racing in tune.search: close candidates given more repetitions instead
of the incumbent keeping its place on a tie, a tie at the cap said to be one."""
import random

import pytest

from pario.model.tuning import TuningSession
from pario.tune import racing
from pario.tune.knobs import build
from pario.tune.search import Budget, Search
from pario.tune.space import Context
from pario.tune.trials import Measured

CAPS = frozenset({"collective", "shared", "view", "hints"})


def test_contenders_drop_only_what_is_slower_beyond_the_noise():
    rates = {"a": [100, 101, 99], "b": [50, 51, 49], "c": [60, 140, 95]}
    assert racing.contenders(rates) == ["a", "c"]       # c overlaps a; b is far below
    assert racing.needs_more(rates) == ["a", "c"]
    assert racing.needs_more({"a": [100] * 9, "c": [60, 140, 95] * 3}, cap=9) == []   # both at the cap
    assert racing.needs_more({"a": [100, 101, 99], "b": [50, 51, 49]}) == []   # decided
    assert racing.contenders({"a": [], "b": [3.0]}) == ["b"]


def test_verdict_names_a_tie_at_the_cap():
    assert racing.verdict({"a": [100, 101, 99], "b": [50, 51, 49]}) == ("a", "beyond the noise")
    assert racing.verdict({"a": [90, 120, 100], "b": [95, 110, 85]}) == ("a", "tie at the cap: higher median")
    with pytest.raises(ValueError):
        racing.verdict({})


class Noisy:
    """Rates drawn around a rule's value with +-spread, recorded per launch."""

    def __init__(self, sp, rate, spread, seed):
        self.sp, self.rate, self.spread, self.rng, self.launches = sp, rate, spread, random.Random(seed), []

    def run(self, config, reps, role):
        self.launches.append((self.sp.canonical(config), reps, role))
        base = self.rate(self.sp.effective(config))
        return Measured([base * (1 + self.spread * (2 * self.rng.random() - 1)) for _ in range(reps)])


def romio_independent_a_bit_faster(eff):
    """The first guess (independent, OMPIO) at 1000, the best (independent, ROMIO) at 1500: within
    noise of each other with 3 repetitions at +-45%, 3x and more above the rest."""
    if eff.get("collective") == "false" and eff.get("strategy") == "shared":
        return 1500.0 if eff.get("mca.io") == "romio321" else 1000.0
    return 300.0


def test_a_close_better_candidate_is_raced_not_left_behind():
    sp = build(Context(backend="mpiio", strategy="shared", collective=True, ops=("write",), objective="write",
                       ranks=4, xfer=1 << 20, block=16 << 20, caps=CAPS))
    raced = 0
    for seed in range(6):
        s = TuningSession(id=1, case={}, objective="write", ranks=4, space=sp.values(), seed=seed)
        ev = Noisy(sp, romio_independent_a_bit_faster, spread=0.45, seed=seed)
        search = Search(sp, ev, s, Budget(trials=12))
        search.run([({**sp.default(), "collective": "false"}, "g1"),
                    ({**sp.default(), "collective": "false", "mca.io": "romio321"}, "g2")])
        inc = s.trials[s.incumbent]
        assert inc.settings == {"collective": "false", "mca.io": "romio321"}
        first = s.trials[1]
        assert first.settings == {"collective": "false"} and len(first.rates) <= racing.CAP
        assert 3 <= len(inc.rates) <= racing.CAP
        raced += len(inc.rates) > 3 and len(first.rates) > 3   # both got more repetitions
        # the trace counts configurations (the default and the two guesses) apart from repetitions
        configs_at, reps_at = next((c, e) for e, i, c in search.trace if i == inc.number)
        assert configs_at == 3 and reps_at == 3 + len(first.rates) + len(inc.rates)
    assert raced >= 2   # within noise at 3 repetitions in some seeds: those were raced, not decided on 3
