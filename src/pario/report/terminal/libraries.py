"""`pario profile show`: the I/O libraries' tables (report/libtables.py), above the POSIX and MPI-IO
ones, fitted to the terminal like every other table."""
from __future__ import annotations

from rich.console import Console
from rich.text import Text

from pario.report.libtables import LibSection
from pario.report.terminal.fit import Col, print_fit


def show(con: Console, sections: list[LibSection]) -> None:
    for sec in sections:
        con.print(Text(sec.heading, style="bold"))
        for line in sec.lines:
            con.print(Text("  " + line))
        for table in sec.tables:
            cols = [Col(c.header, c.kind, "left" if c.kind in ("id", "text", "path") else "right", aside=c.aside)
                    for c in table.columns]
            print_fit(con, cols, table.rows, table.title)
