"""How one figure looks in a terminal table: rates as median [min-max], IOPS, shares, sizes; and
the one table style every pario table uses."""
from __future__ import annotations

from typing import Callable

from rich import box
from rich.table import Table

from pario.model.units import exact


def num(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def rate(stats: dict | None) -> str:
    if not stats or not stats.get("bw_mib"):
        return "-"
    s = stats["bw_mib"]
    if s["n"] < 2:
        return f"{num(s['median'])} (1 rep)"
    return f"{num(s['median'])} [{num(s['min'])}-{num(s['max'])}]"


def iops(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def times(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def size(n: int | None) -> str:
    return "?" if n is None else exact(n, "GMk")


def new_table(title: str | None) -> Table:
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)


def spread(s: dict | None, fmt: Callable[[float | None], str] = num) -> str:
    """A spread of pario.analysis.summary (median, min, max, n) as 'median [min-max]'."""
    if not s:
        return "-"
    if s["n"] < 2:
        return f"{fmt(s['median'])} (1 rep)"
    return f"{fmt(s['median'])} [{fmt(s['min'])}-{fmt(s['max'])}]"
