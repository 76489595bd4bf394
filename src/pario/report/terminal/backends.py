"""`pario bench --list`: the engine's backends, whether each is built, and how to get it if not."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def print_backends(console: Console, listing: dict[str, Any]) -> None:
    table = Table(title="pario backends", title_justify="left")
    for col in ("backend", "built", "version", "capabilities / how to get it", "--lib settings"):
        table.add_column(col, overflow="fold")
    for b in listing["backends"]:
        table.add_row(b["name"], "yes" if b.get("built") else "no", b.get("version") or "",
                      ", ".join(b.get("caps", [])) if b.get("built") else (b.get("missing") or ""),
                      ", ".join(b.get("lib_keys") or []))
    console.print(table)
