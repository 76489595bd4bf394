"""The ranks' timing noise that a straggler verdict is judged against (issue 25): a bound with a
false-alarm rate chosen in advance (measure.FALSE_ALARM), fitted to every repetition's spread,
instead of the largest spread of a few repetitions (beaten by equal ranks 1 time in 11)."""
from __future__ import annotations

import math
import random
import sys

from advise_jobs import MIB, ctx_of, found
from advise_support import ROOT

sys.path.insert(0, str(ROOT / "src"))

from pario.advise import systems  # noqa: E402
from pario.advise.costs import Measured  # noqa: E402
from pario.advise.job import Rec  # noqa: E402
from pario.advise.measure import FALSE_ALARM, NOISE_REPS, Budget, Measurer, noise_bound  # noqa: E402

# each repetition's spread of 4 equal ranks in the score run of 17:02 on this VM (load ~5, 2 cores):
# the largest, 2.17 (217%), is what the verdict was judged against before
BUSY = [2.17, 1.87, 2.00, 1.84, 0.14, 1.36, 0.94, 0.34, 1.49, 2.17]


def test_the_bound_misses_equal_ranks_as_rarely_as_chosen():
    """Spreads drawn from one log-normal (equal ranks on one system): a new draw passes the bound
    fitted to NOISE_REPS earlier draws about FALSE_ALARM of the time; it passes their largest about
    1 time in NOISE_REPS + 1, the old verdict's rate."""
    rng = random.Random(25)
    trials, over_bound, over_max = 20000, 0, 0
    for _ in range(trials):
        mu, sd = rng.uniform(-3, 1), rng.uniform(0.1, 1.5)
        reps = [math.exp(rng.gauss(mu, sd)) for _ in range(NOISE_REPS)]
        job = math.exp(rng.gauss(mu, sd))
        bound = noise_bound(reps)
        assert bound is not None
        over_bound += job > bound
        over_max += job > max(reps)
    assert over_bound / trials < 1.5 * FALSE_ALARM, over_bound / trials
    assert over_bound / trials > 0.5 * FALSE_ALARM, "the bound is far more cautious than chosen"
    assert 0.07 < over_max / trials < 0.11


def test_the_bound_is_fitted_to_all_repetitions_not_the_largest():
    assert noise_bound([0.5, 0.6]) is None   # too few to fit
    assert noise_bound(BUSY) > 2 * max(BUSY)
    quiet = [0.05, 0.08, 0.06, 0.1, 0.07, 0.09, 0.05, 0.12, 0.06, 0.08]
    assert max(quiet) < noise_bound(quiet) < 0.3
    assert noise_bound([0.0] * 5 + [0.1] * 5) is not None   # a spread of 0 has no log: floored


def _measurer(tmp_path, spreads: list[float]) -> Measurer:
    """A Measurer reading the noise from a kept calibration (it may not measure: nothing runs)."""
    cal = systems.new({"name": "vm", "hosts": ["vm"]}, tmp_path / "vm.json", {"dir": str(tmp_path)})
    cal.measured[f"rank-spreads@4x{NOISE_REPS}"] = {"same": Measured(
        name="same", op="write", ranks=4, bytes=32 * MIB, calls=8, time_s=0.03, xfer_s=0.02, spread=0.1,
        reps=len(spreads), rank_spreads=spreads)}
    assert cal.save() is None   # the schema takes the spreads, and they come back
    cal = systems.load(tmp_path / "vm.json")

    def never():
        raise AssertionError("a kept noise measurement is read, not measured again")
    return Measurer(cal, False, "not here", store=None, mpi=never, where=never, observer=None,
                    budget=Budget(10.0, 1 << 30), force=False)


def _even(slow: float, fast: float, mean: float) -> Rec:
    """4 ranks writing 4 MiB each of one shared file, the slowest and fastest rank's times as given."""
    return Rec(module="posix", path="/d/shared", rank=-1, nprocs=4, opens=4, writes=64, bytes_written=16 * MIB,
               write_time=4 * mean, slowest_rank=0, fastest_rank=2, slowest_rank_bytes=4 * MIB,
               fastest_rank_bytes=4 * MIB, variance_bytes=0.0, slowest_time=slow, fastest_time=fast,
               max_byte_written=16 * MIB - 1, consec_writes=60)


def test_equal_ranks_past_the_largest_repetition_are_not_called_slow(tmp_path):
    """even-ranks at the 18:16 score: 254% against a largest repetition of 193% gave "rank 0 slower".
    Judged against the bound of all ten repetitions, the same spread is within the noise, and on
    this busy system no spread of 4 ranks can pass it (the reason is said)."""
    noise, why = _measurer(tmp_path, [x * 1.93 / 2.17 for x in BUSY]).rank_noise(4)
    assert noise is not None and noise > 4 and "1 time in 100" in why and "no rank is called slower" in why
    c = ctx_of([_even(0.0254, 0.0, 0.01)], nprocs=4)
    c.rank_noise, c.rank_noise_why = noise, why
    assert "stragglers" not in found(c)


def test_a_slow_rank_is_still_found_where_the_ranks_are_quiet(tmp_path):
    """On a system whose equal ranks differ by 5-12%, a rank twice as slow as the others is beyond
    the noise: the verdict is still given, with the bound it passed."""
    quiet = [0.05, 0.08, 0.06, 0.1, 0.07, 0.09, 0.05, 0.12, 0.06, 0.08]
    noise, why = _measurer(tmp_path, quiet).rank_noise(4)
    assert noise is not None and noise < 0.3 and "no rank is called slower" not in why
    c = ctx_of([_even(0.02, 0.01, 0.0125)], nprocs=4)   # a spread of 80%
    c.rank_noise, c.rank_noise_why = noise, why
    got = found(c)["stragglers"][0]
    assert "rank 0 slower" in got.title and "1 time in 100" in got.evidence.text
