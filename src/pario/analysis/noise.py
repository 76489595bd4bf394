"""Is B faster than A beyond the run-to-run noise? One test, used by `pario tune` to let a candidate
replace the incumbent and to state the winner's gain over the default (and meant for `pario bench`'s
"fastest" verdict and `results compare` too). Pure: numbers in, a verdict out.

The test: a percentile bootstrap interval of the ratio of medians, median(B) / median(A). Each side
is resampled with replacement on its own (the repetitions of two configurations are not paired),
`resamples` times with a fixed seed, so the same samples always give the same interval. B is
"faster" when the whole interval lies above 1, "slower" when it lies below 1, and "within noise"
otherwise. With fewer than `min_n` samples on a side there is no interval: "too few samples".

Why this test: rates on shared file systems are skewed and heavy-tailed (one slow repetition in five
is common), so medians, not means; the ratio is what users read ("1.4x the default"); the bootstrap
needs no distribution and gives the interval the report shows. With 3 samples a side the 95%
interval is close to [min B / max A, max B / min A], i.e. "the ranges do not overlap", which is the
conservative rule `results compare` used before; more samples tighten it.
"""
from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

METHOD = "bootstrap interval of the ratio of medians (percentile, independent resampling)"
LEVEL = 0.95
RESAMPLES = 4000
MIN_N = 3


@dataclass(frozen=True)
class Comparison:
    """B against A: ratio of medians B/A, its interval, and the verdict."""
    ratio: float | None
    low: float | None
    high: float | None
    verdict: str            # faster | slower | within noise | too few samples
    n_a: int
    n_b: int
    level: float = LEVEL
    method: str = METHOD

    @property
    def faster(self) -> bool:
        return self.verdict == "faster"

    def to_dict(self) -> dict:
        return {"ratio": self.ratio, "interval": [self.low, self.high], "verdict": self.verdict,
                "n_a": self.n_a, "n_b": self.n_b, "level": self.level, "method": self.method}


def median(samples: Sequence[float]) -> float | None:
    return statistics.median(samples) if samples else None


def ratio_interval(a: Sequence[float], b: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
                   seed: int = 0) -> tuple[float, float]:
    """The percentile bootstrap interval of median(b) / median(a)."""
    if not a or not b:
        raise ValueError("both sides need samples")
    if min(a) <= 0:
        raise ValueError("rates must be positive")
    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma = np.median(rng.choice(xa, size=(resamples, xa.size), replace=True), axis=1)
    mb = np.median(rng.choice(xb, size=(resamples, xb.size), replace=True), axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(mb / ma, [tail, 1.0 - tail])
    return float(low), float(high)


def compare(a: Sequence[float], b: Sequence[float], level: float = LEVEL, min_n: int = MIN_N,
            resamples: int = RESAMPLES, seed: int = 0) -> Comparison:
    """B (e.g. a candidate's rates) against A (e.g. the default's), higher is better."""
    a = [float(x) for x in a if x is not None]
    b = [float(x) for x in b if x is not None]
    ma, mb = median(a), median(b)
    ratio = mb / ma if ma and mb is not None else None
    if len(a) < min_n or len(b) < min_n or not ma or min(a) <= 0 or min(b) <= 0:
        return Comparison(ratio, None, None, "too few samples", len(a), len(b), level)
    low, high = ratio_interval(a, b, level, resamples, seed)
    verdict = "faster" if low > 1.0 else "slower" if high < 1.0 else "within noise"
    return Comparison(ratio, low, high, verdict, len(a), len(b), level)
