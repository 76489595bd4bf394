"""Requested against effective settings of each case (grouped when cases share them), the means
that measured them, and the Lustre layout pario applied or why it did not."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from pario.report.terminal.cells import new_table


def hint_rows(hints: dict) -> list[tuple]:
    """(hint, requested, effective, verdict) per requested hint: from the measured check that
    pario.settings.effective wrote into the case, else from comparing the two dicts."""
    if hints.get("check"):
        return [(r["key"], r["requested"], "-" if r.get("effective") is None else str(r["effective"]),
                 r["status"] + (f": {r['reason']}" if r.get("reason") else "")) for r in hints["check"]]
    return _dict_rows(hints)


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
        for name in ("hint", "requested", "effective", "", *(["set by"] if origin else [])):
            table.add_column(name, overflow="fold")
        for key, want, got, status in rows_h:
            style = None if status == "in effect" else ("yellow" if status.startswith("unverified") else "red")
            cells = [Text(key), Text(want), Text(got), Text(status, style=style or "")]
            table.add_row(*cells, *([Text(origin.get(key, "pario"))] if origin else []))
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
