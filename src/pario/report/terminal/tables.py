"""The table a user reads after `pario bench` and in `pario results show`: one row per case (or per
case and operation on a narrow terminal), with a footer naming the fastest case and the flags.
Everything here formats rows made by pario.analysis.summary; nothing is computed that --json lacks."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from pario.analysis.summary import FLAG_HELP, OPS, fastest
from pario.report.terminal.cells import iops, new_table, num, pct, rate, size, times

# Backends whose cases may be collective or independent: the table says which.
COLLECTIVE_BACKENDS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")


def _pair(row: dict, key: str, fmt) -> str:
    """write / read values of one statistic in one cell."""
    values = [fmt(row[op][key]) if row.get(op) else "-" for op in OPS]
    if values[1] == "-":
        return values[0]
    return "/".join(values)


def case_labels(rows: list[dict]) -> list[str]:
    """strategy/backend, plus whatever else tells the cases apart (pattern, transfer size,
    collective), plus the case name if that is still not enough."""
    labels = [f"{r['strategy']}/{r['backend']}" for r in rows]
    extras = (("pattern", lambda r: r["pattern"]),
              ("xfer", lambda r: f"t={size(r['xfer'])}"),
              ("collective", lambda r: ("coll" if r["collective"] else "indep")
               if r["backend"] in COLLECTIVE_BACKENDS else ""))
    for key, fmt in extras:
        if len({r[key] for r in rows}) > 1:
            labels = [f"{lab} {fmt(r)}".rstrip() for lab, r in zip(labels, rows)]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} ({r['name']})" for lab, r in zip(labels, rows)]
    return labels


def op_notes(row: dict, op: str | None = None) -> str:
    """Notes of a case, or of one of its operations (case-wide notes go with its first op)."""
    if op is None:
        notes = list(row["flags"])
    else:
        first = next((o for o in OPS if row.get(o)), None)
        notes = list((row.get(op) or {}).get("flags", []))
        if op == first:
            notes += [f for f in row["flags"] if f in ("partial", "verify-errors")]
        else:
            return ", ".join(notes)
    v = row.get("verify")
    if v and not v["errors"]:
        notes.append("verified")
    elif v:
        notes[notes.index("verify-errors")] = f"verify: {v['errors']} errors"
    return ", ".join(notes)


# Below this many columns the write and read figures go on separate lines of the table.
_WIDE = 118


def print_summary(console: Console, rows: list[dict], title: str | None = None) -> None:
    """The table a user reads after `pario bench`, with a footer naming the fastest case."""
    if not rows:
        console.print("no cases in this run")
        return
    table = _wide_table(rows, title) if console.width >= _WIDE else _long_table(rows, title)
    console.print(table)
    for line in footer_lines(rows):
        console.print(line)


def _wide_table(rows: list[dict], title: str | None) -> Table:
    """One line per case: write and read side by side."""
    has_read = any(r.get("read") for r in rows)
    wr = " w/r" if has_read else ""
    # Figures never wrap (a cut range would mislead); case names and notes may.
    table = new_table(title)
    table.add_column("case", overflow="fold")
    table.add_column(escape("write MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    if has_read:
        table.add_column(escape("read MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("IOPS\n" + wr, justify="right", no_wrap=True)
    table.add_column("open+close\n" + wr, justify="right", no_wrap=True)
    table.add_column("imbalance\n" + wr, justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold")
    for label, row in zip(case_labels(rows), rows):
        cells = [label, rate(row.get("write"))]
        if has_read:
            cells.append(rate(row.get("read")))
        cells += [_pair(row, "iops", iops), _pair(row, "open_close_share", pct),
                  _pair(row, "imbalance", times), op_notes(row)]
        table.add_row(*(Text(c) for c in cells))
    return table


def _long_table(rows: list[dict], title: str | None) -> Table:
    """One line per case and operation, for narrow terminals."""
    table = new_table(title)
    labels = case_labels(rows)
    longest_word = max(len(word) for label in labels for word in label.split())
    table.add_column("case", overflow="fold", min_width=min(longest_word, 14))
    table.add_column("op")
    table.add_column(escape("MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("IOPS", justify="right", no_wrap=True)
    table.add_column("open+\nclose", justify="right", no_wrap=True)
    table.add_column("imbal-\nance", justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold", min_width=8)
    for label, row in zip(labels, rows):
        ops = [op for op in OPS if row.get(op)] or ["write"]
        for i, op in enumerate(ops):
            stats = row.get(op) or {}
            table.add_row(*(Text(c) for c in (
                label if i == 0 else "", op, rate(stats), iops(stats.get("iops")),
                pct(stats.get("open_close_share")), times(stats.get("imbalance")),
                op_notes(row, op) if row.get(op) else op_notes(row))))
    return table


def footer_lines(rows: list[dict]) -> list[str]:
    labels = dict(zip((r["name"] for r in rows), case_labels(rows)))
    lines = []
    for op in OPS:
        best = fastest(rows, op)
        if best and len([r for r in rows if r.get(op)]) > 1:
            s = best[op]["bw_mib"]
            lines.append(f"Fastest {op} here: {escape(labels[best['name']])} at {num(s['median'])} MiB/s "
                         f"(median of {s['n']}).")
    lines.append("MiB/s: open-to-close (sync included), like IOR; imbalance: last rank done / first rank done.")
    present = sorted({f for r in rows for f in r["flags"]})
    for flag in present:
        lines.append(f"[bold]{flag}[/bold]: {FLAG_HELP[flag]}.")
    period = [p for p in ((r.get("verify") or {}).get("repeats_every") for r in rows) if p is not None]
    if period:
        lines.append(f"verified: read back and checked word by word; each rank's data repeats every "
                     f"{size(max(period))} (--buffer SIZE for more distinct data).")
    details = [escape(f"{labels[r['name']]}: {', '.join(r['cache_details'])}") for r in rows if r.get("cache_details")]
    if details:
        lines.append("  above the ceiling: " + "; ".join(details))
    return lines
