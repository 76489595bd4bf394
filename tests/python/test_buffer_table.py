"""The `pario buffer --stats` table at 80 columns: a long path is abbreviated in its middle (the
basename whole), so a file's row stays one line."""
from __future__ import annotations

import io

from rich.console import Console

from pario.model.buffer import BufferFileStats, BufferStats
from pario.report.terminal.buffer import abbreviate, show

LONG = "/tmp/pario-buffer-bench-19569/fuse/mnt/some/deeper/directory/write.buffered"


def render(paths: list[str], width: int = 80, stdio: bool = False) -> list[str]:
    files = [BufferFileStats(path=p, stdio=stdio, size=64 << 20, calls=2_000_000, bytes=1_024_000_000, flushes=16,
                             sys_writes=16, program_time=18.52, write_time=18.53,
                             flush_reasons={"full": 15, "close": 1}) for p in paths]
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
    for k, name in zip(rows, ("write.buffered", "fprintf.buffered", "/short/out.dat")):
        assert name in lines[k] and lines[k + 1].split()[0] == "(stream)", "\n".join(lines)


def test_wider_console_shows_more_of_the_path():
    assert any(LONG in line for line in render([LONG], width=160))
