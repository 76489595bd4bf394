"""Which knobs mattered, named only where the session's measurements show it.

A knob is named when the trials' medians (log rate) differ between its values by more than chance
would give: a permutation test, where the knob's values are shuffled among the trials it applies
to (a knob such as cb_nodes only under collective calls is judged among those trials alone, not
through the split it inherits from its parent). Knobs are taken in turn, the clearest first, and
each later one is tested within the strata of the ones named before it, so a knob that only went
along with a named one (TPE tried both in the same good region) is not named too. The figure given
is the share of the variance of the log medians the knob explains (within those strata).

Why not optuna's PED-ANOVA, which this module used before: its shares always add up to 1, so on a
flat landscape every knob "mattered", and on the synthetic sessions of
tests/python/test_tune_importance.py it spread 0.12-0.17 over the knob that did all the work and
every knob under it alike (benchmarks/tune/RESULTS.md, "Which knobs mattered")."""
from __future__ import annotations

import numpy as np

from pario.model.tuning import TuningSession
from pario.tune.space import Config, Space

MIN_TRIALS = 8
PERMUTATIONS = 999
ALPHA = 0.05


def importance(session: TuningSession, space: Space) -> tuple[dict[str, float], str]:
    """({knob: share of the variance explained}, how it was judged) or ({}, why none is named)."""
    rows = _rows(session, space)
    if len(rows) < MIN_TRIALS:
        return {}, f"not judged: {len(rows)} measured trial(s), at least {MIN_TRIALS} needed"
    y = np.log(np.array([median for _, median in rows]))
    total = float(((y - y.mean()) ** 2).sum())
    how = (f"permutation test over {len(rows)} trials' medians, {PERMUTATIONS} shuffles, "
           f"{ALPHA:.0%} Bonferroni over the knobs left; share of the variance of log rate")
    if total <= 0.0:
        return {}, f"none stands out: every trial measured the same ({how})"
    rng = np.random.default_rng(session.seed)
    left = [k.key for k in space.knobs if len({eff.get(k.key) for eff, _ in rows}) > 1]
    named: dict[str, float] = {}
    while left:
        strata = _codes([tuple(eff.get(k) for k in named) for eff, _ in rows])
        tests = []
        for key in left:
            on = np.array([key in eff for eff, _ in rows])
            labels = _codes([eff.get(key) for eff, _ in rows])
            judged = _test(y[on], labels[on], strata[on], rng)
            if judged is not None:
                tests.append((judged[1], -judged[0], key))
        if not tests:
            break
        p, minus_ss, key = min(tests)
        if p > ALPHA / len(left):
            break
        named[key] = -minus_ss / total
        left.remove(key)
    if not named:
        return {}, f"none stands out from the noise ({how})"
    return named, how


def _rows(session: TuningSession, space: Space) -> list[tuple[Config, float]]:
    """(effective configuration, median) of each measured trial; the default once (its first control)."""
    default = space.default()
    rows = []
    seen_default = False
    for t in session.trials:
        if t.median is None or t.median <= 0 or t.state not in ("complete", "pruned", "control"):
            continue
        if t.state == "control":
            if seen_default:
                continue
            seen_default = True
        rows.append((space.effective({**default, **t.settings}), float(t.median)))
    return rows


def _codes(values: list) -> np.ndarray:
    index: dict = {}
    return np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)


def _test(y: np.ndarray, labels: np.ndarray, strata: np.ndarray,
          rng: np.random.Generator) -> tuple[float, float] | None:
    """(between-values sum of squares within strata, permutation p) or None when no stratum holds two
    of the knob's values."""
    if not any(len(set(labels[strata == s].tolist())) > 1 for s in set(strata.tolist())):
        return None
    shuffled = np.tile(labels, (PERMUTATIONS, 1))
    for s in set(strata.tolist()):
        cols = np.flatnonzero(strata == s)
        shuffled[:, cols] = rng.permuted(shuffled[:, cols], axis=1)
    observed = float(_between(y, labels[None, :], strata)[0])
    null = _between(y, shuffled, strata)
    p = (1 + int((null >= observed * (1 - 1e-9)).sum())) / (PERMUTATIONS + 1)
    return observed, p


def _between(y: np.ndarray, labels: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """For each row of labels: sum over strata and values of n (mean of the cell - mean of the stratum)^2
    (the part of the within-strata sum of squares the values account for)."""
    perms, m = labels.shape
    width = (int(strata.max()) + 1) * (int(labels.max()) + 1)
    cells = strata[None, :] * (int(labels.max()) + 1) + labels + np.arange(perms)[:, None] * width
    sums = np.bincount(cells.ravel(), weights=np.broadcast_to(y, (perms, m)).ravel(),
                       minlength=perms * width).reshape(perms, width)
    counts = np.bincount(cells.ravel(), minlength=perms * width).reshape(perms, width)
    cell_term = np.divide(sums ** 2, counts, out=np.zeros_like(sums), where=counts > 0).sum(axis=1)
    s_sums = np.bincount(strata, weights=y)
    s_counts = np.bincount(strata)
    stratum_term = float((s_sums[s_counts > 0] ** 2 / s_counts[s_counts > 0]).sum())
    return cell_term - stratum_term
