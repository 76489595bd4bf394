"""Terminal rendering for the library layers and the metadata workload: the layers table (each
layer against raw MPI-IO on the same bytes), the metadata phases table, and what each library
reported it did. Formats rows of pario.summary and pario.layers; computes nothing --json lacks."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from . import layers, tables
from .spec import human

# The few effective settings worth a glance per library (--json and `results show --json` have all).
_EFFECTIVE = {"hdf5": ("actual_io_mode",), "adios2": ("NumAggregators", "AggregationType")}


def _table(title: str | None) -> Table:
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)


def _spread(s: dict | None, fmt=tables._num) -> str:
    if not s:
        return "-"
    if s["n"] < 2:
        return f"{fmt(s['median'])} (1 rep)"
    return f"{fmt(s['median'])} [{fmt(s['min'])}-{fmt(s['max'])}]"


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def print_bench(console: Console, rows: list[dict], result: dict, title: str | None = None) -> None:
    """What `pario bench` prints after a run: the data table, then the layers comparison, the
    metadata table and the library settings in effect, each when the run has such cases."""
    data = [r for r in rows if r.get("workload") != "metadata"]
    if data and layers.is_layers_run(rows):
        print_layers(console, data, result, title)  # one table says it all; the flags' legend below it
        for line in tables.footer_lines(data)[-len({f for r in data for f in r["flags"]}) - 1:]:
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
    if layers.is_layers_run(rows):
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


def print_layers(console: Console, rows: list[dict], result: dict, title: str | None = None) -> None:
    entries = layers.compare(rows)
    by_name = {r["name"]: r for r in rows}
    has_read = any(e.get("read") for e in entries)
    head = "each I/O layer against raw MPI-IO collective on the same bytes (ratio of medians)"
    table = _table(f"{title}\n{head}" if title else head)
    table.add_column("layer", overflow="fold")
    table.add_column("library", no_wrap=True)
    table.add_column(escape("write MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("write\nvs mpiio", justify="right", no_wrap=True)
    if has_read:
        table.add_column(escape("read MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
        table.add_column("read\nvs mpiio", justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold")
    for e in entries:
        row = by_name[e["name"]]
        lib = row.get("lib") or {}
        version = f"{lib.get('name') or row['backend']} {lib.get('version') or ''}".strip() if lib else "MPI-IO"
        label = e["name"]
        if row["backend"] != "adios2" and "coll" not in label and "indep" not in label:
            label += " (coll)" if e["collective"] else " (indep)"
        notes = []
        if e["name"] == e.get("baseline"):
            notes.append("baseline")
        if e.get("vs_blocking"):
            vb = e["vs_blocking"]
            notes.append(f"{e['mode']} vs blocking: write {_ratio(vb['write'])}"
                         + (f", read {_ratio(vb['read'])}" if vb.get("read") else ""))
        v = e.get("verify")
        if v:
            notes.append("verified" if not v["errors"] else f"verify: {v['errors']} errors")
        eff = _effective_note(row)
        if eff:
            notes.append(eff)
        notes += [f for f in row["flags"] if f != "verify-errors"]
        cells = [label, version, _spread(e["write"]), _ratio(e["write_ratio"])]
        if has_read:
            cells += [_spread(e["read"]), _ratio(e["read_ratio"])]
        cells.append("; ".join(notes))
        table.add_row(*(Text(c) for c in cells))
    console.print(table)
    base = next((r for r in rows if r["name"] == next((e["baseline"] for e in entries if e["baseline"]), None)), None)
    if base:
        console.print(f"Same global array through every layer: {human(base.get('bytes') or 0)} per "
                      f"phase over {base.get('ranks')} ranks; ratio = layer median / mpiio collective median "
                      "(above 1: faster than raw MPI-IO).")
    libs = result.get("libraries") or {}
    if libs or result.get("cases"):
        for backend in dict.fromkeys(r[1] for r in layers.ROWS):
            if backend != "mpiio" and backend not in libs:
                console.print(f"{backend}: not built, no row: {layers.INSTALL[backend]}.")


def print_metadata(console: Console, rows: list[dict], title: str | None = None) -> None:
    """Files per second of each phase (median [min-max] over repetitions) and the exact counts."""
    table = _table(title or "metadata workload: files per second of each phase")
    table.add_column("case", overflow="fold")
    table.add_column("phase", no_wrap=True)
    table.add_column(escape("files/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("files", justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold")
    for row in rows:
        md = row["metadata"]
        tree = (f"{'shared tree' if md.get('shared_dir', True) else 'tree per rank'}, {md.get('files_per_dir')} "
                f"files/dir" + (f", depth {md['depth']} x {md.get('branching')}" if md.get("depth") else "")
                + (f", {human(md['file_size'])} each" if md.get("file_size") else ", empty files"))
        case_notes = [tree, f"created {md.get('created', '?')}, removed {md.get('removed', '?')}"]
        if md.get("left_behind"):
            case_notes.append(f"{md['left_behind']} left behind")
        case_notes += [f for f in row["flags"] if f != "verify-errors"]
        for i, (op, ph) in enumerate(md["phases"].items()):
            notes = list(case_notes) if i == 0 else []
            v = row.get("verify")
            if op == "read_small" and v:
                notes.append(f"verified {human(v['checked_bytes'])}" if not v["errors"]
                             else f"{v['errors']} words differ")
            files = ph.get("files")
            table.add_row(*(Text(c) for c in (
                row["name"] if i == 0 else "", op, _spread(ph.get("files_per_s"), tables._iops),
                "-" if files is None else f"{files:.0f}", "; ".join(notes))))
    console.print(table)
    first = rows[0]["metadata"]
    console.print(f"files/s: files handled by all ranks / time from the first rank's start to the last rank's end "
                  f"of the phase ({first.get('files_per_rep')} files in {first.get('dirs_per_rep')} directories "
                  "per repetition" + (" in the first case)." if len(rows) > 1 else ")."))


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
        tables.print_run(console, run, data)
    else:  # a metadata-only run: the environment lines without an empty bandwidth table
        for line in tables._env_lines(run):
            console.print(line)
    print_extras(console, rows, run.get("result") or {})
