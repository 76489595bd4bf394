"""A preset: one experiment of a seed course as a job file, with the seed's table around it (its
rows and columns, the published figure of each cell, the readings worth a sentence) and what the
experiment needs from a system. Typed records only: plan/presets.py reads them from TOML,
analysis/presets.py fills them with this system's figures, report/terminal/presets.py prints them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

# What a column shows of a case. Bandwidths come in the preset's unit; times in seconds.
BANDWIDTH = ("write", "read")
RATIOS = ("speedup", "ratio")  # derived from another metric against a base row
SeedValue = Union[float, str]


@dataclass
class Column:
    name: str                 # the header, as the seed's table has it
    metric: str               # write | read | <op>_time | <op>_rate | writes | speedup | ratio | note
    of: str | None = None     # speedup, ratio: the metric compared (speedup: a time, ratio: a bandwidth)
    base: str | None = None   # speedup, ratio: the case of the row everything is compared with

    @property
    def unit(self) -> str:
        if self.metric in RATIOS:
            return "x"
        if self.metric == "note":  # the seed's words only: it gives no figure for this column
            return "note"
        if self.metric.endswith("_time"):
            return "s"
        if self.metric.endswith("_rate"):
            return "files/s"
        return "" if self.metric == "writes" else "bw"


@dataclass
class Row:
    """One [[case]] of the preset: the cells it fills in its row of the table."""
    case: str                          # the case name (unique in the preset)
    label: str                         # the row's label; {transfer}, {block}, {files}, {grid} are filled in
    columns: list[str]                 # the columns this case fills (every column when the file names none)
    seed: dict[str, SeedValue] = field(default_factory=dict)   # the seed's figure per column
    requires: list[str] = field(default_factory=list)          # what the system must have (plan/presets.py)
    min_ranks: int = 1
    buffer: int | None = None          # bytes: the case runs under `pario buffer --size` (its data files only)


@dataclass
class Reading:
    """A sentence comparing two cells: how many times better case a is than case b on metric."""
    text: str                          # what is compared, e.g. "collective buffering, strided 1 MiB writes"
    a: str
    b: str
    metric: str
    seed_ratio: float | None = None    # the seed's figure for the same comparison, when it has one
    seed_text: str = ""                # where the seed saw it, or what it says when it gives no figure


@dataclass
class Preset:
    name: str
    path: str
    title: str
    seed: str                          # the source: course, table or figure
    shows: str                         # one line: what the experiment shows
    setup: str                         # the seed's system and scale
    unit: str                          # bandwidth unit of the seed's figures: MiB/s, GiB/s or MB/s
    row_header: str
    columns: list[Column]
    rows: list[Row]
    readings: list[Reading]
    defaults: dict[str, Any]           # the job file's [defaults]
    cases: list[dict[str, Any]]        # its [[case]] tables, preset keys removed
    io: str | None = None              # Open MPI io component the experiment needs (romio321 for ROMIO hints)
    ranks: str | int | None = None     # a fixed rank count, or "square" (BTIO)
    caveat: str = ""                   # printed under the readings: why this system's figure differs by nature


@dataclass
class Skipped:
    case: str
    label: str
    reason: str


@dataclass
class PresetPlan:
    """What runs here: the engine cases, the rows left out and why, and how the sizes were chosen."""
    preset: Preset
    cases: list[dict[str, Any]]
    skipped: list[Skipped]
    ranks: int
    scale: float
    labels: dict[str, str]             # case name -> its row label with this run's sizes
    row_header: str = ""               # the first column's header, with this run's sizes
    notes: list[str] = field(default_factory=list)
