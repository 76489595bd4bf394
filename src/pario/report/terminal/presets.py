"""`pario bench --preset`: the list of presets, and a preset's table in the seed's shape (its rows and
columns, this system's median [min-max] beside the seed's figure), the rows this system could not
run and why, and the readings. Formats analysis/presets.py's dicts; computes nothing."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from pario.analysis.summary import FLAG_HELP
from pario.model.presets import Preset
from pario.report.terminal.cells import new_table, num


def print_list(console: Console, presets: list[Preset]) -> None:
    """One line per preset: its name, whose experiment it is, what it shows."""
    width = max((len(p.name) for p in presets), default=8)
    for p in presets:
        org = p.title.split(":")[0]
        console.print(escape(f"{p.name:<{width}}  {org}: {p.shows}"), highlight=False, overflow="fold")
    console.print("Run one: pario bench --preset NAME [-n N] [--scale F] [--time S]. Each is a job file "
                  "(--preset list --json gives the paths): copy one, edit it, run it with --preset FILE.",
                  highlight=False)


def _here(cell: dict[str, Any], unit: str) -> str:
    state = cell.get("state")
    if state == "skipped":
        return "skipped"
    if state == "missing":
        return "not run"
    here = cell.get("here")
    if not here:
        return "-"
    if unit == "x":
        mark = "" if here.get("clear") in (True, None) else "~"
        return f"{mark}{here['median']:.2f}x"
    if unit == "":
        return f"{here['median']:,.0f}"
    if here["n"] < 2:
        return f"{num(here['median'])} (1 rep)"
    return f"{num(here['median'])} [{num(here['min'])}-{num(here['max'])}]"


def _seed(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if float(value).is_integer() and unit != "x":
        return f"{int(value):,}" if unit == "" else str(int(value))
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "":
        return f"{value:,.0f}"
    return num(float(value))


def _noisy(doc: dict[str, Any]) -> bool:
    return any((c.get("here") or {}).get("clear") is False for r in doc["rows"] for c in r["cells"].values())


def _has_seed(doc: dict[str, Any], col: dict[str, Any]) -> bool:
    """Does the seed give a figure in this column (else its seed half is left out)?"""
    return any((row["cells"].get(col["name"]) or {}).get("seed") is not None for row in doc["rows"])


def _has_model(doc: dict[str, Any], col: dict[str, Any]) -> bool:
    return any((row["cells"].get(col["name"]) or {}).get("model") for row in doc["rows"])


def _model(model: dict[str, Any] | None) -> str:
    if not model:
        return ""
    v = model["value"]
    text = f"{v:.3g}" if v < 100 else f"{v:.0f}"
    return text + ("*" if model["calibration"] else "") + ("!" if model["flags"] else "")


def print_table(console: Console, doc: dict[str, Any], where: str = "", measured: str = "") -> None:
    """The seed-shaped table of a preset run, then what was skipped, the readings and the notes;
    measured: what the figures are of (report.terminal.bench.measured_line), above the table."""
    console.print(f"[bold]{escape(doc['title'])}[/bold]", highlight=False)
    console.print(escape(f"seed: {doc['seed']}"), highlight=False)
    console.print(escape(f"seed's setup: {doc['setup']}"), highlight=False)
    ranks = f"{doc['ranks']} rank{'s' if doc['ranks'] != 1 else ''}"
    console.print(escape(f"here: {ranks}{where}, scale {doc['scale']:g}"), highlight=False)
    if measured:
        console.print(escape(measured), highlight=False)
    table = new_table(None)
    # the labels fold at words; the figures never wrap (a cut range would mislead)
    longest = max((len(w) for r in doc["rows"] for w in r["label"].split()), default=8)
    table.add_column(escape(doc["row_header"]), overflow="fold", min_width=min(max(longest, 16), 26))
    for col in doc["columns"]:
        unit = col["unit"]
        if unit == "note":  # the seed's words, no figure of its own
            table.add_column(escape(f"{col['name']}\nseed"), overflow="fold", ratio=2)
            continue
        shown = "" if unit in ("", "x") else f" {unit}"
        table.add_column(escape(f"{col['name']}{shown}\nhere"), justify="right", no_wrap=True)
        if _has_seed(doc, col):
            table.add_column("\nseed", justify="right", overflow="fold")
        if _has_model(doc, col):
            table.add_column("\nmodel", justify="right", no_wrap=True)
    for row in doc["rows"]:
        marks = [f for f in row["flags"] if f in FLAG_HELP]   # the rows the footer's flags are of
        cells = [row["label"] + (f" [{', '.join(marks)}]" if marks else "")]
        for col in doc["columns"]:
            cell = row["cells"].get(col["name"]) or {}
            if col["unit"] == "note":
                cells.append(str(cell.get("seed") or ""))
                continue
            cells.append(_here(cell, col["unit"]) if cell else "")
            if _has_seed(doc, col):
                cells.append(_seed(cell.get("seed"), col["unit"]) if cell else "")
            if _has_model(doc, col):
                cells.append(_model(cell.get("model")))
        table.add_row(*(Text(c, style="dim" if c in ("skipped", "not run") else "") for c in cells))
    console.print(table)
    console.print(escape("here: median [min-max] over the repetitions"
                         + ("; ~: within the run-to-run noise" if _noisy(doc) else "")
                         + "."), highlight=False)
    systems = sorted({c["model"]["system"] for r in doc["rows"] for c in r["cells"].values() if c.get("model")})
    if systems:
        console.print(escape(f"model: pario predict of the seed's figure on the seed's system "
                             f"(examples/systems/{', '.join(s + '.toml' for s in systems)}) at the seed's scale; "
                             "*: a calibration row (fitted to it); !: flagged, a mechanism the model lacks "
                             "(python benchmarks/predict/seeds.py says which)."), highlight=False)
    reasons: dict[str, list[str]] = {}
    for s in doc["skipped"]:
        if s["label"] not in reasons.setdefault(s["reason"], []):
            reasons[s["reason"]].append(s["label"])
    for reason, labels in reasons.items():
        console.print(escape(f"Skipped {'; '.join(labels)}: {reason}."), highlight=False)
    for reading in doc["readings"]:
        console.print(escape(f"Reading: {reading['line']}"), highlight=False)
    if doc.get("caveat"):
        console.print(escape(f"Note: {doc['caveat']}"), highlight=False)
    for note in doc.get("notes", []):
        console.print(escape(f"Note: {note}"), highlight=False)
    for row in doc["rows"]:
        if row["notes"]:
            console.print(escape(f"{row['label']}: {'; '.join(row['notes'])}"), highlight=False)
    for flag in sorted({f for row in doc["rows"] for f in row["flags"]}):
        if flag in FLAG_HELP:
            n = sum(flag in r["flags"] for r in doc["rows"])
            console.print(f"[bold]{flag}[/bold] ({n} of {len(doc['rows'])} rows, marked \\[{flag}] above): "
                          f"{escape(FLAG_HELP[flag])}.", highlight=False)
