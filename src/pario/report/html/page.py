"""The page: sections of plots, tables and notes, rendered with jinja2 into one self-contained HTML
file (plotly.js inlined, no fonts or scripts fetched), and written atomically."""
from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from pario import __version__
from pario.model.errors import ParioError
from pario.platform.outfile import write_output
from pario.report import advice_text

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass
class Plot:
    anchor: str                    # the element id; findings link to it (anchors.py names them)
    title: str
    figure: Any                    # a plotly Figure
    caption: str = ""              # how to read it: one or two sentences


@dataclass
class Cell:
    text: str
    sort: float | str | None = None    # the value the column sorts by (numbers sort as numbers)
    mark: str = ""                     # "bad" | "warn" | "ok": printed and coloured


@dataclass
class Table:
    anchor: str
    title: str
    columns: list[str]
    rows: Sequence[Sequence[Cell | str]]
    caption: str = ""
    sortable: bool = False


@dataclass
class Note:
    text: str
    level: str = "info"            # info | warn


Item = Union[Plot, Table, Note]


@dataclass
class Section:
    anchor: str
    title: str
    intro: str = ""
    items: list[Item] = field(default_factory=list)


@dataclass
class Page:
    title: str
    shows: list[str]                       # the header's list of what the page shows
    sections: list[Section] = field(default_factory=list)
    # pario advise's job documents (advise.document; report/advice_text.py renders them, as the terminal):
    # their findings, each with the job it belongs to
    advice: list[dict[str, Any]] = field(default_factory=list)
    counter_docs: dict[str, str] = field(default_factory=dict)
    findings_asked: bool = False           # --advise was given (an empty list then says "none")

    @property
    def findings(self) -> list[dict[str, Any]]:
        return [f for job in self.advice for f in job["findings"] + job["not_costed"]]

    def anchors(self) -> set[str]:
        out = {s.anchor for s in self.sections}
        out |= {i.anchor for s in self.sections for i in s.items if isinstance(i, (Plot, Table))}
        return out


def figure_json(fig: Any) -> str:
    """A figure as JSON that is safe inside a <script> element."""
    import plotly.io as pio

    text = pio.to_json(fig, validate=False, pretty=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _cells(row: Sequence[Cell | str]) -> list[Cell]:
    return [c if isinstance(c, Cell) else Cell(str(c)) for c in row]


def _blocks(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A finding's parts (report/advice_text.parts) for the page: a dialect's lines in one block."""
    out: list[tuple[str, str]] = []
    for label, said in parts:
        if label == "settings" and out and out[-1][0] == "settings":
            out[-1] = ("settings", out[-1][1] + "\n" + said)
        else:
            out.append((label, said))
    return out


def render(page: Page) -> str:
    import jinja2
    import plotly.offline

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(Plot=Plot, Table=Table, Note=Note)
    env.tests["plot"] = lambda i: isinstance(i, Plot)
    env.tests["table"] = lambda i: isinstance(i, Table)
    env.filters["figure_json"] = figure_json
    env.filters["cells"] = _cells
    env.filters["blocks"] = _blocks
    anchors = page.anchors()
    return env.get_template("report.html.j2").render(
        page=page, anchors=anchors, version=__version__,
        generated=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        plotly_js=plotly.offline.get_plotlyjs(), css=(TEMPLATES / "report.css").read_text(encoding="utf-8"),
        script=(TEMPLATES / "report.js").read_text(encoding="utf-8"),
        text=advice_text, json=json)


def write(page: Page, path: str | os.PathLike) -> int:
    """Write the page to path (whole or not at all, an old report kept if writing fails; a device
    such as /dev/null is written in place, never replaced); returns its size in bytes."""
    out = Path(path)
    if out.is_dir():
        raise ParioError(f"-o {out} is a directory; give a file name such as {out / 'report.html'}")
    return write_output(out, render(page).encode("utf-8"))
