"""`pario settings keys` as a table."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text


def print_keys(console: Console, rows: list[dict[str, Any]]) -> None:
    table = Table(title="pario settings keys", title_justify="left")
    for col in ("key", "type", "default", "honoured by", "meaning"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(*(Text(str(x)) for x in (r["key"], r["kind"], r["default"] or "-",
                                                ",".join(r["honoured_by"]), r["doc"])))
    console.print(table)
