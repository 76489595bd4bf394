"""Racing among close candidates (pure: rates in, decisions out), used by tune.search.

Which of several measured configurations is the best, when their intervals overlap? Keeping the
  incumbent on a tie (the rule before) lets a first guess that is half as fast stay ahead of the best
  one when both have 3 repetitions. Racing instead spends more repetitions on the close ones only
  (`contenders`: those not slower than the leader beyond the noise, analysis.noise's test) until one
  is left or each has `cap` repetitions; a tie at the cap goes to the higher median, and says so.
  (Racing algorithms: Maron & Moore, Hoeffding races, 1994; irace's F-race, Lopez-Ibanez et al. 2016;
  successive halving among the survivors, Jamieson & Talwalkar 2016.)"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

CAP = 15    # counted repetitions a configuration may reach in a race
STEP = 3    # repetitions added to each contender per round (one launch each, alternating)


def contenders(rates: Mapping[K, Sequence[float]]) -> list[K]:
    """The keys not slower beyond the noise than the one with the highest median, best median first."""
    import statistics

    from pario.analysis import noise  # numpy: not loaded by `pario tune --help`, which reads CAP

    live = {k: list(v) for k, v in rates.items() if v}
    if not live:
        return []
    order = sorted(live, key=lambda k: statistics.median(live[k]), reverse=True)
    leader = order[0]
    return [k for k in order if k == leader or noise.compare(live[leader], live[k]).verdict != "slower"]


def needs_more(rates: Mapping[K, Sequence[float]], cap: int = CAP) -> list[K]:
    """The contenders that get another round: all of them while more than one is left and any is
    below the cap (those at the cap wait); [] when the race is decided or every contender is capped."""
    close = contenders(rates)
    if len(close) < 2:
        return []
    return [k for k in close if len(rates[k]) < cap]


def needs_more_pooled(pools: Mapping[K, tuple[Sequence[float], Sequence[float]]], cap: int = CAP) -> list[K]:
    """needs_more over pools of (repetitions before, repetitions of the racing trial): the race is judged
    on all of each pool (the default's every control, the winner's every confirmation: tune.verdict's
    gain), and a racing trial below the cap gets another round while the pools are not told apart."""
    if len(contenders({k: [*a, *b] for k, (a, b) in pools.items()})) < 2:
        return []
    return [k for k, (_, own) in pools.items() if len(own) < cap]


def verdict(rates: Mapping[K, Sequence[float]]) -> tuple[K, str]:
    """The race's winner and how it won: "beyond the noise" (alone after the race) or "tie at the
    cap: higher median" (still within noise of another)."""
    close = contenders(rates)
    if not close:
        raise ValueError("no contender has a rate")
    return close[0], ("beyond the noise" if len(close) == 1 else "tie at the cap: higher median")
