"""How the report's plots look: one palette that prints and that colour-blind readers tell apart
(Okabe-Ito), one layout, and the traces the rate plots share: the median of each case with its
min-max over repetitions as an error bar, and every repetition as a point."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

PALETTE = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
COLOURS = {"write": "#0072B2", "read": "#D55E00", "verify": "#009E73",
           "open": "#E69F00", "xfer": "#0072B2", "sync": "#CC79A7", "close": "#009E73",
           "seek": "#56B4E9", "stat": "#F0E442", "other": "#777777", "meta": "#777777"}
FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
# Flags that change how a median is drawn: an open marker and the flag's word beside it.
SUSPECT = ("cache?", "warm", "partial")


def layout(height: int = 380, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "template": "simple_white", "height": height, "font": {"family": FONT, "size": 12},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 50}, "hovermode": "closest",
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0},
    }
    base.update(extra)
    return base


TOGGLE_MARGIN = 80   # px right of the plot for the linear/log buttons (layout(margin=...) of a plot with them)


def log_toggle(axis: str = "yaxis") -> list[dict[str, Any]]:
    """Buttons to switch an axis between linear and log (rates from page cache and from a device
    differ by orders of magnitude), stacked right of the plot area, in its margin (TOGGLE_MARGIN):
    under it they covered the last category's axis label."""
    return [{"type": "buttons", "direction": "down", "x": 1.01, "xanchor": "left", "y": 1.0, "yanchor": "top",
             "showactive": True, "pad": {"r": 0, "t": 0}, "font": {"size": 11},
             "buttons": [{"label": "linear", "method": "relayout", "args": [{f"{axis}.type": "linear"}]},
                         {"label": "log", "method": "relayout", "args": [{f"{axis}.type": "log"}]}]}]


def toggled(**extra: Any) -> dict[str, Any]:
    """layout() with the linear/log buttons on the y axis and the right margin they sit in."""
    out = layout(**extra)
    out["updatemenus"] = log_toggle()
    out["margin"] = {**out["margin"], "r": TOGGLE_MARGIN}
    return out


def spread_traces(x: list[str], spreads: list[dict | None], *, name: str, colour: str, group: str,
                  unit: str, notes: list[str] | None = None, xaxis: str | None = None,
                  yaxis: str | None = None, showlegend: bool = True) -> list[go.Scatter]:
    """Median with a min-max error bar per x, and each repetition as a point (analysis.summary's
    spreads: median, min, max, n, samples). A median whose note has a suspect flag is drawn open,
    with the note written beside it."""
    notes = notes or [""] * len(x)
    x = [plain(v) for v in x]
    keep = [i for i, s in enumerate(spreads) if s]
    xs = [x[i] for i in keep]
    med = [spreads[i]["median"] for i in keep]            # type: ignore[index]
    hi = [spreads[i]["max"] - spreads[i]["median"] for i in keep]   # type: ignore[index]
    lo = [spreads[i]["median"] - spreads[i]["min"] for i in keep]   # type: ignore[index]
    text = [notes[i] for i in keep]
    open_ = [any(f in notes[i] for f in SUSPECT) for i in keep]
    hover = [f"{x[i]}<br>{name}: median {_num(spreads[i]['median'])} {unit}<br>"   # type: ignore[index]
             f"min {_num(spreads[i]['min'])}, max {_num(spreads[i]['max'])}, n={spreads[i]['n']}"  # type: ignore[index]
             + (f"<br>{notes[i]}" if notes[i] else "") for i in keep]
    axes = {k: v for k, v in (("xaxis", xaxis), ("yaxis", yaxis)) if v}
    median = go.Scatter(
        x=xs, y=med, mode="markers+text", name=f"{name} median [min-max]", legendgroup=group, offsetgroup=group,
        showlegend=showlegend, text=[t.replace("verified", "").strip(", ") for t in text],
        textposition="middle right", textfont={"size": 11, "color": colour},
        marker={"size": 12, "color": ["#ffffff" if o else colour for o in open_], "symbol": "diamond",
                "line": {"width": 2, "color": colour}},
        error_y={"type": "data", "symmetric": False, "array": hi, "arrayminus": lo, "color": colour,
                 "thickness": 1.5, "width": 10},
        hovertext=hover, hoverinfo="text", **axes)
    px, py, ph = [], [], []
    for i in keep:
        for rep, v in enumerate(spreads[i]["samples"]):   # type: ignore[index]
            px.append(x[i])
            py.append(v)
            ph.append(f"{x[i]}<br>{name}, repetition {rep + 1}: {_num(v)} {unit}")
    points = go.Scatter(x=px, y=py, mode="markers", name=f"{name} each repetition", legendgroup=group,
                        offsetgroup=group, showlegend=showlegend, hovertext=ph, hoverinfo="text",
                        marker={"size": 7, "color": colour, "opacity": 0.6, "symbol": "circle"}, **axes)
    return [median, points]


def _num(x: float) -> str:
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def empty_note(fig: go.Figure, text: str) -> go.Figure:
    fig.add_annotation(text=text, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
    return fig


def plain(text: str) -> str:
    """Text from a log or a job file shown inside a plot: plotly reads a few HTML tags in labels
    and hover text, so < and > are written as entities (they still display as < and >)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
