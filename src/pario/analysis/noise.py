"""Is one set of repeated measurements faster than another, beyond the run-to-run noise? Pure.

The one test behind every "faster" pario prints: `pario bench`'s "Fastest ... here" footer,
`pario results compare`, and the tuner's incumbent (issue 12). A difference is claimed only
when the bootstrap interval of the ratio of medians, median(b) / median(a), excludes 1.

Method: percentile bootstrap. Each side is resampled with replacement `resamples` times, the
ratio of the two resampled medians is taken each time, and the interval runs from the
(1 - level) / 2 to the (1 + level) / 2 quantile of those ratios. The random generator is seeded,
so the same figures always give the same verdict. Medians, because the first repetition of a
run is often several times slower than the rest (warm-up) and one such value must not decide.

What it means for pario's usual 3 repetitions: with n = 3 on both sides, each resampled median
is the smallest value with probability 7/27 and the largest with 7/27 too, so the 95% interval
is exactly [min(b) / max(a), max(b) / min(a)]: a difference is claimed only when the min-max
ranges do not overlap. With 5 or more repetitions the extremes weigh less and the interval
narrows. Below `MIN_SAMPLES` on either side no verdict is given: two values say nothing about
the spread.
"""
from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

MIN_SAMPLES = 3
LEVEL = 0.95
RESAMPLES = 4000
_SEED = 20261124  # fixed: a verdict must not change between two looks at the same figures

FASTER, SLOWER, WITHIN, UNKNOWN = "b faster", "b slower", "within noise", "too few repetitions"


@dataclass(frozen=True)
class Verdict:
    """How b compares with a. ratio = median(b) / median(a); [low, high] its interval."""
    outcome: str                 # FASTER | SLOWER | WITHIN | UNKNOWN
    ratio: float | None
    low: float | None
    high: float | None
    level: float
    n_a: int
    n_b: int
    method: str = "bootstrap interval of the ratio of medians"

    @property
    def differs(self) -> bool:
        return self.outcome in (FASTER, SLOWER)

    def interval(self) -> str:
        """'[0.81-1.20]' or '' when there is none."""
        if self.low is None or self.high is None:
            return ""
        return f"[{self.low:.2f}-{self.high:.2f}]"

    def to_dict(self) -> dict:
        return {"outcome": self.outcome, "ratio": self.ratio, "low": self.low, "high": self.high,
                "level": self.level, "n_a": self.n_a, "n_b": self.n_b, "method": self.method}


def _quantile(sorted_values: list[float], q: float) -> float:
    """The q-quantile of sorted values, by linear interpolation between order statistics."""
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def differ(a: Sequence[float], b: Sequence[float], *, level: float = LEVEL, resamples: int = RESAMPLES,
           min_samples: int = MIN_SAMPLES, seed: int = _SEED) -> Verdict:
    """Whether b is faster or slower than a beyond the noise (higher is faster: rates)."""
    a = [float(x) for x in a if x is not None]
    b = [float(x) for x in b if x is not None]
    ma = statistics.median(a) if a else None
    mb = statistics.median(b) if b else None
    ratio = mb / ma if ma and mb is not None else None
    if len(a) < min_samples or len(b) < min_samples or not ma or min(a) <= 0:
        return Verdict(UNKNOWN, ratio, None, None, level, len(a), len(b))
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        ra = statistics.median(rng.choices(a, k=len(a)))
        rb = statistics.median(rng.choices(b, k=len(b)))
        ratios.append(rb / ra)
    ratios.sort()
    low, high = _quantile(ratios, (1 - level) / 2), _quantile(ratios, (1 + level) / 2)
    outcome = FASTER if low > 1 else SLOWER if high < 1 else WITHIN
    return Verdict(outcome, ratio, low, high, level, len(a), len(b))
