"""The operation timeline of a `pario profile --trace` log: one row per process, one bar per
operation (coloured by kind), zoomable; past a budget of bars, runs of operations of one kind are
merged (analysis.profile.trace) and the page says by how much."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from pario.analysis.profile.trace import DEFAULT_BUDGET, Timeline, timeline
from pario.model.units import tenths
from pario.report.html import anchors
from pario.report.html.page import Note, Plot
from pario.report.html.style import COLOURS, layout, plain
from pario.report.terminal.profile import secs

KINDS = ("write", "read", "open", "close", "sync", "seek", "stat", "other")
# Each process row has three lanes, so that interleaved reads, writes and metadata calls do not hide
# one another when zoomed out: writes above, reads in the middle, the rest below.
LANES = {"write": -0.27, "read": 0.0}
OTHER_LANE = 0.27


def _r(x: float) -> float:
    return round(x, 6)    # 1 us: as fine as a screen can show a run of seconds, and short in the page


def figure(tl: Timeline) -> go.Figure:
    fig = go.Figure()
    by_op: dict[str, list] = {}
    for seg in tl.segments:
        by_op.setdefault(seg.op, []).append(seg)
    for op in sorted(by_op, key=lambda o: KINDS.index(o) if o in KINDS else len(KINDS)):
        segs = by_op[op]
        colour = COLOURS.get(op, "#777777")
        lane = LANES.get(op, OTHER_LANE)
        xs: list[float | None] = []
        ys: list[int | None] = []
        for s in segs:
            xs += [_r(s.start), _r(s.end), None]
            ys += [s.row + lane, s.row + lane, None]
        name = f"{op} ({sum(s.count for s in segs):,})"
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name, legendgroup=op, connectgaps=False,
                                 line={"color": colour, "width": 8}, hoverinfo="skip"))
        # a bar shorter than a pixel draws nothing: a marker at each bar's start keeps it visible
        # at any zoom, and carries what the bar stands for
        hover = []
        for s in segs:
            what = f"{s.count} {op}s" if s.count > 1 else op
            moved = f", {tenths(s.nbytes)}" if s.nbytes else ""
            hover.append(f"{plain(tl.rows[s.row])} {s.module} {what}{moved}, {secs(s.end - s.start)}")
        fig.add_trace(go.Scatter(x=[_r(s.start) for s in segs], y=[s.row + lane for s in segs], mode="markers",
                                 name=name, legendgroup=op, showlegend=False, hovertext=hover, hoverinfo="text",
                                 marker={"symbol": "line-ns", "size": 11, "line": {"width": 2, "color": colour}}))
    fig.update_layout(layout(height=min(1000, 170 + 64 * len(tl.rows)), dragmode="zoom",
                             xaxis={"title": "seconds from the first process's start", "rangemode": "tozero"},
                             yaxis={"tickmode": "array", "tickvals": list(range(len(tl.rows))),
                                    "ticktext": [plain(r) for r in tl.rows],
                                    "autorange": "reversed", "zeroline": False, "range": [len(tl.rows) - 0.5, -0.5]}))
    return fig


def _gap(x: float) -> str:
    return f"{x * 1e9:.0f} ns" if x < 1e-6 else secs(x)


def caption(tl: Timeline) -> str:
    shown = len(tl.segments)
    text = (f"{tl.events:,} operations in the log, one row per process (writes on top, reads in the middle, "
            "other calls below); drag to zoom, double-click to zoom out, hover a bar's start for what it is.")
    if tl.decimated:
        apart = "with no time between them" if not tl.gap else f"at most {_gap(tl.gap)} apart"
        text += (f" Drawn as {shown:,} bars (the page's budget is {tl.budget:,}): consecutive operations of one "
                 f"kind on one process {apart} are drawn as one bar, which says how many operations and bytes it "
                 "stands for; every longer gap is shown.")
    else:
        text += " Every operation is drawn."
    if tl.dropped:
        text += (f" The profiler dropped {tl.dropped:,} further events at its memory bound (counters stay exact; "
                 "`pario profile --mem` raises the bound).")
    return text


def items(n: int, job: dict[str, Any], budget: int = DEFAULT_BUDGET) -> list[Plot | Note]:
    tl = timeline(job, budget)
    if tl is None:
        return [Note("No operation timeline: this log was written without --trace (`pario profile --trace` "
                     "keeps one).")]
    if not tl.segments:
        return [Note("The trace of this log holds no events.")]
    return [Plot(anchors.profile(n, "trace"), "Operation timeline", figure(tl), caption(tl))]
