"""Rendering at a given terminal width, and the check every table test makes: every word and
every number of the cells is present whole in what was printed (nothing cut, nothing dropped)."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console

RUNS = Path(__file__).resolve().parent / "data" / "runs"


def console(width: int) -> Console:
    return Console(width=width, file=io.StringIO(), record=True, color_system=None, legacy_windows=False,
                   soft_wrap=False)


def text_of(con: Console) -> str:
    return con.export_text()


def stored_run(name: str) -> dict:
    """A run stored by a real `pario bench` on the development VM (tests/python/data/runs)."""
    return json.loads((RUNS / f"{name}.json").read_text())


_BREAKS = re.compile(r"(?<=[/,;])")
_WORD_BREAKS = re.compile(r"(?<=[,;])")


def _split(word: str) -> list[str]:
    """fit.py's rule: a word breaks after ',' and ';', and after '/' only when it is a path
    (starts with '/', '.' or '~', or has two '/'); 'fsync/w' or 'shared/posix' stays whole."""
    path = word.startswith(("/", ".", "~")) or word.count("/") >= 2
    return [p for p in (_BREAKS if path else _WORD_BREAKS).split(word) if p]


def pieces(cell: str) -> list[str]:
    """The pieces a cell may be shown in: words, and parts of paths after '/'."""
    return [p.rstrip(".:;,") for w in cell.split() for p in _split(w) if p.rstrip(".:;,")]


def assert_whole(out: str, cells, width: int) -> None:
    """Every piece of every cell appears whole in `out` as a token, no line is wider than
    `width`, and nothing was cut with an ellipsis."""
    lines = out.splitlines()
    assert all(len(line.rstrip()) <= width for line in lines), max(lines, key=len)
    assert "…" not in out, [ln for ln in lines if "…" in ln]
    tokens = set()
    for line in lines:
        for word in line.split():
            tokens.add(word)
            tokens.update(p for p in _BREAKS.split(word) if p)
            tokens.add(word.rstrip(".:;,"))
            tokens.update(p.rstrip(".:;,") for p in _BREAKS.split(word) if p)
    missing = [p for cell in cells for p in pieces(str(cell)) if p not in tokens]
    assert not missing, f"not shown whole at {width} columns: {missing[:10]}\n{out}"
