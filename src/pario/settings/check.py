"""`pario settings check`: every problem of a settings file, against the catalogue and the stack
it will run on (unknown keys, bad values, settings the MPI-IO implementation ignores). Pure."""
from __future__ import annotations

from typing import Any

from pario.settings import dialects
from pario.settings.dialects import sniff
from pario.settings.equivalence import explain
from pario.settings.model import build, check_one, not_a_hint


def findings(text: str, stack_view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every problem of a settings text, one dict each: level, line (or None), message."""
    dialect = sniff(text)
    out: list[dict] = []
    if dialect == "romio":
        seen: dict[str, int] = {}
        good = []
        for lineno, key, value in dialects.romio_pairs(text):
            if not key:
                out.append({"level": "error", "line": lineno, "message": f"expected 'key value', got {value!r}"})
                continue
            ok, issue = check_one(key, value)
            if ok is not None and ok[0] != "hints":  # mca.*, lustre.*, fcoll...: ROMIO reads MPI_Info keys only
                issue = not_a_hint(key)
            if issue:
                out.append({"level": "error", "line": lineno, "message": issue.message})
                continue
            if key in seen:
                out.append({"level": "warning", "line": lineno,
                            "message": f"{key} is also set on line {seen[key]}; ROMIO keeps one of them"})
            seen[key] = lineno
            good.append((key, value))
        settings, more = build(good)  # "mpi" syntax: the MPI reads the file as written
        out += [{"level": i.level, "line": None, "message": i.message} for i in more]
    else:
        settings, issues = dialects.parse(text, dialect)
        out += [{"level": i.level, "line": None, "message": i.message} for i in issues]
        seen = {}
    _, applied = explain(settings, stack_view)
    for a in applied:
        level = "note" if a.rule in ("default", "alias", "mca-equals-hint", "cb_nodes-range", "not-read-here",
                                     "cb_config_list-clip", "lustre-stripe-clip", "lustre-write-buffer") else "warning"
        out.append({"level": level, "line": seen.get(a.key) if isinstance(seen, dict) else None,
                    "message": f"{a.key}: {a.text}" + (f" (becomes {a.after})" if a.after is not None else "")
                               + f" [{a.source}]"})
    return out
