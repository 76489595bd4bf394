#!/usr/bin/env python3
"""Predict every figure of the seeds' tables (rows.toml) from its system file
(examples/systems/) and the calibration rows named in calibration.toml (committed before any
fitting), and score the held-out rows against the issue's targets.

    python benchmarks/predict/seeds.py            # the table, then the targets
    python benchmarks/predict/seeds.py --json     # every row's prediction as JSON

Ratios are predicted/published. Bandwidth rows compare bandwidths, time rows times. 'upper' rows
(a bound the seed implies) are held if the prediction is at most the bound x 1.5 and enter only the
pairs. Flags are decided by the model from the pattern and the system, before any comparison."""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from itertools import combinations

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "src"))

from pario.predict.seeds import UNITS, Row, predicted  # noqa: E402


def pairs(rows: list[Row]) -> tuple[int, int]:
    """Pairs of settings in one scenario with at least one held-out row: ordered right (ties wrong)."""
    right = total = 0
    by: dict[str, list[Row]] = {}
    for r in rows:
        by.setdefault(r.scenario, []).append(r)
    for group in by.values():
        for a, b in combinations(group, 2):
            if a.calibrates and b.calibrates or a.value == b.value:
                continue
            total += 1
            pa, pb = a.predicted or 0, b.predicted or 0
            if not math.isclose(pa, pb, rel_tol=1e-9) and a.better(pa, pb) == a.better(a.value, b.value):
                right += 1
    return right, total


def best(rows: list[Row]) -> list[tuple[str, bool, str]]:
    """Per scenario of two or more settings: is the predicted best within 10% of the published best?"""
    by: dict[str, list[Row]] = {}
    for r in rows:
        by.setdefault(r.scenario, []).append(r)
    out = []
    for name, group in by.items():
        points = [r for r in group if r.kind != "upper"]
        if len(group) < 2 or not points:
            continue
        top = min if group[0].time else max
        pub = top(r.value for r in points)
        pick = top(points, key=lambda r: r.predicted or 0)
        ok = pick.value <= pub * 1.1 if group[0].time else pick.value >= pub / 1.1
        out.append((name, ok, pick.id))
    return out


def table(rows: list[Row]) -> None:
    print(f"{'row':<22} {'published':>11} {'predicted':>11} {'ratio':>6} {'role':<5} binding / flags")
    last = None
    for r in rows:
        if r.system != last:
            print(f"-- {r.system}")
            last = r.system
        pred = r.prediction
        role = "cal" if r.calibrates else "held"
        pub = f"{r.value:.4g} {r.unit}" + ("<" if r.kind == "upper" else "")
        flags = ",".join(f for f, _ in pred.flags) if pred else ""
        print(f"{r.id:<22} {pub:>11} {r.predicted:>8.4g} {r.unit if r.unit != 's' else 's':<2} {r.ratio:>5.2f}x "
              f"{role:<5} {pred.binding if pred else ''}{' [' + flags + ']' if flags else ''}")


def score(rows: list[Row]) -> dict:
    held = [r for r in rows if not r.calibrates and r.kind != "upper"]
    ratios = [r.ratio for r in held]
    within = lambda f: sum(1 for x in ratios if 1 / f <= x <= f) / len(ratios)  # noqa: E731
    off = [r for r in held if not 0.5 <= r.ratio <= 2]
    flagged_off = [r for r in off if r.prediction and r.prediction.flags]
    flagged = [r for r in held if r.prediction and r.prediction.flags]
    inside = [r for r in held if r.prediction and r.prediction.low <= (r.value if r.time else
                                                                       r.prediction.total / (r.value * UNITS[r.unit]))
              <= r.prediction.high]
    right, total = pairs(rows)
    bests = best(rows)
    uppers = [r for r in rows if r.kind == "upper"]
    return {"held_out": len(held), "calibration": sum(1 for r in rows if r.calibrates),
            "within_1.5x": within(1.5), "within_2x": within(2.0),
            "median_ratio": statistics.median(ratios),
            "median_error": statistics.median(max(x, 1 / x) for x in ratios),
            "pairs_right": right / total if total else None, "pairs": total,
            "best_within_10pct": sum(ok for _, ok, _ in bests) / len(bests), "scenarios": len(bests),
            "best_misses": [n for n, ok, _ in bests if not ok],
            "off_2x": len(off), "off_2x_flagged": len(flagged_off) / len(off) if off else 1.0,
            "flagged": len(flagged), "flag_precision": len(flagged_off) / len(flagged) if flagged else None,
            "in_interval": len(inside) / len(held),
            "upper_bounds_held": sum(1 for r in uppers if (r.predicted or 0) <= r.value * 1.5),
            "upper_bounds": len(uppers)}


TARGETS = [("within_1.5x", ">=", 0.80, "held-out rows within 1.5x"), ("within_2x", ">=", 0.90, "within 2x"),
           ("median_ratio", "<=", 1.2, "median ratio predicted/published"),
           ("pairs_right", ">=", 0.85, "pairs of settings ordered right (ties wrong)"),
           ("best_within_10pct", ">=", 0.90, "best setting within 10% of the published best"),
           ("off_2x_flagged", ">=", 0.80, "rows off by more than 2x flagged in advance")]


def report(s: dict) -> None:
    print(f"\n{s['held_out']} held-out rows, {s['calibration']} calibration rows; targets on the held-out rows:")
    for key, op, target, text in TARGETS:
        v = s[key]
        met = v is not None and (v >= target if op == ">=" else v <= target)
        shown = f"{v:.0%}" if key != "median_ratio" else f"{v:.2f}"
        print(f"  {'met   ' if met else 'FAILED'} {text}: {shown} (target {op} "
              f"{f'{target:.0%}' if key != 'median_ratio' else target})")
    print(f"  also: median error {s['median_error']:.2f}x (a ratio and its inverse count alike); "
          f"{s['pairs']} pairs; {s['scenarios']} scenarios (missed: {', '.join(s['best_misses']) or 'none'}); "
          f"{s['flagged']} rows flagged, {s['flag_precision'] or 0:.0%} of them off by more than 2x; "
          f"published figure inside the stated interval: {s['in_interval']:.0%}; upper bounds held "
          f"{s['upper_bounds_held']}/{s['upper_bounds']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="every row's prediction as JSON")
    args = ap.parse_args(argv)
    rows, fit = predicted()
    fitted, scen, calib = fit["fitted"], fit["scenarios"], fit["calibration"]
    s = score(rows)
    if args.json:
        print(json.dumps({"rows": [{"id": r.id, "published": r.value, "unit": r.unit, "predicted": r.predicted,
                                    "ratio": r.ratio, "calibrates": r.calibrates, "binding": r.prediction.binding,
                                    "flags": [f for f, _ in r.prediction.flags], "basis": r.prediction.basis}
                                   for r in rows if r.prediction], "score": s,
                          "fitted": {n: {k: fitted[n][k] for k in calib.get(n, {}).get("sets", []) if "." not in k}
                                     for n in fitted}, "scenarios": scen}, indent=1))
        return 0
    table(rows)
    print("\nfitted: " + "; ".join(f"{n}: " + ", ".join(f"{k}={fitted[n][k]:.3g}" for k in calib[n]["sets"]
                                                         if "." not in k) for n in fitted if n in calib))
    report(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
