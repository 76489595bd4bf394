"""The table `pario buffer --stats` prints (and `pario profile show` for a buffered run): per file,
the program's write calls against the writes the file system saw, like IOBUF's verbose output,
within 80 columns."""
from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from pario.model.buffer import BufferStats
from pario.model.units import seconds, tenths
from pario.report.terminal.fit import wrap_id

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


def abbreviate(path: str, width: int) -> str:
    """`path` in at most `width` characters: the basename whole, the middle of the directories
    elided with an ellipsis ('/tmp/pario…/pc/write.buffered'), so a row stays one line. A
    basename longer than `width` is kept whole (the table folds it): it is the name to find."""
    if len(path) <= width:
        return path
    head, sep, base = path.rpartition("/")
    directory = head + sep
    room = width - len(base) - 1
    if room <= 0:
        return "…" + sep + base if sep and len(base) + 2 <= width else base
    keep_end = max(1, room // 2)  # at least the slash before the basename
    return directory[:room - keep_end] + "…" + directory[len(directory) - keep_end:] + base


_HEADS = ("calls", "bytes", "flushes", "fs\nwrites", "program\ntime", "write\ntime")
_FILE_MIN = 16
_FILE_NARROW = 8   # below 80 columns: "…buffered" still names the file


class _FileCell:
    """The file column's cell: the path on one line, abbreviated to the width the table gives
    the column (the other columns are laid out first); the whole path is in the line under the
    table (flush_lines), which is the legend of the abbreviation."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(_FILE_MIN, len(self.path)), len(self.path))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # a basename wider than the column breaks after '/', '.', '-' or '_' (fit.py's rule for
        # paths), never inside a number: folding cut "shared2.dat_cid-3-8708.sm" as "...-87" / "08.sm"
        width = options.max_width
        short = abbreviate(self.path, width)
        if len(short) > width and width < _FILE_MIN:   # a narrow terminal: one line, the name's end kept
            short = "…" + short[len(short) - width + 1:] if width > 1 else short[-1:]
        yield Text(short if len(short) <= width else wrap_id(short, width, "path"))


def _pieces(stats: BufferStats) -> str:
    """How a descriptor's pending run goes out: in pieces of PARIO_BUFFER_PIECE (at most the
    buffer), or whole when the buffer is full (0); streams keep their whole buffer."""
    if stats.piece is None:
        return ""
    if stats.piece == 0 or (stats.size and stats.piece >= stats.size):
        return ", written out when full"
    return f", written out in {tenths(stats.piece)} pieces"


def table(stats: BufferStats, title: str | None = None, base: str | None = None, width: int = 80) -> Table:
    """width: the console's; below 80 columns the columns lose their padding and the file column
    its minimum (its names are then shortened from the left), so that it is never dropped."""
    procs = f"{stats.processes} process{'es' if stats.processes != 1 else ''}"
    narrow = width < 80
    t = Table(title=title or f"pario buffer: {procs}, {tenths(stats.size)} per file{_pieces(stats)}",
              box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False,
              padding=(0, 0) if narrow else (0, 1), show_edge=not narrow)
    t.add_column("file", ratio=1, min_width=_FILE_NARROW if narrow else _FILE_MIN)
    for col in _HEADS:
        t.add_column(col, justify="right", no_wrap=True)
    for f in stats.files:
        t.add_row(_FileCell(_name(f.path, base)), str(f.calls), tenths(f.bytes), str(f.flushes),
                  str(f.sys_writes), _secs(f.program_time), _secs(f.write_time))
    return t


def flush_lines(stats: BufferStats, width: int, base: str | None = None) -> list[Text]:
    """Under the table, one line per file across the whole width: its whole path, whether it is a
    stream, why it was flushed ("full 976, close 1" kept on one line: inside the file column it
    was split as "flushed at: full" / "976, close 1"), and failed deferred writes."""
    out: list[Text] = []
    for f in stats.files:
        name = _name(f.path, base)
        why = f"{'(stream) ' if f.stdio else ''}flushed at: {_reasons(f.flush_reasons)}"
        if f.errors:
            why += f"; {f.errors} deferred write(s) failed"
        style = "red" if f.errors else "dim"
        if len(name) + len(why) + 4 <= width:
            out.append(Text(f"  {name}: ", style="dim") + Text(why, style=style))
        else:  # the path on its own line, then the reasons whole on the next one
            out.append(Text(f"  {name}:", style="dim"))
            out.append(Text(f"    {why}", style=style))
    return out


def notes(stats: BufferStats) -> list[str]:
    out = ["calls: the program's write calls; fs writes: the writes the file system saw (a stream's are "
           "the C library's, counted from its buffer); program time: in the program's write calls; "
           "write time: in the writes the file system saw."]
    if stats.partial:
        out.append(f"{stats.partial} process(es) were stopped (a signal, or MPI_Abort); their buffers were written "
                   "first.")
    return out


def show(stats: BufferStats, console: Console | None = None, title: str | None = None,
         base: str | None = None) -> None:
    import sys

    con = console or Console(file=sys.stderr, width=80)
    if not stats.files:
        con.print("pario buffer: the program wrote no buffered file (regular files opened for writing are; "
                  "see --files)")
        return
    con.print(table(stats, title, base, con.width))
    for text in flush_lines(stats, con.width, base):
        con.print(text)
    for line in notes(stats):
        con.print(f"[dim]{escape(line)}[/]")
