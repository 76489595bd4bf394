"""`pario profile show` of a job over several nodes: which ranks ran where, and each node's own
I/O (analysis/profile/views.node_view)."""
from __future__ import annotations

from typing import Any

from rich.console import Console

from pario.analysis.nodes import ranks_text
from pario.model.units import seconds as secs
from pario.report.terminal.fit import Col, print_fit


def _bytes(n: float) -> str:
    from pario.model.units import human
    return human(int(n)) if n else "0"


TITLE = "By node (POSIX and stdio I/O)"
CAPTION = ("own files: a node-local file (tmpfs, /dev/shm: one per node under one path, reduced over that node's "
           "ranks) or a file only that node's processes used; files used from several nodes are counted once, "
           "across nodes (the log keeps their fastest and slowest rank, not each node's share)")


def node_table(view: dict[str, Any]) -> tuple[list[Col], list[list[str]]]:
    """The table of the nodes (the HTML page shows it too)."""
    cols = [Col("node", "name"), Col("ranks", "id"), Col("own files", "num", "right"),
            Col("node-local", "num", "right"), Col("written", "num", "right"), Col("read", "num", "right"),
            Col("I/O time", "num", "right")]
    rows = [[n["node"], ranks_text(n["ranks"]) or "-", str(n["files"]), str(n["node_local_files"]),
             _bytes(n["bytes_written"]), _bytes(n["bytes_read"]),
             secs(n["write_time"] + n["read_time"] + n["meta_time"])] for n in view["nodes"]]
    a = view["across"]
    rows.append(["(across nodes)", "all", str(a["files"]), "-", _bytes(a["bytes_written"]), _bytes(a["bytes_read"]),
                 secs(a["write_time"] + a["read_time"] + a["meta_time"])])
    return cols, rows


def show_nodes(con: Console, view: dict[str, Any]) -> None:
    cols, rows = node_table(view)
    print_fit(con, cols, rows, TITLE, caption=[CAPTION])
