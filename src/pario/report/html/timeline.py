"""Per-rank timeline of one case: for each rank, when it opened, transferred, synced and closed
(from the engine's per-rank durations; the four steps are back to back, so a rank started at
done - open - xfer - sync - close). One phase is shown at a time, the most imbalanced first;
a menu picks another. A run over several nodes labels each rank with its node."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from pario.model.units import count
from pario.report.html import anchors
from pario.report.html.page import Plot
from pario.report.html.style import COLOURS, layout

STEPS = ("open", "xfer", "sync", "close")
NAMES = {"open": "open", "xfer": "transfer", "sync": "sync", "close": "close"}
MAX_BARS = 16384      # ranks x phases drawn; past it only the most imbalanced phase of each op


def _imbalance(p: dict) -> float:
    first, last = p.get("first_done_s"), p.get("last_done_s")
    return last / first if first and last is not None else 1.0


def _columns(p: dict) -> dict[str, list[float]] | None:
    ranks = p.get("ranks") or {}
    cols = {k: ranks.get(k) for k in (*STEPS, "done")}
    n = len(cols["done"] or [])
    if not n or any(not isinstance(v, list) or len(v) != n for v in cols.values()):
        return None
    try:
        return {k: [float(x or 0.0) for x in v] for k, v in cols.items()}   # type: ignore[union-attr]
    except (TypeError, ValueError):
        return None


def _phase_traces(cols: dict[str, list[float]], visible: bool, hosts: list[str] | None) -> list[go.Bar | go.Scatter]:
    n = len(cols["done"])
    on = [f" ({hosts[r]})" if hosts else "" for r in range(n)]
    ranks = [f"r{r}{on[r]}" for r in range(n)]
    start = [cols["done"][r] - sum(cols[s][r] for s in STEPS) for r in range(n)]
    base = list(start)
    traces: list[Any] = []
    for step in STEPS:
        durations = cols[step]
        traces.append(go.Bar(
            y=ranks, x=durations, base=list(base), orientation="h", name=NAMES[step], visible=visible,
            marker={"color": COLOURS[step], "line": {"width": 0}}, legendgroup=step,
            hovertext=[f"rank {r}{on[r]}: {NAMES[step]} {durations[r] * 1e3:.3g} ms, from {base[r]:.4g} s"
                       for r in range(n)], hoverinfo="text"))
        base = [b + d for b, d in zip(base, durations)]
    first = min(cols["done"])
    traces.append(go.Scatter(
        y=ranks, x=cols["done"], mode="markers", name="done", visible=visible, legendgroup="done",
        marker={"symbol": "line-ns-open", "size": 12, "color": "#000000"},
        hovertext=[f"rank {r}{on[r]} done at {d:.4g} s, {d - first:.3g} s after the first" for r, d in
                   enumerate(cols["done"])], hoverinfo="text"))
    return traces


def case_plot(run_id: int | str, label: str, case: dict, rank_hosts: list[str] | None = None) -> Plot | None:
    """The timeline plot of one result case (schemas/result.schema.json), or None without per-rank data;
    rank_hosts: the host of every rank (analysis.nodes.rank_hosts), shown when the ranks ran on several."""
    phases = [(p, c) for p in case.get("phases") or [] if p.get("op") in ("write", "read", "verify")
              for c in [_columns(p)] if c]
    if not phases:
        return None
    nranks = len(phases[0][1]["done"])
    hosts = rank_hosts if rank_hosts and len(rank_hosts) == nranks and len(set(rank_hosts)) > 1 else None
    cut = ""
    if nranks * len(phases) > MAX_BARS:
        worst: dict[str, tuple[dict, dict[str, list[float]]]] = {}
        for p, c in phases:
            if p["op"] not in worst or _imbalance(p) > _imbalance(worst[p["op"]][0]):
                worst[p["op"]] = (p, c)
        cut = (f" Only the most imbalanced phase of each operation is drawn ({count(nranks, 'rank')} x "
               f"{count(len(phases), 'phase')}).")
        phases = list(worst.values())
    shown = max(range(len(phases)), key=lambda i: _imbalance(phases[i][0]))
    fig = go.Figure()
    per = len(STEPS) + 1
    buttons = []
    for i, (p, c) in enumerate(phases):
        for t in _phase_traces(c, i == shown, hosts):
            fig.add_trace(t)
        visible = [j // per == i for j in range(per * len(phases))]
        buttons.append({"label": f"{p['op']} rep {p.get('rep', 0) + 1} (imbalance {_imbalance(p):.2f})",
                        "method": "update", "args": [{"visible": visible}]})
    menus = [{"buttons": buttons, "active": shown, "x": 1.0, "xanchor": "right", "y": 1.02, "yanchor": "bottom",
              "direction": "down", "showactive": True, "font": {"size": 11}}] if len(phases) > 1 else []
    fig.update_layout(layout(height=min(900, 150 + 22 * nranks), barmode="overlay", bargap=0.25, updatemenus=menus,
                             xaxis={"title": "seconds from the first rank's open"},
                             yaxis={"autorange": "reversed", "title": None, "type": "category"},
                             legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0}))
    p0 = phases[shown][0]
    caption = (f"Each rank's open, transfer, sync and close, back to back{', its node in brackets' if hosts else ''}; "
               "the tick marks when it was done. "
               f"Shown first: {p0['op']} repetition {p0.get('rep', 0) + 1}, the most imbalanced "
               f"(last done {_imbalance(p0):.2f}x the first); the menu shows the other phases.{cut}")
    return Plot(anchors.run(run_id, "timeline", case.get("index", 0)), f"Per-rank timeline: {label}", fig, caption)
