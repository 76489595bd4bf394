"""Fitting a model's unknown figures to measured rows: plain least squares on the logarithm of
predicted/measured, one parameter at a time (golden-section search in log space, repeated until
nothing moves). No black box: the parameters are the model's named figures, and a fit with as many
rows as parameters solves them exactly when the mechanisms allow it."""
from __future__ import annotations

import math
from collections.abc import Callable

GOLD = (math.sqrt(5) - 1) / 2
# log10 search range around the starting value of each parameter
SPAN = 5.0
GRID = 40


def _loss(residuals: Callable[[dict[str, float]], list[float]], values: dict[str, float]) -> float:
    res = residuals(values)
    return sum(r * r for r in res) if all(math.isfinite(r) for r in res) else math.inf


def fit(start: dict[str, float], residuals: Callable[[dict[str, float]], list[float]],
        sweeps: int = 30, tolerance: float = 1e-4, lo: dict[str, float] | None = None,
        hi: dict[str, float] | None = None) -> tuple[dict[str, float], float]:
    """(values, loss): the parameters of `start` moved to minimise the sum of squared residuals
    (log of predicted/measured per row). `lo`/`hi`: bounds per parameter (default: start / 10^5 to
    start x 10^5)."""
    values = {k: float(v) for k, v in start.items()}
    bounds = {k: (math.log10((lo or {}).get(k, v / 10 ** SPAN)), math.log10((hi or {}).get(k, v * 10 ** SPAN)))
              for k, v in values.items()}
    best = _loss(residuals, values)
    for _ in range(sweeps):
        before = best
        for name in values:
            lo_x, hi_x = bounds[name]

            def at(x: float, name: str = name) -> float:
                return _loss(residuals, {**values, name: 10 ** x})

            # a coarse grid first (the loss of a minimum of ceilings has kinks and flat parts), then a
            # golden-section search between the best grid point's neighbours
            grid = [lo_x + (hi_x - lo_x) * i / GRID for i in range(GRID + 1)]
            losses = [at(x) for x in grid]
            i = min(range(len(grid)), key=losses.__getitem__)
            a, b = grid[max(0, i - 1)], grid[min(GRID, i + 1)]
            x1, x2 = b - GOLD * (b - a), a + GOLD * (b - a)
            f1, f2 = at(x1), at(x2)
            for _ in range(40):
                if f1 <= f2:
                    b, x2, f2 = x2, x1, f1
                    x1 = b - GOLD * (b - a)
                    f1 = at(x1)
                else:
                    a, x1, f1 = x1, x2, f2
                    x2 = a + GOLD * (b - a)
                    f2 = at(x2)
            x, fx = min(((a + b) / 2, at((a + b) / 2)), (grid[i], losses[i]), key=lambda t: t[1])
            if fx < best:
                values[name], best = 10 ** x, fx
        if before - best < tolerance * max(1.0, before):
            break
    return values, best
