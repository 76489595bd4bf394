"""Requested against effective settings of each case (grouped when cases share them), the means
that measured them, and the Lustre layout pario applied or why it did not."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from pario.model.units import count
from pario.report.terminal.cells import new_table


def hint_rows(hints: dict) -> list[tuple]:
    """(hint, requested, effective, verdict) per requested hint: from the measured check that
    pario.settings.effective wrote into the case, else from comparing the two dicts."""
    if hints.get("check"):
        return [(r["key"], r["requested"], "-" if r.get("effective") is None else str(r["effective"]),
                 r["status"] + (f": {r['reason']}" if r.get("reason") else "")) for r in hints["check"]]
    return _dict_rows(hints)


def file_column(hints: dict) -> list[str] | None:
    """What the file itself has for each row (the striping hints on CephFS), or None when no row says."""
    rows = hints.get("check") or []
    if not any("file" in r for r in rows):
        return None
    return [str(r.get("file", "")) for r in rows]


def _sources(hints: dict) -> dict[str, str]:
    """Where each checked setting came from, when some came from the environment."""
    got = {r["key"]: r.get("from") or "pario" for r in hints.get("check") or []}
    return got if any(v != "pario" for v in got.values()) else {}


def _dict_rows(hints: dict) -> list[tuple]:
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
    return [key for key, _, _, status in hint_rows(hints) if status.startswith("not applied")]


def print_hints(console: Console, cases: list[dict]) -> None:
    """Requested vs effective settings of each case (grouped when cases share them), the means
    that measured them, and the Lustre layout pario applied or why it did not."""
    groups: dict = {}
    for case in cases:
        hints = case.get("hints") or {}
        if hints.get("requested") or hints.get("effective") or hints.get("check"):
            key = (repr(sorted((hints.get("requested") or {}).items()))
                   + repr(sorted((hints.get("effective") or {}).items()))
                   + repr([(r["key"], r.get("from")) for r in hints.get("check") or []]))
            groups.setdefault(key, (hints, []))[1].append(case["name"])
    for hints, names in groups.values():
        more = ", ..." if len(names) > 3 else ""
        scope = names[0] if len(names) == 1 else f"{len(names)} cases ({', '.join(names[:3])}{more})"
        rows_h = hint_rows(hints)
        if not rows_h:
            effective = hints.get("effective") or {}
            console.print(f"hints of {scope}: none requested; {len(effective)} in effect (--json lists them)")
            continue
        source = hints.get("source") or "the MPI library after open"
        table = new_table(escape(f"hints of {scope} (effective: as reported by {source})"))
        origin = _sources(hints)
        files = file_column(hints)
        for name in ("hint", "requested", "effective", *(["file has"] if files else []), "",
                     *(["set by"] if origin else [])):
            table.add_column(name, overflow="fold")
        for i, (key, want, got, status) in enumerate(rows_h):
            style = None if status.startswith("in effect") else ("yellow" if status.startswith("unverified") else "red")
            cells = [Text(key), Text(want), Text(got), *([Text(files[i])] if files else []),
                     Text(status, style=style or "")]
            table.add_row(*cells, *([Text(origin.get(key, "pario"))] if origin else []))
        console.print(table)
        if hints.get("get_info") and hints.get("source") != "MPI_File_get_info":
            echo = hints["get_info"] == hints.get("requested")
            console.print(f"  (MPI_File_get_info {'only echoed the requested' if echo else 'returned'} "
                          f"{count(len(hints['get_info']), 'key')}; --json keeps them as get_info)")
    for case in cases:
        lay = case.get("layout")
        if lay and lay.get("from") == "hints" and case.get("fs_layout"):
            continue  # the striping hints' rows above say what the file got
        if lay:
            state = "applied" if lay.get("applied") else "not applied"
            detail = lay.get("reason") or ", ".join(f"{k} {short_layout(k, v)}"
                                                   for k, v in (lay.get("effective") or {}).items()
                                                   if k.startswith("stripe") or k == "object_size")
            miss = f"; differs: {', '.join(lay['mismatch'])}" if lay.get("mismatch") else ""
            after = (case.get("fs_layout") or {}).get("value")
            when = "its top directory, read back" if lay.get("target") == "tree" else "after the write"
            kept = f"; {when}: {after}" if after and lay.get("applied") else ""
            console.print(escape(f"layout of {case['name']} ({lay.get('command')}): {state}: {detail}{miss}{kept}"),
                          style=None if lay.get("applied") and not miss else "red")


def short_layout(key: str, value) -> str:
    """A layout field as the table shows it: sizes in binary units."""
    from pario.model.units import short
    sizes = ("stripe_unit", "stripe_size", "object_size")
    return short(value) if key in sizes and isinstance(value, int) else str(value)
