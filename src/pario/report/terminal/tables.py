"""The table a user reads after `pario bench` and in `pario results show`: one row per case (or per
case and operation on a narrow terminal), with a footer naming the fastest case and the flags.
Everything here formats rows made by pario.analysis.summary; nothing is computed that --json lacks."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from pario.analysis import noise
from pario.analysis.labels import COLLECTIVE_BACKENDS, case_labels, config_words  # noqa: F401 (tables' names)
from pario.analysis.summary import FLAG_HELP, OPS
from pario.analysis.verdicts import winner
from pario.report.terminal.cells import iops, num, pct, rate, size, times
from pario.report.terminal.fit import Col, fits, print_fit


def _pair(row: dict, key: str, fmt) -> str:
    """write / read values of one statistic in one cell."""
    values = [fmt(row[op][key]) if row.get(op) else "-" for op in OPS]
    if values[1] == "-":
        return values[0]
    return "/".join(values)


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


def print_summary(console: Console, rows: list[dict], title: str | None = None) -> None:
    """The table a user reads after `pario bench`, with a footer naming the fastest case: one line
    per case when it fits the terminal, else one line per case and operation (fit.py: never a cut
    word or number; notes go under the table when even that is too wide)."""
    if not rows:
        console.print("no cases in this run")
        return
    wide_cols, wide_rows = _wide(rows)
    long_cols, long_rows = _long(rows)
    if fits(console.width, wide_cols, wide_rows):
        print_fit(console, wide_cols, wide_rows, title)
    elif fits(console.width, long_cols, long_rows) or not fits(console.width, wide_cols, wide_rows, aside=True):
        print_fit(console, long_cols, long_rows, title)
    else:
        print_fit(console, wide_cols, wide_rows, title)
    for line in footer_lines(rows):
        console.print(line)


def summary_table(rows: list[dict]) -> tuple[list[Col], list[list[str]]]:
    """The table of `pario bench` and `pario results show`, one line per case (the HTML page shows it too)."""
    return _wide(rows)


def _wide(rows: list[dict]) -> tuple[list[Col], list[list[str]]]:
    """One line per case: write and read side by side."""
    has_read = any(r.get("read") for r in rows)
    wr = " w/r" if has_read else ""
    cols = [Col("case", "id"), Col("write MiB/s\nmedian [min-max]", "num", "right")]
    if has_read:
        cols.append(Col("read MiB/s\nmedian [min-max]", "num", "right"))
    cols += [Col("IOPS\n" + wr, "num", "right"), Col("open+close\n" + wr, "num", "right"),
             Col("imbalance\n" + wr, "num", "right"), Col("notes", "text", aside=True)]
    out = []
    for label, row in zip(case_labels(rows), rows):
        cells = [label, rate(row.get("write"))]
        if has_read:
            cells.append(rate(row.get("read")))
        cells += [_pair(row, "iops", iops), _pair(row, "open_close_share", pct),
                  _pair(row, "imbalance", times), op_notes(row)]
        out.append(cells)
    return cols, out


def _long(rows: list[dict]) -> tuple[list[Col], list[list[str]]]:
    """One line per case and operation, for narrow terminals."""
    cols = [Col("case", "id"), Col("op", "id"), Col("MiB/s\nmedian [min-max]", "num", "right"),
            Col("IOPS", "num", "right"), Col("open+\nclose", "num", "right"), Col("imbal-\nance", "num", "right"),
            Col("notes", "text", aside=True)]
    out = []
    for label, row in zip(case_labels(rows), rows):
        ops = [op for op in OPS if row.get(op)] or ["write"]
        for i, op in enumerate(ops):
            stats = row.get(op) or {}
            out.append([label if i == 0 else "", op, rate(stats), iops(stats.get("iops")),
                        pct(stats.get("open_close_share")), times(stats.get("imbalance")),
                        op_notes(row, op) if row.get(op) else op_notes(row)])
    return cols, out


def _names(labels: dict, names: list[str]) -> str:
    shown = [escape(labels[n]) for n in names[:3]]
    return ", ".join(shown) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def verdict_lines(rows: list[dict], labels: dict[str, str]) -> list[str]:
    """The fastest case of each operation, named only when the noise test supports it, and what
    to make of it when every figure is page cache."""
    lines = []
    for op in OPS:
        w = winner(rows, op)
        if w is None:
            continue
        best = escape(labels[w["best"]])
        v = w["vs_runner_up"]
        against = f"{v['ratio']:.2f}x {escape(labels[w['runner_up']])}" + (
            f" [{v['low']:.2f}-{v['high']:.2f}]" if v.get("low") is not None else "")
        if w["clear"]:
            lines.append(f"Fastest {op} here: {best} at {num(w['median'])} MiB/s (median of {w['n']}), {against}.")
        elif w["undecided"]:
            fewest = min(r[op]["bw_mib"]["n"] for r in rows if r.get(op))
            lines.append(f"No verdict on the fastest {op}: {fewest} repetition{'s are' if fewest != 1 else ' is'} "
                         f"too few to tell a difference from the noise ({w['min_samples']} or more: "
                         f"-i {w['min_samples']}); highest median: {best} at {num(w['median'])} MiB/s.")
        else:
            tie = _names(labels, w["ties"])
            t = w.get("vs_tie") or v   # the interval that includes 1 is a tie's, not the runner-up's
            quoted = f"{t['ratio']:.2f}x {escape(labels[w['ties'][0]])}" + (
                f" [{t['low']:.2f}-{t['high']:.2f}]" if t.get("low") is not None else "")
            lines.append(f"No clear fastest {op}: {best} has the highest median ({num(w['median'])} MiB/s), "
                         f"but {tie} {'is' if len(w['ties']) == 1 else 'are'} within the noise of it "
                         f"({quoted} includes 1).")
        if w["all_cache"]:
            if "cache?" in w["cache_flags"] and all("cache?" in r[op]["flags"] for r in rows if r.get(op)):
                what = f"Every {op} figure here is above the device ceiling (cache?): page cache, not the device"
            else:
                what = (f"Every {op} figure here may come from page cache "
                        f"({', '.join(w['cache_flags'])}), not the device")
            fix = ("--odirect, -e (fsync inside the timed phase) or a --size above twice RAM" if op == "write" else
                   "--odirect, --drop-caches (evicts the run's files before each read) or a --size above twice RAM")
            lines.append(f"{what}; the comparison is of memory copies. For device figures: {fix}.")
    if lines:
        lines.append(f"Fastest: named only when faster than every other case beyond the noise (bootstrap "
                     f"{noise.LEVEL:.0%} interval of the ratio of medians, shown in brackets, above 1).")
    return lines


def footer_lines(rows: list[dict]) -> list[str]:
    labels = dict(zip((r["name"] for r in rows), case_labels(rows)))
    lines = verdict_lines(rows, labels)
    lines.append("MiB/s: open-to-close (sync included), like IOR; IOPS: I/O calls per second of the transfer "
                 "time alone (open, sync and close left out), so not MiB/s divided by the transfer size; "
                 "open+close: their share of the phase; imbalance: last rank done / first rank done.")
    lines += flag_lines(rows, labels)
    period = [p for p in ((r.get("verify") or {}).get("repeats_every") for r in rows) if p is not None]
    if period:
        lines.append(f"verified: read back and checked word by word; each rank's data repeats every "
                     f"{size(max(period))} (--buffer SIZE for more distinct data).")
    return lines


def flag_lines(rows: list[dict], labels: dict[str, str] | None = None) -> list[str]:
    """What each flag present means, and the figures behind the cache and warm-up flags."""
    labels = labels or dict(zip((r["name"] for r in rows), case_labels(rows)))
    lines = [f"[bold]{flag}[/bold]: {FLAG_HELP[flag]}." for flag in sorted({f for r in rows for f in r["flags"]})]
    for r in rows:
        for op in OPS:
            up = (r.get(op) or {}).get("warmup")
            if up:
                slower = f"{up['factor']:.1f}x slower" if up.get("factor") else "slower"
                lines.append(escape(f"  warm-up?: {labels[r['name']]} {op}: first repetition {num(up['first'])} "
                                    f"MiB/s, {slower} than the median of the others ({num(up['others_median'])})."))
    lines += [escape(f"  {labels[r['name']]}: {line}") for r in rows for line in r.get("ior_notes", [])]
    # one line per case, as the warm-up lines (six cases ran on as one paragraph of 16 lines)
    details = [escape(f"  above the ceiling: {labels[r['name']]}: {', '.join(r['cache_details'])}.")
               for r in rows if r.get("cache_details")]
    if details:
        lines += details
        probe = next((r["ceiling"] for r in rows if r.get("ceiling")), None)
        if probe and probe["streams"] < probe["ranks_per_host"]:
            lines.append(f"  (ceiling: O_DIRECT probe with {probe['streams']} stream"
                         f"{'s' if probe['streams'] != 1 else ''}; this run has {probe['ranks_per_host']} "
                         "ranks on a host)")
    return lines + residency_lines(rows, labels)


_EVICTED = {"files": "evicted: fsync + POSIX_FADV_DONTNEED",
            "system": "evicted: fsync + POSIX_FADV_DONTNEED + drop_caches"}


def residency_lines(rows: list[dict], labels: dict[str, str]) -> list[str]:
    """What the engine measured of the page cache before each read: the line under the table."""
    out = []
    for r in rows:
        for op in OPS:
            res = (r.get(op) or {}).get("resident")
            if not res:
                continue
            shares = res["samples"]
            how = _EVICTED.get(res.get("evicted") or "")
            if len({f"{x:.0%}" for x in shares}) == 1:
                each = "before each of" if len(shares) > 1 else "before its"
                what = f"{shares[0]:.0%} resident {each} {len(shares)} repetition{'s' if len(shares) != 1 else ''}"
            else:
                what = (f"{', '.join(f'{x:.0%}' for x in shares)} resident before repetitions 1-{len(shares)}")
            out.append(escape(f"  {labels[r['name']]} {op}: {what}" + (f" ({how})" if how else "")))
    if out:
        out.insert(0, "Page cache before the reads (measured with mincore): share of the case's files resident")
    return out
