"""The seeds' published figures (benchmarks/predict/rows.toml) predicted from their system files
(examples/systems/) and the calibration rows named, before any fit, in calibration.toml: the
check of `pario predict` (benchmarks/predict/seeds.py scores it) and the model's column of the
presets' tables (`pario bench --preset`: the prediction beside the seed's figure and this
machine's). Found in the source tree or beside the installed package."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from pario.model.formats import tomllib
from pario.plan.cases import build_case, normalise
from pario.predict import model, system
from pario.predict.fit import fit
from pario.predict.pattern import from_case


def data_file(name: str) -> Path:
    """rows.toml or calibration.toml: installed copy, else the source tree's benchmarks/predict/."""
    for d in system.data_dirs("predict-seeds", "benchmarks/predict"):
        if (d / name).is_file():
            return d / name
    raise FileNotFoundError(name)


UNITS = {"GiB/s": 2.0 ** 30, "MiB/s": 2.0 ** 20, "MB/s": 1e6, "s": 1.0}
RUN_KEYS = ("nodes", "ranks_per_node", "stripe_count", "stripe_size", "buffer", "volume", "fixed", "assumed")
SCENARIO_PARAMS = ("volume", "fixed")


@dataclass
class Row:
    id: str
    scenario: str
    system: str
    setting: str
    value: float
    unit: str
    kind: str
    source: str
    case: dict
    run: dict
    calibrates: str | None = None
    preset: str | None = None          # NAME:CASE:COLUMN of the preset cell showing this figure
    predicted: float | None = None
    prediction: model.Prediction | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def time(self) -> bool:
        return self.unit == "s"

    @property
    def ratio(self) -> float:
        return (self.predicted or 0.0) / self.value

    def better(self, a: float, b: float) -> bool:
        """a is better than b (shorter time, higher bandwidth)."""
        return a < b if self.time else a > b


def _size(v):
    from pario.model.units import parse_size
    return parse_size(v, "size") if isinstance(v, str) else v


def load_rows() -> tuple[list[Row], dict]:
    with open(data_file("rows.toml"), "rb") as fh:
        data = tomllib.load(fh)
    with open(data_file("calibration.toml"), "rb") as fh:
        calib = tomllib.load(fh)
    scenarios = {s["id"]: s for s in data["scenario"]}
    sets = {r: p for sys_ in calib.values() for r, p in zip(sys_["rows"], sys_["sets"])}
    rows = []
    for r in data["row"]:
        sc = scenarios[r["scenario"]]
        case = {**sc.get("case", {}), **r.get("case", {})}
        if "hints" in sc.get("case", {}) and "hints" in r.get("case", {}):
            case["hints"] = {**sc["case"]["hints"], **r["case"]["hints"]}
        run = {**sc.get("run", {}), **r.get("run", {})}
        rows.append(Row(r["id"], r["scenario"], sc["system"], r["setting"], float(r["value"]), r["unit"],
                        r.get("kind", "point"), r["source"], case, run, sets.get(r["id"]), preset=r.get("preset")))
    return rows, calib


def pattern_of(row: Row, scen: dict[str, float]):
    case = build_case(normalise({k: v for k, v in row.case.items()}, row.id), row.id)
    run = {k: _size(v) if k in ("stripe_size", "buffer") else v for k, v in row.run.items() if k in RUN_KEYS}
    for key in SCENARIO_PARAMS:
        if run.get(key) == "calibrated":
            run[key] = scen.get(f"{row.scenario}.{key}")
    return from_case(case, run)


def predict_row(row: Row, sys_: system.System, scen: dict[str, float]) -> float:
    pred = model.predict(sys_, pattern_of(row, scen))
    row.prediction = pred
    return pred.seconds if row.time else pred.bandwidth / UNITS[row.unit]


def calibrate(rows: list[Row], systems: dict[str, system.System]) -> tuple[dict, dict]:
    """Per system: fit the parameters its calibration rows set (system figures and the scenarios'
    unknown amounts), from those rows only."""
    fitted, scen = {}, {}
    for name, sys_ in systems.items():
        mine = [r for r in rows if r.system == name and r.calibrates]
        if not mine:
            fitted[name] = sys_
            continue
        start: dict[str, float] = {}
        for r in mine:
            p = str(r.calibrates)
            if "." in p:
                start[p] = 1e11 if p.endswith("volume") else 1.0
            else:
                start[p] = float(sys_[p])

        def residuals(values, mine=mine, sys_=sys_):
            s = sys_.with_values({k: v for k, v in values.items() if "." not in k})
            sc = {k: v for k, v in values.items() if "." in k}
            return [math.log(predict_row(r, s, sc) / r.value) for r in mine]

        hi = {k: 1.0 for k in start if k == "lockahead_efficiency"}
        values, _ = fit(start, residuals, hi=hi)
        fitted[name] = sys_.with_values({k: v for k, v in values.items() if "." not in k},
                                        how="fitted to " + ", ".join(r.id for r in mine))
        scen.update({k: v for k, v in values.items() if "." in k})
    return fitted, scen


def predicted(systems_: list[str] | None = None) -> tuple[list[Row], dict]:
    """Every row (of the named systems) with its prediction, each system fitted to its own
    calibration rows first."""
    rows, calib = load_rows()
    if systems_ is not None:
        rows = [r for r in rows if r.system in systems_]
    loaded = {name: system.load(str(system.system_file(name))) for name in sorted({r.system for r in rows})}
    fitted, scen = calibrate(rows, loaded)
    for r in rows:
        r.predicted = predict_row(r, fitted[r.system], scen)
    return rows, {"fitted": fitted, "scenarios": scen, "calibration": calib}


def for_preset(name: str) -> dict[tuple[str, str], Row]:
    """{(case, column): row} of a preset's cells that show a seed figure the model predicts."""
    wanted = {}
    rows, _ = load_rows()
    systems_ = sorted({r.system for r in rows if r.preset and r.preset.split(":")[0] == name})
    if not systems_:
        return {}
    rows, _ = predicted(systems_)
    for r in rows:
        if r.preset and r.preset.split(":")[0] == name:
            _, case, column = r.preset.split(":", 2)
            wanted[(case, column)] = r
    return wanted
