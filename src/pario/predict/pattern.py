"""What `pario predict` predicts: one phase of a `pario bench` case (the engine case dict that
bench's flags and job files make, plan/cases.py) placed on N nodes x P ranks, with the layout of
its new files, and what a system it does not run on needs besides: an application's amount of
data when a bench case does not say it, its I/O time that does not scale, an IOBUF-style buffer.
Geometry (bytes, calls, pieces, files) is derived here once; predict/model.py costs it."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pario.model.case import BTIO_POINT, Case, case_bytes, md_files
from pario.model.errors import ParioError


@dataclass
class Pattern:
    case: Case
    nodes: int
    ranks_per_node: int
    op: str = "write"                  # write | read (metadata: the case's phases)
    stripe_count: int | None = None    # None: the system's default (or the case's striping_factor hint)
    stripe_size: int | None = None
    object_size: int | None = None     # CephFS: bytes per object (None: the system's)
    buffer: int | None = None          # bytes: an IOBUF-style user-space buffer coalesces the calls
    volume: float | None = None        # bytes of the phase, when the case does not say (an application)
    fixed: float | None = None         # seconds of the application's I/O that do not scale with anything
    assumed: tuple[str, ...] = ()      # what the seed or the user did not state

    @property
    def ranks(self) -> int:
        return self.nodes * self.ranks_per_node

    @property
    def hints(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in (self.case.get("hints") or {}).items()}

    @property
    def metadata(self) -> bool:
        return self.case.get("workload") == "metadata"


@dataclass
class Geometry:
    """What the phase moves: bytes, the writers' calls, the contiguous pieces of a rank in the file,
    whether the ranks' pieces interleave, and how many files."""
    total: float
    per_rank: float
    calls_per_rank: float              # I/O calls of one rank
    coll_calls: float                  # collective calls of one rank (when collective)
    piece: int                         # contiguous bytes of one rank before another rank's data
    interleaved: bool                  # the ranks' pieces alternate in the file
    within_call: bool                  # one call's range of a rank spans other ranks' data (a view)
    files: int
    writers: int                       # ranks that move data (serial: 1)
    writer_nodes: int
    notes: list[str] = field(default_factory=list)


def _btio(case: Case, ranks: int) -> tuple[int, int, float]:
    """(cells per rank p, bytes of one x row, records): BTIO's diagonal multi-partitioning over p*p."""
    p = math.isqrt(ranks)
    if p * p != ranks:
        raise ParioError(f"btio needs a square number of ranks (nodes x ranks per node = {ranks}); e.g. 16 x 16")
    x = case["grid_points"][0]
    return p, max(1, x // p) * BTIO_POINT, float(case.get("steps", 1))


def geometry(pat: Pattern) -> Geometry:
    case, ranks = pat.case, pat.ranks
    if pat.metadata:
        files = md_files(case, ranks)
        total = float(pat.volume if pat.volume is not None else files * case.get("file_size", 0))
        return Geometry(total, total / ranks, files / ranks, 0, case.get("file_size", 0) or 1, False, False, files,
                        ranks, pat.nodes)
    strategy, pattern = case["strategy"], case["pattern"]
    total = float(case_bytes(case, ranks))
    xfer = int(case.get("xfer") or case.get("block") or 1)
    interleaved = within = False
    if pattern == "btio":
        cells, piece, steps = _btio(case, ranks)
        nonblocking = (case.get("lib") or {}).get("mode") in ("iput", "bput")
        calls = steps if nonblocking else steps * cells
        coll_calls, interleaved, within = calls, True, True
    elif pattern == "subarray":
        dims = case.get("ldims") or [1]
        piece = int(dims[-1]) * 8
        calls = max(1.0, total / ranks / xfer)
        coll_calls, interleaved, within = calls, ranks > 1, ranks > 1
    else:
        block, segments = int(case.get("block", xfer)), int(case.get("segments", 1))
        calls = block * segments / xfer
        coll_calls = calls
        piece = xfer if pattern == "random" else block
        interleaved = ranks > 1 and (segments > 1 or pattern == "random") and strategy == "shared"
    if pat.volume is not None:  # an application's amount: the same calls, each larger
        scale = pat.volume / total if total else 1.0
        total = float(pat.volume)
        calls *= scale
        coll_calls *= scale
    files = {"fpp": ranks, "nfiles": int(case.get("nfiles") or 1), "pernode": pat.nodes}.get(strategy, 1)
    writers, writer_nodes = (1, 1) if strategy == "serial" else (ranks, pat.nodes)
    per_writer = total / writers
    if strategy == "serial":
        calls *= ranks
    return Geometry(total, per_writer, calls, coll_calls, int(piece), interleaved and strategy != "fpp",
                    within and strategy == "shared", files, writers, writer_nodes)


def layout(pat: Pattern, default_count: int, default_size: int, servers: int, cap: bool = True) -> tuple[int, int]:
    """(stripe count, stripe size) of the phase's new files: the run's layout, else the case's
    striping hints (striping_factor -1: every server), else the system's default. `cap`: the count
    is at most the servers (Lustre's OSTs; not CephFS, whose stripes are objects CRUSH places)."""
    hints = pat.hints
    count = pat.stripe_count
    if count is None and "striping_factor" in hints:
        try:
            count = int(hints["striping_factor"])
        except ValueError:
            count = None
    if count is not None and count < 0:
        count = servers
    size = pat.stripe_size
    if size is None and "striping_unit" in hints:
        try:
            size = int(hints["striping_unit"])
        except ValueError:
            size = None
    count = count or default_count
    return max(1, min(count, servers) if cap else count), size or default_size


def from_case(case: Case, run: dict[str, Any], op: str | None = None) -> Pattern:
    """A Pattern from an engine case and the keys bench cannot say (nodes, ranks_per_node,
    stripe_count, stripe_size, buffer, volume, fixed, assumed)."""
    ops = [o for o in case.get("ops", []) if o in ("write", "read")]
    own = (case.get("_layout") or [{}])[0]  # the layout the case creates its files with (--stripe-count ...)
    count, size, obj = run.get("stripe_count"), run.get("stripe_size"), run.get("object_size")
    count = int(own["stripe_count"]) if count is None and own.get("stripe_count") else count
    size = int(own["stripe_size"]) if size is None and own.get("stripe_size") else size
    obj = int(own["object_size"]) if obj is None and own.get("object_size") else obj
    return Pattern(case=case, nodes=int(run.get("nodes", 1)), ranks_per_node=int(run.get("ranks_per_node", 1)),
                   op=op or (ops[0] if ops else "write"), stripe_count=count,
                   stripe_size=size, object_size=int(obj) if obj else None, buffer=run.get("buffer"),
                   volume=run.get("volume") if isinstance(run.get("volume"), (int, float)) else None,
                   fixed=run.get("fixed") if isinstance(run.get("fixed"), (int, float)) else None,
                   assumed=tuple(run.get("assumed", ())))
