"""`pario settings keys` as a table."""
from __future__ import annotations

from typing import Any

from rich.console import Console

from pario.report.terminal.fit import Col, print_fit


def print_keys(console: Console, rows: list[dict[str, Any]]) -> None:
    """In pario's table style (fit.py): a key such as romio_no_indep_rw stays whole (folding cut it
    as "romio_no_indep_r" / "w"); the meaning wraps at its spaces."""
    cols = [Col("key", "id"), Col("type", "id"), Col("default", "id"), Col("honoured by", "id"),
            Col("meaning", "text")]
    cells = [[str(x) for x in (r["key"], r["kind"], r["default"] or "-", ",".join(r["honoured_by"]), r["doc"])]
             for r in rows]
    print_fit(console, cols, cells, "pario settings keys")
