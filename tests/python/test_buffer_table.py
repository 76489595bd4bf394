"""The `pario buffer --stats` table at 80 columns: a long path is abbreviated in its middle (the
basename whole), so a file's row stays one line; under the table each file's whole path and why
it was flushed, on one line ("full 976, close 1" never split)."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from pario.model.buffer import BufferFileStats, BufferStats
from pario.report.terminal.buffer import abbreviate, show

LONG = "/tmp/pario-buffer-bench-19569/fuse/mnt/some/deeper/directory/write.buffered"


def render(paths: list[str], width: int = 80, stdio: bool = False,
           reasons: dict[str, int] | None = None) -> list[str]:
    files = [BufferFileStats(path=p, stdio=stdio, size=64 << 20, calls=2_000_000, bytes=1_024_000_000, flushes=16,
                             sys_writes=16, program_time=18.52, write_time=18.53,
                             flush_reasons=reasons or {"full": 15, "close": 1}) for p in paths]
    out = io.StringIO()
    show(BufferStats(processes=1, partial=0, size=64 << 20, files=files),
         console=Console(file=out, width=width, color_system=None))
    return out.getvalue().splitlines()


def test_abbreviate_keeps_the_basename_and_both_ends():
    short = abbreviate(LONG, 30)
    assert len(short) == 30 and short.endswith("/write.buffered") and short.startswith("/tmp/")
    assert "…" in short
    assert abbreviate("/a/b.txt", 30) == "/a/b.txt"  # short enough: unchanged
    assert abbreviate("/tmp/pario-buffer-bench-1/pc/write.buffered", 16) == "…/write.buffered"
    assert abbreviate("/x/" + "n" * 40, 20) == "n" * 40  # a basename wider than the room stays whole


def test_a_long_path_is_one_line_at_80_columns():
    lines = render([LONG])
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    row = next(line for line in lines if "2000000" in line)
    assert "write.buffered" in row and "…" in row, "\n".join(lines)
    assert row.split()[-2:] == ["18.53", "s"]  # the numbers on the same line as the path
    assert "flushedat:full15,close1" in "".join("".join(lines).split())  # may wrap at its spaces


def test_several_files_and_a_stream_stay_one_line_each():
    paths = [LONG, LONG.replace("write.buffered", "fprintf.buffered"), "/short/out.dat"]
    lines = render(paths, stdio=True)
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    rows = [k for k, line in enumerate(lines) if "2000000" in line]
    assert len(rows) == 3
    assert rows == [rows[0], rows[0] + 1, rows[0] + 2], "\n".join(lines)  # one line each
    for k, name in zip(rows, ("write.buffered", "fprintf.buffered", "/short/out.dat")):
        assert name in lines[k], "\n".join(lines)
    for path in paths:  # the whole path under the table, then that it is a stream and its flushes
        k = next(k for k, line in enumerate(lines) if line.strip().startswith(f"{path}:"))
        assert "(stream) flushed at: full 15, close 1" in lines[k] + lines[k + 1], "\n".join(lines)


@pytest.mark.parametrize("width", [80, 160])
@pytest.mark.parametrize("path", ["big.dat", LONG, "/x/" + "n" * 70])
def test_flush_reasons_stay_on_one_line(width, path):
    """benchmarks/buffer/RESULTS.md showed "flushed at: full" / "976, close 1" split over two
    lines inside the file column at 80 columns."""
    lines = render([path], width=width, reasons={"full": 976, "close": 1})
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    assert any("flushed at: full 976, close 1" in line for line in lines), "\n".join(lines)
    assert any(path in line for line in lines), "\n".join(lines)  # the whole path, once


def test_wider_console_shows_more_of_the_path():
    assert any(LONG in line for line in render([LONG], width=160))


def test_a_basename_wider_than_its_column_breaks_at_a_separator():
    """An MPI runtime file's name ("shared2.dat_cid-3-8708.sm") was folded as "...-87" / "08.sm"."""
    path = "/tmp/ompi.vm.0/pid.8704/1/shared2.dat_cid-3-8708.sm"
    lines = render(["/tmp/shared2.dat", path])
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    table = "\n".join(lines[:lines.index(next(ln for ln in lines if "flushed at" in ln))])
    words = table.split()
    for piece in ("shared2.", "dat_", "cid-", "3-", "8708.", "sm"):  # fit.py's breaks for paths
        assert any(piece in w for w in words), (piece, table)
    assert any(path in line for line in lines)  # whole under the table


def titled(piece, size=64 << 20) -> str:
    out = io.StringIO()
    files = [BufferFileStats(path="/a/out.dat", stdio=False, size=size, calls=10, bytes=5120, flushes=1,
                             sys_writes=1, flush_reasons={"close": 1})]
    show(BufferStats(processes=2, partial=0, size=size, files=files, piece=piece),
         console=Console(file=out, width=80, color_system=None))
    text = out.getvalue()
    return " ".join(text[:text.index("fs ")].split())   # the title, however it wrapped


def test_the_title_says_the_piece_size():
    """The pending run goes out in pieces of PARIO_BUFFER_PIECE (1 MiB by default): the title said
    only the buffer's size."""
    assert titled(1 << 20).endswith("64.0 MiB per file, written out in 1.0 MiB pieces")
    assert titled(0).endswith("64.0 MiB per file, written out when full")
    assert titled(128 << 20).endswith("written out when full")       # a piece is at most the buffer
    assert titled(None).endswith("64.0 MiB per file")                  # stats of an older pario: not said


@pytest.mark.parametrize("width", [60, 64, 72, 79])
@pytest.mark.parametrize("path", [LONG, "/short/out.dat", "/x/" + "n" * 40 + ".dat"])
def test_narrow_terminals_keep_the_file_column(width, path):
    """At 60 columns rich gave the file column no room and the rows had no file at all: now the
    name stays, shortened from the left, on the row with its numbers."""
    lines = render([path], width=width)
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    row = next(line for line in lines if "2000000" in line)
    name = row.split()[0]
    assert name != "2000000" and len(name) >= 6, "\n".join(lines)
    assert path.endswith(name.split("…")[-1]), (name, "\n".join(lines))
    assert row.rstrip().endswith("18.53 s"), "\n".join(lines)
    assert path in "".join(line.strip() for line in lines)   # whole under the table (folded if need be)


def test_summarize_takes_the_piece_from_the_stats_files():
    from pario.analysis.buffer_stats import summarize

    def doc(piece):
        settings = {"size": 4 << 20, "total": 0, "stdio": True, "files": []}
        if piece is not None:
            settings["piece"] = piece
        return {"process": {}, "settings": settings, "files": []}

    assert summarize([doc(1 << 20), doc(1 << 20)]).piece == 1 << 20
    assert summarize([doc(0)]).piece == 0
    assert summarize([doc(None)]).piece is None
