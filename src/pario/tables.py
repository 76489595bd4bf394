"""Terminal rendering of summaries, run lists, comparisons and hints with rich.
Everything here formats rows made by pario.summary; nothing is computed that --json lacks."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .summary import FLAG_HELP, OPS, fastest, summarize

# Backends whose cases may be collective or independent: the table says which.
COLLECTIVE_BACKENDS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _rate(stats: dict | None) -> str:
    if not stats or not stats.get("bw_mib"):
        return "-"
    s = stats["bw_mib"]
    if s["n"] < 2:
        return f"{_num(s['median'])} (1 rep)"
    return f"{_num(s['median'])} [{_num(s['min'])}-{_num(s['max'])}]"


def _iops(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _times(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _pair(row: dict, key: str, fmt) -> str:
    """write / read values of one statistic in one cell."""
    values = [fmt(row[op][key]) if row.get(op) else "-" for op in OPS]
    if values[1] == "-":
        return values[0]
    return "/".join(values)


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def case_labels(rows: list[dict]) -> list[str]:
    """strategy/backend, plus whatever else tells the cases apart (pattern, transfer size,
    collective), plus the case name if that is still not enough."""
    labels = [f"{r['strategy']}/{r['backend']}" for r in rows]
    extras = (("pattern", lambda r: r["pattern"]),
              ("xfer", lambda r: f"t={_size(r['xfer'])}"),
              ("collective", lambda r: ("coll" if r["collective"] else "indep")
               if r["backend"] in COLLECTIVE_BACKENDS else ""))
    for key, fmt in extras:
        if len({r[key] for r in rows}) > 1:
            labels = [f"{lab} {fmt(r)}".rstrip() for lab, r in zip(labels, rows)]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} ({r['name']})" for lab, r in zip(labels, rows)]
    return labels


def _notes(row: dict, op: str | None = None) -> str:
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


def _table(title: str | None) -> Table:
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)


def _wide_table(rows: list[dict], title: str | None) -> Table:
    """One line per case: write and read side by side."""
    has_read = any(r.get("read") for r in rows)
    wr = " w/r" if has_read else ""
    # Figures never wrap (a cut range would mislead); case names and notes may.
    table = _table(title)
    table.add_column("case", overflow="fold")
    table.add_column(escape("write MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    if has_read:
        table.add_column(escape("read MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("IOPS\n" + wr, justify="right", no_wrap=True)
    table.add_column("open+close\n" + wr, justify="right", no_wrap=True)
    table.add_column("imbalance\n" + wr, justify="right", no_wrap=True)
    table.add_column("notes", overflow="fold")
    for label, row in zip(case_labels(rows), rows):
        cells = [label, _rate(row.get("write"))]
        if has_read:
            cells.append(_rate(row.get("read")))
        cells += [_pair(row, "iops", _iops), _pair(row, "open_close_share", _pct),
                  _pair(row, "imbalance", _times), _notes(row)]
        table.add_row(*(Text(c) for c in cells))
    return table


def _long_table(rows: list[dict], title: str | None) -> Table:
    """One line per case and operation, for narrow terminals."""
    table = _table(title)
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
                label if i == 0 else "", op, _rate(stats), _iops(stats.get("iops")),
                _pct(stats.get("open_close_share")), _times(stats.get("imbalance")),
                _notes(row, op) if row.get(op) else _notes(row))))
    return table


def footer_lines(rows: list[dict]) -> list[str]:
    labels = dict(zip((r["name"] for r in rows), case_labels(rows)))
    lines = []
    for op in OPS:
        best = fastest(rows, op)
        if best and len([r for r in rows if r.get(op)]) > 1:
            s = best[op]["bw_mib"]
            lines.append(f"Fastest {op} here: {escape(labels[best['name']])} at {_num(s['median'])} MiB/s "
                         f"(median of {s['n']}).")
    lines.append("MiB/s: open-to-close (sync included), like IOR; imbalance: last rank done / first rank done.")
    present = sorted({f for r in rows for f in r["flags"]})
    for flag in present:
        lines.append(f"[bold]{flag}[/bold]: {FLAG_HELP[flag]}.")
    period = [p for p in ((r.get("verify") or {}).get("repeats_every") for r in rows) if p is not None]
    if period:
        lines.append(f"verified: read back and checked word by word; each rank's data repeats every "
                     f"{_size(max(period))} (--buffer SIZE for more distinct data).")
    details = [escape(f"{labels[r['name']]}: {', '.join(r['cache_details'])}") for r in rows if r.get("cache_details")]
    if details:
        lines.append("  above the ceiling: " + "; ".join(details))
    return lines


def print_runs(console: Console, runs: list[dict]) -> None:
    if not runs:
        console.print("no runs stored yet; `pario bench` makes one")
        return
    table = _table(None)
    table.add_column("id", justify="right", no_wrap=True)
    table.add_column("created (UTC)", no_wrap=True)
    for name in ("kind", "status", "command", "summary"):
        table.add_column(name)
    for run in runs:
        command = run["command"] if len(run["command"]) <= 60 else run["command"][:57] + "..."
        created = run["created"].replace("T", " ")[:16]
        table.add_row(*(Text(c) for c in (str(run["id"]), created, run["kind"], run["status"],
                                           command, run.get("headline", ""))))
    console.print(table)
    console.print("`pario results show ID` for one run, `pario results compare ID ID` for two.")


def print_compare(console: Console, cmp: list[dict], title: str | None = None) -> None:
    if not cmp:
        console.print("nothing to compare: both runs have no cases")
        return
    table = _table(title)
    table.add_column("case (A -> B)", overflow="fold", min_width=12)
    table.add_column("op")
    table.add_column(escape("A MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column(escape("B MiB/s\nmedian [min-max]"), justify="right", no_wrap=True)
    table.add_column("B/A", justify="right", no_wrap=True)
    table.add_column("verdict", overflow="fold")
    for entry in cmp:
        if entry["name_a"] == entry["name_b"]:
            name = entry["name_a"]
        else:
            name = f"{entry['name_a'] or '-'} -> {entry['name_b'] or '-'}"
        if entry["matched_by"] not in ("name", "shape"):
            name += f" ({entry['matched_by']})"
        ops = [op for op in OPS if entry[op]]
        if not ops:
            table.add_row(Text(name), "", "", "", "", "")
        for i, op in enumerate(ops):
            c = entry[op]
            table.add_row(*(Text(x) for x in (
                name if i == 0 else "", op, _rate({"bw_mib": c["a"]}), _rate({"bw_mib": c["b"]}),
                "-" if c["ratio"] is None else f"{c['ratio']:.2f}", c["verdict"])))
    console.print(table)
    console.print("within noise: the min-max ranges over repetitions overlap, so the difference "
                  "is not established.")


def _hint_rows(hints: dict) -> list[tuple]:
    """(hint, requested, effective, verdict) per requested hint: from the measured check that
    pario.settings.effective wrote into the case, else from comparing the two dicts."""
    if hints.get("check"):
        return [(r["key"], r["requested"], "-" if r.get("effective") is None else str(r["effective"]),
                 r["status"] + (f": {r['reason']}" if r.get("reason") else "")) for r in hints["check"]]
    requested = hints.get("requested") or {}
    effective = hints.get("effective") or {}
    rows = []
    for key, want in sorted(requested.items()):
        if key not in effective:
            rows.append((key, str(want), "-", "not applied (absent after open)"))
        elif str(effective[key]).strip().lower() != str(want).strip().lower():
            rows.append((key, str(want), str(effective[key]), f"not applied (is {effective[key]})"))
        else:
            rows.append((key, str(want), str(effective[key]), "in effect"))
    return rows


def not_applied(hints: dict) -> list[str]:
    """Requested hint names that did not take effect."""
    return [key for key, _, _, status in _hint_rows(hints) if status.startswith("not applied")]


def _env_lines(run: dict) -> list[str]:
    env, result = run.get("env") or {}, run.get("result") or {}
    mpi = result.get("mpi") or {}
    lines = [f"[bold]run {run['id']}[/bold]  {run['created']}  {run['kind']}  {run['status']}",
             f"command: {escape(run['command'])}"]
    flavour = " ".join(str(env[k]) for k in ("mpi_flavour", "mpi_version") if env.get(k))
    library = mpi.get("library") or env.get("mpi") or flavour
    if library:
        lines.append(f"MPI: {escape(str(library).splitlines()[0].split(',')[0])}")
    facts = []
    if env.get("io_component"):
        facts.append(f"io component: {env['io_component']}")
    ranks = env.get("ranks") or mpi.get("ranks")
    if ranks:
        facts.append(f"ranks: {ranks}")
    hosts = env.get("hosts") or mpi.get("hosts")
    if hosts:
        names = [h.get("name", "?") if isinstance(h, dict) else str(h) for h in hosts]
        facts.append(f"hosts: {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}")
    if env.get("dir"):
        facts.append(f"dir: {escape(str(env['dir']))}")
    if facts:
        lines.append("  ".join(facts))
    ceiling = env.get("ceiling") or {}
    if ceiling.get("write_mib") or ceiling.get("read_mib"):
        lines.append(f"device ceiling (O_DIRECT probe): write {_num(ceiling.get('write_mib'))} MiB/s, "
                     f"read {_num(ceiling.get('read_mib'))} MiB/s")
    if result.get("error"):
        err = result["error"]
        lines.append(f"[red]error[/red]: {escape(str(err.get('message', err)))}")
    return lines


def print_run(console: Console, run: dict, rows: list[dict] | None = None) -> None:
    """One stored run: what ran where, its summary table, and requested vs effective hints."""
    if rows is None:
        rows = summarize(run.get("result") or {}, run.get("env"))
    for line in _env_lines(run):
        console.print(line)
    print_summary(console, rows)
    print_hints(console, (run.get("result") or {}).get("cases") or [])


def print_hints(console: Console, cases: list[dict]) -> None:
    """Requested vs effective settings of each case (grouped when cases share them), the means
    that measured them, and the Lustre layout pario applied or why it did not."""
    groups: dict = {}
    for case in cases:
        hints = case.get("hints") or {}
        if hints.get("requested") or hints.get("effective"):
            key = (repr(sorted((hints.get("requested") or {}).items()))
                   + repr(sorted((hints.get("effective") or {}).items())))
            groups.setdefault(key, (hints, []))[1].append(case["name"])
    for hints, names in groups.values():
        more = ", ..." if len(names) > 3 else ""
        scope = names[0] if len(names) == 1 else f"{len(names)} cases ({', '.join(names[:3])}{more})"
        rows_h = _hint_rows(hints)
        if not rows_h:
            effective = hints.get("effective") or {}
            console.print(f"hints of {scope}: none requested; {len(effective)} in effect (--json lists them)")
            continue
        source = hints.get("source") or "the MPI library after open"
        table = _table(escape(f"hints of {scope} (effective: as reported by {source})"))
        for name in ("hint", "requested", "effective", ""):
            table.add_column(name, overflow="fold")
        for key, want, got, status in rows_h:
            style = None if status == "in effect" else ("yellow" if status.startswith("unverified") else "red")
            table.add_row(Text(key), Text(want), Text(got), Text(status, style=style or ""))
        console.print(table)
        if hints.get("get_info") and hints.get("source") != "MPI_File_get_info":
            echo = hints["get_info"] == hints.get("requested")
            console.print(f"  (MPI_File_get_info {'only echoed the requested' if echo else 'returned'} "
                          f"{len(hints['get_info'])} key(s); --json keeps them as get_info)")
    for case in cases:
        lay = case.get("layout")
        if lay:
            state = "applied" if lay.get("applied") else "not applied"
            detail = lay.get("reason") or ", ".join(f"{k} {v}" for k, v in (lay.get("effective") or {}).items()
                                                   if k.startswith("stripe"))
            miss = f"; differs: {', '.join(lay['mismatch'])}" if lay.get("mismatch") else ""
            console.print(escape(f"layout of {case['name']} ({lay.get('command')}): {state}: {detail}{miss}"),
                          style=None if lay.get("applied") and not miss else "red")
