"""A preset's table filled with this system's figures: every cell of the seed's table as median
[min-max] over the repetitions (in the seed's unit) beside the seed's published figure, and the
readings: a ratio only where it is beyond the noise (analysis/noise.py, the test behind bench's
"fastest", `results compare` and tune). Pure: summary rows and
the result document in, plain dicts out (report/terminal/presets.py prints them, --json emits them)."""
from __future__ import annotations

import statistics
from typing import Any

from pario.analysis import noise
from pario.model.presets import RATIOS, Column, PresetPlan, Reading

MIB = 1 << 20
# MiB/s -> the seed's unit
_UNIT = {"MiB/s": 1.0, "GiB/s": 1 / 1024, "MB/s": MIB / 1e6}


def _spread(samples: list[float]) -> dict[str, Any] | None:
    samples = [s for s in samples if s is not None]
    if not samples:
        return None
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples),
            "samples": samples}


def _public(spread: dict[str, Any] | None) -> dict[str, Any] | None:
    """A spread as a cell shows it (the samples stay inside, for the noise test)."""
    return {k: v for k, v in spread.items() if k != "samples"} if spread else spread


def times(ratio: float) -> str:
    """A ratio as a reader says it: 0.32x, 2.9x, 15x."""
    return f"{ratio:.2f}x" if ratio < 1 else f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"


def _higher_is_better(metric: str) -> bool:
    return not (metric.endswith("_time") or metric == "writes")


def metric(row: dict[str, Any], name: str, unit: str) -> dict[str, Any] | None:
    """One metric of a summary row as a spread over the repetitions, or None when the run lacks it."""
    if name in ("write", "read"):
        bw = ((row.get(name) or {}).get("bw_mib") or {})
        return _spread([s * _UNIT[unit] for s in bw.get("samples", [])])
    if name == "writes":
        return _spread([row["bytes"] / row["xfer"]]) if row.get("bytes") and row.get("xfer") else None
    op, _, kind = name.rpartition("_")
    md = ((row.get("metadata") or {}).get("phases") or {}).get(op)
    if md:
        rates = (md.get("files_per_s") or {}).get("samples", [])
        if kind == "rate":
            return _spread(rates)
        return _spread([md["files"] / r for r in rates if r and md.get("files")])
    bw = (((row.get(op) or {}).get("bw_mib")) or {}).get("samples", [])
    if kind == "time" and row.get("bytes"):
        return _spread([row["bytes"] / (s * MIB) for s in bw if s])
    return None


def _test(a: dict[str, Any], b: dict[str, Any]) -> noise.Comparison | None:
    """The noise test of a against b; None when a side has a value that is no rate (<= 0)."""
    if min(a["samples"]) <= 0 or min(b["samples"]) <= 0:
        return None
    return noise.compare(b["samples"], a["samples"])


def _clear(a: dict[str, Any], b: dict[str, Any]) -> bool | None:
    """Is the difference beyond the noise? None: too few repetitions, the noise is unknown."""
    test = _test(a, b)
    if test is None or test.verdict == "too few samples":
        return None
    return test.verdict in ("faster", "slower")


def _derived(col: Column, here: dict[str, dict[str, Any] | None], case: str) -> dict[str, Any] | None:
    """speedup (base time / this time) or ratio (this / base) of col.of against col.base's case."""
    this, base = here.get(case), here.get(col.base or "")
    if not this or not base or not this["median"] or not base["median"]:
        return None
    value = base["median"] / this["median"] if col.metric == "speedup" else this["median"] / base["median"]
    return {"median": value, "n": min(this["n"], base["n"]), "clear": None if case == col.base else _clear(this, base)}


def _hint_notes(result_case: dict[str, Any]) -> list[str]:
    """Requested hints that did not take effect (settings.effective's check, or the two dicts)."""
    hints = result_case.get("hints") or {}
    if hints.get("check"):
        return [f"{r['key']}={r['requested']} {r['status']}" for r in hints["check"]
                if r.get("status") == "not applied"]
    eff = hints.get("effective") or {}
    return [f"{k}={v} not applied" for k, v in (hints.get("requested") or {}).items()
            if str(eff.get(k, "")).lower() != str(v).lower()]


def _seed_of(plan: PresetPlan, case: str, metric_name: str) -> float | None:
    """The seed's figure of a case on a metric: from the first column it fills with that metric."""
    row = next(r for r in plan.preset.rows if r.case == case)
    for col in plan.preset.columns:
        value = row.seed.get(col.name)
        if col.metric == metric_name and col.name in row.columns and isinstance(value, (int, float)):
            return float(value)
    return None


def _seed_ratio(plan: PresetPlan, reading: Reading) -> float | None:
    if reading.seed_ratio is not None:
        return reading.seed_ratio
    a, b = _seed_of(plan, reading.a, reading.metric), _seed_of(plan, reading.b, reading.metric)
    if not a or not b:
        return None
    return a / b if _higher_is_better(reading.metric) else b / a


