"""Terminal rendering of a bench run beyond the summary table: the layers table (each layer against
raw MPI-IO on the same bytes), the metadata table (metadata.py), and what each library reported
it did. Formats rows of pario.analysis.summary and pario.plan.layers; computes nothing --json lacks."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from pario.analysis import layers as analysis
from pario.model.units import count, human
from pario.plan import layers
from pario.report.terminal import runs, tables
from pario.report.terminal.cells import spread
from pario.report.terminal.fit import Col, print_fit
from pario.report.terminal.metadata import print_metadata

# The few effective settings worth a glance per library (--json and `results show --json` have all).
_EFFECTIVE = {"hdf5": ("actual_io_mode",), "adios2": ("NumAggregators", "AggregationType")}


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def print_bench(console: Console, rows: list[dict], result: dict, title: str | None = None) -> None:
    """What `pario bench` prints after a run: the data table, then the layers comparison, the
    metadata table and the library settings in effect, each when the run has such cases."""
    data = [r for r in rows if r.get("workload") != "metadata"]
    if data and analysis.is_layers_run(rows):
        print_layers(console, data, result, title)  # one table says it all; the flags' legend below it
        for line in tables.flag_lines(data):
            console.print(line)
        md = [r for r in rows if r.get("workload") == "metadata"]
        if md:
            print_metadata(console, md)
        print_libraries(console, rows, result, detail=False)
        return
    if data:
        tables.print_summary(console, data, title=title)
    print_extras(console, rows, result, title=None if data else title, detail=False)


def print_extras(console: Console, rows: list[dict], result: dict, title: str | None = None,
                 detail: bool = True) -> None:
    """The parts the general summary table does not show (also used by `pario results show`)."""
    if analysis.is_layers_run(rows):
        print_layers(console, rows, result)
    md = [r for r in rows if r.get("workload") == "metadata"]
    if md:
        print_metadata(console, md, title)
    print_libraries(console, rows, result, detail)


def _effective_note(row: dict) -> str:
    lib = row.get("lib") or {}
    eff = lib.get("effective") or {}
    keys = _EFFECTIVE.get(row["backend"], ())
    parts = [f"{k}={eff[k]}" for k in keys if eff.get(k) not in (None, "")]
    if row["backend"] == "hdf5" and row["collective"] and eff.get("actual_io_mode") in ("no_collective", "0"):
        parts.insert(0, "collective NOT done")
    return ", ".join(parts)


HEAD = "each I/O layer against raw MPI-IO collective on the same bytes (ratio of medians)"
VERDICT = {"faster": "faster", "slower": "slower", "within noise": "within noise", "too few samples": "too few reps"}


def _against(v: dict | None) -> str:
    """'1.97x [0.91-3.10]' over its verdict, as `pario results compare` gives a ratio; '-' for none."""
    if not v or v.get("ratio") is None:
        return "-"
    if v.get("low") is None:
        return f"{_ratio(v['ratio'])}\n{VERDICT.get(v['verdict'], v['verdict'])}"
    return f"{_ratio(v['ratio'])} [{v['low']:.2f}-{v['high']:.2f}]\n{VERDICT.get(v['verdict'], v['verdict'])}"


def layers_table(rows: list[dict], result: dict) -> tuple[list[Col], list[list[str]], list[str]]:
    """The layers table (columns, cells) and the lines under it: the terminal prints them, the HTML
    page shows the same (report/html/bench.py)."""
    entries = analysis.compare(rows)
    by_name = {r["name"]: r for r in rows}
    # one line per layer and operation, as `pario results compare`: 80 columns hold the interval
    cols = [Col("layer", "id"), Col("op", "id"), Col("MiB/s\nmedian [min-max]", "num", "right"),
            Col("/ mpiio-coll [95%]\nverdict", "text", "right"), Col("notes", "text", aside=True)]
    cells_of = []
    for e in entries:
        row = by_name[e["name"]]
        lib = row.get("lib") or {}
        version = f"{lib.get('name') or row['backend']} {lib.get('version') or ''}".strip() if lib else "MPI-IO"
        label = e["name"]
        if row["backend"] != "adios2" and "coll" not in label and "indep" not in label:
            label += " (coll)" if e["collective"] else " (indep)"
        notes = [version]
        if e["name"] == e.get("baseline"):
            notes.append("baseline")
        if e.get("vs_blocking"):
            vb = e.get("vs_blocking_noise") or {}
            said = [f"{op} {_against(vb.get(op)).replace(chr(10), ' ')}" for op in ("write", "read") if vb.get(op)]
            if said:   # a ratio with no interval nor verdict is not printed ('write 1.14x, read 0.70x' was)
                notes.append(f"{e['mode']} vs blocking: " + ", ".join(said))
        v = e.get("verify")
        if v:
            notes.append("verified" if not v["errors"] else f"verify: {v['errors']} errors")
        eff = _effective_note(row)
        if eff:
            notes.append(eff)
        notes += [f for f in row["flags"] if f != "verify-errors"]
        ops = [op for op in ("write", "read") if e.get(op)]
        for i, op in enumerate(ops):
            cells_of.append([label if i == 0 else "", op, spread(e[op]), _against(e.get(f"{op}_vs")),
                             "; ".join(notes) if i == 0 else ""])
    lines = []
    base = next((r for r in rows if r["name"] == next((e["baseline"] for e in entries if e["baseline"]), None)), None)
    if base:
        lines.append(f"Same global array through every layer: {human(base.get('bytes') or 0)} per phase over "
                     f"{count(base.get('ranks'), 'rank')}; ratio = layer median / mpiio collective median; "
                     "faster or slower: "
                     "the 95% bootstrap interval of the ratio excludes 1 (the test of `pario results compare`); "
                     "within noise: it includes 1; too few reps: under 3 a side.")
    libs = result.get("libraries") or {}
    if libs or result.get("cases"):
        for backend in dict.fromkeys(r[1] for r in layers.ROWS):
            if backend != "mpiio" and backend not in libs:
                lines.append(f"{backend}: not built, no row: {layers.INSTALL[backend]}.")
    return cols, cells_of, lines


def print_layers(console: Console, rows: list[dict], result: dict, title: str | None = None) -> None:
    cols, cells, lines = layers_table(rows, result)
    print_fit(console, cols, cells, f"{title}\n{HEAD}" if title else HEAD)
    for line in lines:
        console.print(line, highlight=False)


def print_libraries(console: Console, rows: list[dict], result: dict, detail: bool = True) -> None:
    """Library versions, and per layer what the library reported it did (requested settings too)."""
    used = [r for r in rows if r.get("lib")]
    if not used:
        return
    libs = result.get("libraries") or {}
    console.print("Libraries: " + (", ".join(f"{k} {v}" for k, v in libs.items()) if libs else "?")
                  + ("" if detail else " (`pario results show ID` lists what each reported it did)"))
    for row in used if detail else []:
        lib = row["lib"]
        req = lib.get("requested") or {}
        eff = lib.get("effective") or {}
        said = ", ".join(f"{k}={v}" for k, v in eff.items()) or "nothing reported"
        asked = f" (asked: {', '.join(f'{k}={v}' for k, v in req.items())})" if req else ""
        console.print(escape(f"  {row['name']}{asked}: {said}"), overflow="fold")


def print_run(console: Console, run: dict, rows: list[dict]) -> None:
    """`pario results show`: the general view of the data cases, then the layers and metadata parts."""
    data = [r for r in rows if r.get("workload") != "metadata"]
    if data:
        runs.print_run(console, run, data)
    else:  # a metadata-only run: the environment lines without an empty bandwidth table
        for line in runs.env_lines(run):
            console.print(line)
    print_extras(console, rows, run.get("result") or {})
