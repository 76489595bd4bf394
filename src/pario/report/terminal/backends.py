"""`pario bench --list`: the engine's backends, whether each is built, and how to get it if not."""
from __future__ import annotations

from typing import Any

from rich.console import Console

from pario.report.terminal.fit import Col, print_fit


def print_backends(console: Console, listing: dict[str, Any]) -> None:
    """In pario's table style (fit.py): a setting such as UseSelectiveMetadataAggregation stays
    whole (folding cut it as "...Agg" / "regation"); lists break after their commas."""
    cols = [Col("backend", "id"), Col("built", "id"), Col("version", "id"),
            Col("capabilities / how to get it", "text"), Col("--lib settings", "id")]
    rows = [[b["name"], "yes" if b.get("built") else "no", b.get("version") or "",
             ", ".join(b.get("caps", [])) if b.get("built") else (b.get("missing") or ""),
             ", ".join(b.get("lib_keys") or [])] for b in listing["backends"]]
    print_fit(console, cols, rows, "pario backends")