def read(plan: PresetPlan, reading: Reading, values: dict[str, dict[str, Any] | None],
         skipped: dict[str, str]) -> dict[str, Any]:
    """One reading: this system's ratio when the measurements support it, and the seed's."""
    out: dict[str, Any] = {"text": reading.text, "a": reading.a, "b": reading.b, "metric": reading.metric,
                           "ratio": None, "clear": None, "seed_ratio": _seed_ratio(plan, reading),
                           "seed_text": reading.seed_text}
    a, b = values.get(reading.a), values.get(reading.b)
    gone = [c for c in (reading.a, reading.b) if c in skipped]
    if gone:
        out["verdict"] = f"not measured here (row '{plan.labels[gone[0]]}' is skipped)"
    elif not a or not b:
        out["verdict"] = "not measured here (the run did not complete both cases)"
    else:
        ratio = a["median"] / b["median"] if _higher_is_better(reading.metric) else b["median"] / a["median"]
        out["ratio"], out["clear"] = ratio, _clear(a, b)
        test = _test(a, b) if _higher_is_better(reading.metric) else _test(b, a)
        if out["clear"] is None:
            out["verdict"] = f"too few repetitions for a verdict (run with -i {noise.MIN_N} or more)"
        elif not out["clear"]:
            out["verdict"] = "no clear difference here (within the run-to-run noise)"
        else:
            span = f" [{times(test.low)}-{times(test.high)}]" if test and test.low and test.high else ""
            out["verdict"] = f"{times(ratio)}{span} here" + (" (slower)" if ratio < 1 else "")
    seed = out["seed_ratio"]
    if seed is not None:
        out["seed"] = f"the seed saw {times(seed)}"
        out["seed"] += f" ({reading.seed_text})" if reading.seed_text else ""
    else:
        out["seed"] = f"the seed: {reading.seed_text}" if reading.seed_text else "the seed gives no figure"
    out["line"] = f"{reading.text}: {out['verdict']}; {out['seed']}."
    return out


def table(plan: PresetPlan, rows: list[dict[str, Any]], result: dict[str, Any],
          model: dict[tuple[str, str], dict[str, Any]] | None = None) -> dict[str, Any]:
    """The seed's table with this run's cells, the readings and the notes; `model`: {(case, column):
    the model's prediction of the seed's figure on the seed's system} (pario predict)."""
    preset = plan.preset
    by_name = {r["name"]: r for r in rows}
    results = {c["name"]: c for c in result.get("cases") or []}
    skipped = {s.case: s.reason for s in plan.skipped}
    planned = {c["name"] for c in plan.cases}
    columns = [{"name": c.name, "metric": c.metric, "unit": preset.unit if c.unit == "bw" else c.unit}
               for c in preset.columns]
    # each metric of each case once, for cells, derived columns and readings
    values: dict[str, dict[str, dict[str, Any] | None]] = {}
    wanted = {(c.of or "") if c.metric in RATIOS else c.metric for c in preset.columns if c.metric != "note"}
    wanted |= {r.metric for r in preset.readings}
    for m in wanted:
        values[m] = {name: metric(row, m, preset.unit) for name, row in by_name.items()}
    out_rows: list[dict[str, Any]] = []
    index: dict[str, dict[str, Any]] = {}
    for row in preset.rows:
        label = plan.labels[row.case]
        if label not in index:
            index[label] = {"label": label, "cells": {}, "flags": [], "notes": []}
            out_rows.append(index[label])
        entry = index[label]
        for col in preset.columns:
            if col.name not in row.columns:
                continue
            cell: dict[str, Any] = {"case": row.case, "seed": row.seed.get(col.name)}
            if row.case in skipped:
                cell.update(state="skipped", reason=skipped[row.case])
            elif row.case not in by_name:
                cell.update(state="missing" if row.case in planned else "skipped", reason="not run")
            elif col.metric == "note":
                cell.update(state="note")
            elif col.metric in RATIOS:
                cell.update(state="measured", here=_derived(col, values[col.of or ""], row.case))
            else:
                cell.update(state="measured", here=_public(values[col.metric].get(row.case)))
            if model and (row.case, col.name) in model:
                cell["model"] = model[(row.case, col.name)]
            entry["cells"][col.name] = cell
        if row.case in by_name:
            entry["flags"] += [f for f in by_name[row.case].get("flags", []) if f not in entry["flags"]]
            entry["notes"] += _hint_notes(results.get(row.case) or {})
    readings = [read(plan, r, values[r.metric], skipped) for r in preset.readings]
    return {"preset": preset.name, "title": preset.title, "seed": preset.seed, "shows": preset.shows,
            "setup": preset.setup, "unit": preset.unit, "row_header": plan.row_header, "columns": columns,
            "rows": out_rows, "readings": readings, "caveat": preset.caveat, "ranks": plan.ranks,
            "scale": plan.scale, "notes": list(plan.notes),
            "skipped": [{"case": s.case, "label": s.label, "reason": s.reason} for s in plan.skipped]}
