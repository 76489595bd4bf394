"""The table `pario buffer --stats` prints (and `pario profile show` for a buffered run): per file,
the program's write calls against the writes the file system saw, like IOBUF's verbose output,
within 80 columns."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pario.model.buffer import BufferStats
from pario.model.units import seconds, tenths

_secs = seconds


def _reasons(r: dict[str, int]) -> str:
    top = sorted(r.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
    return ", ".join(f"{why} {n}" for why, n in top) or "-"


def _name(path: str, base: str | None) -> str:
    """A path under `base` (the directory pario ran in) is shown relative to it: shorter, and
    the name is what the user typed."""
    if base and path.startswith(base.rstrip("/") + "/"):
        return path[len(base.rstrip("/")) + 1:]
    return path


def table(stats: BufferStats, title: str | None = None, base: str | None = None) -> Table:
    procs = f"{stats.processes} process{'es' if stats.processes != 1 else ''}"
    t = Table(title=title or f"pario buffer: {procs}, {tenths(stats.size)} per file", box=box.SIMPLE_HEAD,
              title_justify="left", pad_edge=False)
    t.add_column("file", overflow="fold", ratio=1, min_width=16)
    for col in ("calls", "bytes", "flushes", "fs\nwrites", "program\ntime", "write\ntime"):
        t.add_column(col, justify="right", no_wrap=True)
    for f in stats.files:
        name = escape(_name(f.path, base)) + (" [dim](stream)[/]" if f.stdio else "")
        name += f"\n[dim]flushed at: {escape(_reasons(f.flush_reasons))}[/]"
        if f.errors:
            name += f"\n[red]{f.errors} deferred write(s) failed[/]"
        t.add_row(name, str(f.calls), tenths(f.bytes), str(f.flushes), str(f.sys_writes), _secs(f.program_time),
                  _secs(f.write_time))
    return t


def notes(stats: BufferStats) -> list[str]:
    out = ["calls: the program's write calls; fs writes: the writes the file system saw (a stream's are "
           "the C library's, counted from its buffer); program time: in the program's write calls; "
           "write time: in the writes the file system saw."]
    if stats.partial:
        out.append(f"{stats.partial} process(es) were stopped by a signal; their buffers were written first.")
    return out


def show(stats: BufferStats, console: Console | None = None, title: str | None = None,
         base: str | None = None) -> None:
    import sys

    con = console or Console(file=sys.stderr, width=80)
    if not stats.files:
        con.print("pario buffer: the program wrote no buffered file (regular files opened for writing are; "
                  "see --files)")
        return
    con.print(table(stats, title, base))
    for line in notes(stats):
        con.print(f"[dim]{escape(line)}[/]")
