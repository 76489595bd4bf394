"""Tables that fit the terminal without cutting a word or a number.

rich shrinks a table that is too wide by cutting cells ("100…") and, past that, by dropping
columns to nothing. Here each column says what it holds, the minimum width that keeps every
cell whole is computed first, and the table changes shape instead of cutting:

1. everything fits: one table, columns widened towards their natural width;
2. else (or when a note would wrap into more than ASIDE_LINES lines in its column) the columns
   marked `aside` (notes) leave the table and follow it as "label: notes" lines, which wrap at
   spaces; a row without a label of its own (a case's second operation) is named by the label
   above and its other identifiers ("shared/posix read: warm");
3. else every row becomes a block of "header: value" lines under its label.

Numbers (`num`) never wrap. Identifiers (`id`, e.g. case labels) wrap at spaces, after ',' and
';', and after '/' only in a word that is a path (starts with '/', '.' or '~', or has two '/'):
"shared/posix" and "fsync/w" are words and stay whole, never "fsync/" then "w". File paths
(`path`) wrap after every '/', '.', '-' and '_' (a file name such as
pario.20261124T162708-000aa2.0.0 would otherwise widen its column past 80); names (`name`, case
names such as md-shared-100f-300k, which may also be a label such as shared/mpiio) after '.',
'-' and '_', and after '/' only in a path. Text wraps at
spaces. A word longer than the whole terminal is the only thing ever broken (by rich, at the
terminal's edge)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from pario.report.terminal.cells import new_table

# A table's width beyond its cells: 3 per gap between columns (padding, divider, padding) and
# one at each edge (box.SIMPLE_HEAD, pad_edge=False, as new_table makes them).
GAP, EDGES = 3, 2
# Identifiers break after these (a path-like word also after each '/'), never elsewhere.
_BREAK_AFTER = re.compile(r"(?<=[,;])")
_BREAK_SLASH = re.compile(r"(?<=[/,;])")
_BREAK_PATH = re.compile(r"(?<=[/,;._-])")
_BREAK_NAME = re.compile(r"(?<=[,;._-])")


def is_path_word(word: str) -> bool:
    """A word of an identifier that is a path, so may break after its slashes: '/a/b', './x',
    '~/x', 'a/b/c'. 'shared/posix' or 'fsync/w' is one word of a label, kept whole."""
    return word.startswith(("/", ".", "~")) or word.count("/") >= 2


def _pieces(word: str, kind: str) -> list[str]:
    if kind == "path" or (kind == "name" and is_path_word(word)):
        splitter = _BREAK_PATH
    elif kind == "name":
        splitter = _BREAK_NAME
    else:
        splitter = _BREAK_SLASH if is_path_word(word) else _BREAK_AFTER
    return [p for p in splitter.split(word) if p]


@dataclass
class Col:
    header: str
    kind: str = "text"        # "id" (label), "path", "name", "num" (never wraps), "text" (wraps at spaces)
    justify: Literal["left", "right", "center"] = "left"
    aside: bool = False       # may leave the table as "label: text" lines below it
    style: str | None = None


def atoms(text: str, kind: str = "text") -> list[str]:
    """The pieces a cell may be broken into: words; identifiers also after ',' and ';' (and '/'
    in a path, is_path_word)."""
    words = text.split()
    if kind == "num":
        return [line for line in text.splitlines()] or [""]
    if kind in ("id", "path", "name"):
        return [p for w in words for p in _pieces(w, kind)]
    return words


def min_width(text: str, kind: str) -> int:
    if kind == "num":
        return max((len(line) for line in text.splitlines()), default=0)
    return max((len(a) for a in atoms(text, kind)), default=0)


def wrap_id(text: str, width: int, kind: str = "id") -> str:
    """An identifier wrapped where atoms() may break it, to at most width columns."""
    lines: list[str] = []
    for para in text.splitlines() or [""]:
        line = ""
        for word in para.split(" "):
            pieces = _pieces(word, kind) or [""]
            for k, piece in enumerate(pieces):
                sep = " " if (k == 0 and line) else ""
                if len(line) + len(sep) + len(piece) <= width or not line:
                    line += sep + piece
                else:
                    lines.append(line.rstrip())
                    line = piece
        lines.append(line.rstrip())
    return "\n".join(lines)


def table_width(widths: list[int]) -> int:
    return sum(widths) + GAP * max(len(widths) - 1, 0) + EDGES


def _natural(cells: list[str], header: str) -> int:
    return max([len(line) for c in cells for line in c.splitlines()] + [len(h) for h in header.splitlines()] + [1])


def _allocate(mins: list[int], maxs: list[int], avail: int, first: list[int] | None = None) -> list[int]:
    """Widths from the minimums towards the natural widths: the columns `first` (identifiers)
    before the others, then the room left shared evenly."""
    widths = list(mins)
    spare = avail - sum(widths)
    for i in first or []:
        add = max(0, min(maxs[i] - widths[i], spare))
        widths[i] += add
        spare -= add
    while spare > 0:
        grow = [i for i in range(len(widths)) if widths[i] < maxs[i]]
        if not grow:
            break
        share = max(1, spare // len(grow))
        for i in grow:
            add = min(share, maxs[i] - widths[i], spare)
            widths[i] += add
            spare -= add
            if spare <= 0:
                break
    return widths


def _mins(cols: list[Col], rows: list[list[str]]) -> list[int]:
    mins = [max(min_width(r[i], c.kind) for r in rows) if rows else 0 for i, c in enumerate(cols)]
    # Headers are never cut either: a figure's header is as wide as its lines (figures do not
    # wrap, and rich applies no_wrap to the header too); other headers wrap between words.
    return [max(m, max((len(h) for h in (c.header.splitlines() if c.kind == "num" else c.header.split())),
                       default=1)) for m, c in zip(mins, cols)]


def fits(width: int, cols: list[Col], rows: list[list[str]], aside: bool = False) -> bool:
    """Whether the table fits `width` with every cell whole (aside: without its `aside` columns)."""
    mins = _mins(cols, rows)
    return table_width([m for m, c in zip(mins, cols) if not (aside and c.aside)]) <= width


def fit(console: Console, cols: list[Col], rows: list[list[str]], title: str | None = None,
        label: int = 0, caption: list[str] | None = None) -> list[RenderableType]:
    """What to print for `rows` (plain strings, no markup) under `cols` at the console's width:
    a table, possibly followed by the cells of the `aside` columns, or blocks of lines."""
    width = console.width
    mins = _mins(cols, rows)
    keep = list(range(len(cols)))
    if table_width(mins) > width or _squeezed(width, cols, rows, mins):
        keep = [i for i in keep if not cols[i].aside]
    if table_width([mins[i] for i in keep]) > width:
        return _blocks(cols, rows, title, label, width)
    out: list[RenderableType] = [_table(console, cols, rows, keep, mins, title)]
    aside = [i for i in range(len(cols)) if i not in keep]
    for row, name in zip(rows, _row_names(cols, rows, label)):
        said = [row[i] if cols[i].header == "notes" else f"{cols[i].header.replace(chr(10), ' ')}: {row[i]}"
                for i in aside if row[i].strip()]
        if said:
            out.append(Text(f"  {name}: " + "; ".join(said)))
    for line in caption or []:
        out.append(Text(line))
    return out


def _row_names(cols: list[Col], rows: list[list[str]], label: int) -> list[str]:
    """What names each row in the lines under the table: its label; a continuation row (label
    left blank, as the second operation of a case) the label above it and its other identifying
    cells ("shared/posix read"), never an empty name (": warm")."""
    names, last = [], ""
    for row in rows:
        if row[label].strip():
            last = row[label]
            names.append(last)
        else:
            more = [row[i] for i, c in enumerate(cols) if i != label and c.kind == "id" and row[i].strip()]
            names.append(" ".join([last] + more).strip())
    # rows that share a label (one file through two interfaces) are told apart by their other
    # identifying cells: "/tmp/x.dat mpiio", "/tmp/x.dat posix"
    for k, row in enumerate(rows):
        if row[label].strip() and sum(r[label] == row[label] for r in rows) > 1:
            names[k] = " ".join([names[k]] + [row[i] for i, c in enumerate(cols)
                                              if i != label and c.kind == "id" and row[i].strip()])
    return names


# A note that would take more lines than this in its column goes under the table instead: in
# an 11-column notes column, "verified 87.89 MiB" or "created 300, removed 300" became a word a line.
ASIDE_LINES = 3


def _widths(width: int, cols: list[Col], rows: list[list[str]], keep: list[int], mins: list[int]) -> list[int]:
    avail = width - table_width([0] * len(keep))
    maxs = [_natural([r[i] for r in rows], cols[i].header) for i in keep]
    return _allocate([mins[i] for i in keep], maxs, avail,
                     [k for k, i in enumerate(keep) if cols[i].kind in ("id", "path", "name")])


def _squeezed(width: int, cols: list[Col], rows: list[list[str]], mins: list[int]) -> bool:
    """Whether a cell of an `aside` column would wrap into more than ASIDE_LINES lines."""
    keep = list(range(len(cols)))
    widths = _widths(width, cols, rows, keep, mins)
    return any(len(Text(r[i]).wrap(Console(width=w + 1), w)) > ASIDE_LINES
               for i, w in zip(keep, widths) if cols[i].aside for r in rows if r[i].strip())


def _table(console: Console, cols: list[Col], rows: list[list[str]], keep: list[int], mins: list[int],
           title: str | None) -> Table:
    widths = _widths(console.width, cols, rows, keep, mins)
    table = new_table(escape(title) if title else None)
    for w, i in zip(widths, keep):
        c = cols[i]
        table.add_column(escape(c.header), justify=c.justify, width=w, no_wrap=c.kind != "text",
                         overflow="fold", style=c.style)
    for row in rows:
        cells = []
        for w, i in zip(widths, keep):
            text = row[i]
            if cols[i].kind in ("id", "path", "name"):
                text = wrap_id(text, w, cols[i].kind)
            cells.append(Text(text))
        table.add_row(*cells)
    return table


def _blocks(cols: list[Col], rows: list[list[str]], title: str | None, label: int,
            width: int) -> list[RenderableType]:
    """Too narrow for any table: each row as its label, then one "header: value" line per cell
    (identifiers wrapped after '/', the rest at spaces)."""
    out: list[RenderableType] = [Text(title, style="italic")] if title else []
    for row in rows:
        if not row[label].strip():
            continue_label = True
        else:
            continue_label = False
            out.append(Text(wrap_id(row[label], max(width, 1), cols[label].kind)
                            if cols[label].kind in ("id", "path", "name") else row[label], style="bold"))
        for i, c in enumerate(cols):
            if i == label or not row[i].strip():
                continue
            head = ("  " if continue_label else "") + f"  {c.header.replace(chr(10), ' ')}: "
            if c.kind in ("id", "path", "name"):
                value = wrap_id(row[i], max(width - 4, 1), c.kind).replace("\n", "\n    ")
            else:  # a cell of several lines (a ratio over its verdict): the lines under each other
                value = row[i].replace("\n", "\n" + " " * min(len(head), max(width // 2, 4)))
            out.append(Text(head + value))
    return out


def print_fit(console: Console, cols: list[Col], rows: list[list[str]], title: str | None = None,
              label: int = 0, caption: list[str] | None = None) -> None:
    for part in fit(console, cols, rows, title, label, caption):
        console.print(part)


def plain(value: Any) -> str:
    return "-" if value is None else str(value)
