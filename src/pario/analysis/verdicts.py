"""Which case of a run is fastest, said only when the measurements support it. Pure.

The case with the highest median is the candidate; it is named the winner only when it is faster
than every other case beyond the run-to-run noise, by the test of analysis/noise.py (the one
`pario results compare` and the tuner use). Otherwise the verdict says which cases tie with it,
or that there are too few repetitions to tell. It also says when every figure of an operation is
page cache (flagged by analysis/summary.py), because a winner among memory copies says nothing
about the file system."""
from __future__ import annotations

from typing import Any

from pario.analysis import noise

# Op flags that say a figure is (or may be) page cache rather than the device.
CACHE_FLAGS = ("cache?", "warm", "cached")


def _samples(row: dict, op: str) -> list[float]:
    return list(row[op]["bw_mib"]["samples"])


def test(a: list[float], b: list[float]) -> dict[str, Any]:
    """noise.compare of b against a, flat: ratio, low, high, verdict (faster | slower |
    within noise | too few samples), n_a, n_b, level, method."""
    c = noise.compare(a, b)
    return {"ratio": c.ratio, "low": c.low, "high": c.high, "verdict": c.verdict, "n_a": c.n_a, "n_b": c.n_b,
            "level": c.level, "method": c.method}


def winner(rows: list[dict], op: str) -> dict[str, Any] | None:
    """The verdict on the fastest case for op, or None when fewer than two cases have op.

    {"op", "best", "median", "n", "clear", "runner_up", "vs_runner_up" (noise.Verdict as a dict,
    a = runner-up, b = best: verdicts.test), "ties" (names within the noise of the best, or not decidable),
    "vs_tie" (the test of the first of them, the one a sentence quotes: the runner-up by median may be
    slower beyond the noise while a case with a lower median and a wider spread is not),
    "undecided" (True when some pair had too few repetitions), "all_cache", "cache_flags"}."""
    candidates = [r for r in rows if r.get(op)]
    if len(candidates) < 2:
        return None
    ranked = sorted(candidates, key=lambda r: r[op]["bw_mib"]["median"], reverse=True)
    best, others = ranked[0], ranked[1:]
    tests = [(other, test(_samples(other, op), _samples(best, op))) for other in others]
    ties = [other["name"] for other, v in tests if v["verdict"] != "faster"]
    flags = sorted({f for r in candidates for f in r[op].get("flags", []) if f in CACHE_FLAGS})
    return {
        "op": op, "best": best["name"], "median": best[op]["bw_mib"]["median"], "n": best[op]["bw_mib"]["n"],
        "clear": not ties, "runner_up": others[0]["name"], "vs_runner_up": tests[0][1],
        "ties": ties, "vs_tie": next((v for other, v in tests if other["name"] in ties), None),
        "undecided": any(v["verdict"] == "too few samples" for _, v in tests),
        "min_samples": noise.MIN_N,
        "all_cache": all(any(f in CACHE_FLAGS for f in r[op].get("flags", [])) for r in candidates),
        "cache_flags": flags,
    }


def fastest_name(rows: list[dict], op: str) -> str | None:
    """The winner's name when there is a clear one (else None)."""
    w = winner(rows, op)
    return w["best"] if w and w["clear"] else None
