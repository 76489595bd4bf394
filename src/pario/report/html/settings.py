"""Requested against effective settings, side by side: MPI-IO hints (with the verdict the terminal
prints, from the same rows), library settings, and the Lustre layout pario applied."""
from __future__ import annotations

from pario.report.html import anchors
from pario.report.html.page import Cell, Note, Table
from pario.report.terminal.hints import hint_rows


def _mark(status: str) -> str:
    if status == "in effect":
        return "ok"
    return "warn" if status.startswith("unverified") else "bad"


def items(run_id: int | str, cases: list[dict], rows: list[dict]) -> list[Table | Note]:
    out: list[Table | Note] = []
    table_rows: list[list[Cell | str]] = []
    for case in cases:
        hints = case.get("hints") or {}
        source = hints.get("source") or "the MPI library after open"
        for key, want, got, status in hint_rows(hints):
            table_rows.append([case.get("name", "?"), "hint", key, want, Cell(got, mark="wrap"),
                               Cell(status, mark=f"{_mark(status)} wrap"), Cell(source, mark="wrap")])
        effective = hints.get("effective") or {}
        if effective and not hints.get("requested") and not hints.get("check"):
            table_rows.append([case.get("name", "?"), "hint", f"({len(effective)} in effect)", "none", Cell(", ".join(
                f"{k}={v}" for k, v in sorted(effective.items())), mark="wrap"), "", source])
    for row in rows:
        lib = row.get("lib") or {}
        req, eff = lib.get("requested") or {}, lib.get("effective") or {}
        for key in list(req) + [k for k in eff if k not in req]:
            got = eff.get(key)
            # no verdict: a library reports its settings in its own units and names (alignment=1m
            # is reported as 1048576), so equal strings are not the test; both sides are shown
            table_rows.append([row["name"], lib.get("name") or row["backend"], key,
                               "-" if key not in req else str(req[key]),
                               Cell("-" if got is None else str(got), mark="wrap"),
                               "", Cell(lib.get("source") or "", mark="wrap")])
    if table_rows:
        out.append(Table(anchors.run(run_id, "settings"), "Requested and effective settings",
                         ["case", "layer", "setting", "requested", "effective", "verdict", "effective as reported by"],
                         table_rows, "Side by side: what was asked, and what the MPI library or the I/O library "
                                     "said was in effect after the open.", sortable=True))
    elif any(case.get("hints") is not None for case in cases):
        sources = sorted({(case.get("hints") or {}).get("source") or "" for case in cases} - {""})
        out.append(Note("Settings: none was requested, and " + (
            f"the MPI library reported none in effect ({', '.join(sources)})." if sources else
            "no case used MPI-IO, so no hints apply.")))
    for case in cases:
        lay = case.get("layout")
        if lay:
            state = "applied" if lay.get("applied") else "not applied"
            detail = lay.get("reason") or ", ".join(f"{k} {v}" for k, v in (lay.get("effective") or {}).items()
                                                   if k.startswith("stripe"))
            miss = f"; differs: {', '.join(lay['mismatch'])}" if lay.get("mismatch") else ""
            out.append(Note(f"Layout of {case.get('name')} ({lay.get('command')}): {state}: {detail}{miss}",
                            "info" if lay.get("applied") and not miss else "warn"))
    return out
