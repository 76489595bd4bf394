"""A tuning session (model.tuning.TuningSession, made by `pario tune`) as a section of the page:
the trials in the order they ran with the incumbent, which knobs mattered, the winner against the
default with its interval, and the knobs left out of the search."""
from __future__ import annotations

import plotly.graph_objects as go

from pario.analysis.tune_cache import ceiling_of
from pario.model.tuning import TuningSession
from pario.model.units import count
from pario.report.html import anchors
from pario.report.html.page import Cell, Note, Plot, Section, Table
from pario.report.html.style import PALETTE, layout, plain
from pario.report.terminal.tune import spent_lines, winner_lines

STATE_COLOURS = {"complete": "#0072B2", "control": "#000000", "pruned": "#E69F00", "failed": "#D55E00",
                 "screened": "#56B4E9", "confirm": "#CC79A7"}
# screened: a guess measured, its batch not judged yet (interrupted); confirm: the best candidate re-run
# beside the last control, the run its gain is measured on


def _settings_text(settings: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items())) or "default"


def _trials(s: TuningSession) -> Plot:
    fig = go.Figure()
    # a state without a colour of its own still gets its points: a trial missing from the plot is unseen
    for state in list(STATE_COLOURS) + sorted({t.state for t in s.trials} - set(STATE_COLOURS)):
        trials = [t for t in s.trials if t.state == state]
        if not trials:
            continue
        xs, ys, hover = [], [], []
        for t in trials:
            for rep, rate in enumerate(t.rates):
                xs.append(t.number)
                ys.append(rate)
                hover.append(f"trial {t.number} ({state}), repetition {rep + 1}: {rate:.4g} MiB/s<br>"
                             f"{plain(_settings_text(t.settings))}")
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=f"{state}: each repetition", hovertext=hover,
                                 hoverinfo="text", legendgroup=state,
                                 marker={"size": 6, "opacity": 0.5, "color": STATE_COLOURS.get(state, "#999999")}))
        med = [t for t in trials if t.median is not None]
        fig.add_trace(go.Scatter(x=[t.number for t in med], y=[t.median for t in med], mode="markers",
                                 name=f"{state}: median", legendgroup=state, hoverinfo="text",
                                 hovertext=[f"trial {t.number} ({state}): median {t.median:.4g} MiB/s<br>"
                                            f"{plain(_settings_text(t.settings))}"
                                            + (f"<br>{plain(t.note)}" if t.note else "") for t in med],
                                 marker={"size": 11, "symbol": "diamond" if state != "control" else "square",
                                         "color": STATE_COLOURS.get(state, "#999999")}))
    failed = [t for t in s.trials if t.median is None]
    if failed:  # no rate to plot: a cross on the axis, so that the trial is not silently missing
        fig.add_trace(go.Scatter(x=[t.number for t in failed], y=[0.0] * len(failed), mode="markers",
                                 name="no rate (failed)", hoverinfo="text",
                                 hovertext=[f"trial {t.number} ({t.state}): no rate" + (f": {plain(t.note)}" if t.note
                                                                                          else "") for t in failed],
                                 marker={"symbol": "x", "size": 11, "color": STATE_COLOURS["failed"]}))
    # the incumbent: the best median so far among complete trials, as a step line
    best, steps_x, steps_y = None, [], []
    for t in sorted(s.trials, key=lambda t: t.number):
        if t.state == "complete" and t.median is not None and (best is None or t.median > best):
            best = t.median
        if best is not None:
            steps_x.append(t.number)
            steps_y.append(best)
    if steps_x:
        fig.add_trace(go.Scatter(x=steps_x, y=steps_y, mode="lines", name="incumbent (best median so far)",
                                 line={"shape": "hv", "color": "#009E73", "width": 2}, hoverinfo="skip"))
    limit = (ceiling_of(s) or {}).get(f"{s.objective}_mib")
    if limit:   # above it: page cache, not the file system (analysis.tune_cache)
        fig.add_hline(y=limit, line={"dash": "dash", "color": "#777777", "width": 1},
                      annotation_text=f"{s.objective} device ceiling (O_DIRECT) {limit:.0f} MiB/s",
                      annotation_position="top left", annotation_font={"size": 10, "color": "#777777"})
    fig.update_layout(layout(height=400, xaxis={"title": "trial, in the order run"},
                             yaxis={"title": f"{s.objective} MiB/s", "rangemode": "tozero"}))
    return Plot(anchors.tune(s.id, "trials"), "Trials over time", fig,
                "Each trial's repetitions (dots) and median (diamond); squares are re-runs of the default "
                "(controls: a file system that drifted shows there); the green step is the incumbent"
                + ("; the dashed line is the device ceiling: a median above it is probably page cache." if limit
                   else "."))


def _importance(s: TuningSession) -> Plot | None:
    if not s.importance:
        return None
    items = sorted(s.importance.items(), key=lambda kv: kv[1])
    fig = go.Figure(go.Bar(x=[v for _, v in items], y=[plain(k) for k, _ in items], orientation="h",
                           marker={"color": PALETTE[0]}, hovertemplate="%{y}: %{x:.3g}<extra></extra>"))
    fig.update_layout(layout(height=140 + 28 * len(items),
                             xaxis={"title": "share of the variance of log rate explained"}))
    return Plot(anchors.tune(s.id, "importance"), "Which knobs mattered", fig,
                f"The knobs whose values explain the trials' rates beyond chance ({s.importance_method}).")


def _winner(s: TuningSession) -> list[Plot | Table | Note]:
    w = s.winner
    if w is None:
        return []
    lo, hi = w.interval
    fig = go.Figure(go.Scatter(
        x=[w.gain], y=["winner / default"], mode="markers+text", text=[f"{w.gain:.2f}x [{lo:.2f}-{hi:.2f}]"],
        textposition="top center", marker={"size": 14, "symbol": "diamond", "color": PALETTE[0]},
        error_x={"type": "data", "symmetric": False, "array": [hi - w.gain], "arrayminus": [w.gain - lo],
                 "thickness": 2, "width": 12, "color": PALETTE[0]},
        hovertext=[f"gain {w.gain:.3g}x, interval {lo:.3g}-{hi:.3g} ({plain(w.method)})"], hoverinfo="text"))
    fig.add_vline(x=1.0, line={"dash": "dash", "color": "#777777"}, annotation_text="no gain",
                  annotation_position="top")
    fig.update_layout(layout(height=220, xaxis={"title": "median of the winner / median of the default"},
                             yaxis={"showticklabels": False}))
    who = "The winner" if w.proven else "The best candidate"   # the terminal's words, too
    out: list[Plot | Table | Note] = [Plot(anchors.tune(s.id, "winner"), f"{who} against the default", fig,
                                    f"Gain with its interval ({w.method}); an interval that includes 1.0 "
                                    "would not establish a gain." + (f" Runs: {', '.join(map(str, w.runs))}."
                                                                     if w.runs else ""))]
    if not w.proven:
        out.append(Note(f"Not faster than the default beyond the noise ({w.verdict}): keep the default's "
                        "settings; the candidate's are below for reference.", "warn"))
    # the terminal's words and figures (report/terminal/tune.py), the cache line right by the gain it qualifies
    cache = (w.cache or {}).get("line")
    for _, line in winner_lines(s):
        out.append(Note(line, ("warn" if w.cache.get("above") else "info") if line == cache else "info"))
    rows: list[list[Cell | str]] = [[k, v] for k, v in sorted(w.settings.items())]
    # a winner that changes the case (collective=false, a file strategy) has no setting to paste: say what it
    # is, as the terminal does, rather than an empty table
    rows += [[k, f"{v} (the case itself changes: the program's own I/O calls or files, not a setting)"]
             for k, v in w.case_changes.items()]
    rows += [[f"as {dialect}", Cell(text)] for dialect, text in w.rendered.items()]
    if w.bench_flags and w.proven:   # a command for a winner only, as the terminal says
        rows.append(["as one bench command", Cell(w.bench_flags)])
    out.append(Table(anchors.tune(s.id, "settings"), f"{who}'s settings", ["setting", "value"], rows))
    return out


def section(s: TuningSession) -> Section:
    name = s.case.get("name", "?") if isinstance(s.case, dict) else "?"
    sec = Section(anchors.tune(s.id, "section"), f"Tuning session {s.id if s.id is not None else ''}".strip(),
                  intro=f"{s.objective} rate of case {name} on {count(s.ranks, 'rank')}; status {s.status}; "
                        f"{s.counted()} trials over " + (", ".join(
                            f"{k} ({len(v)} values)" for k, v in s.space.items()) or "no knobs") + ".")
    if s.trials:
        sec.items.append(_trials(s))
    else:
        sec.items.append(Note("No trial has run yet."))
    imp = _importance(s)
    if imp:
        sec.items.append(imp)
    sec.items += _winner(s)
    if s.winner is None:
        why = {"running": "the session is still running.", "interrupted": "the session was interrupted first."}
        sec.items.append(Note("No winner: " + why.get(s.status, "the tuner found no setting better than the "
                                                              "default beyond the noise.")))
    sec.items += [Note(line) for line in spent_lines(s)]
    if s.dropped:
        sec.items.append(Table(anchors.tune(s.id, "dropped"), "Knobs left out of the search",
                               ["knob", "why"], [[d.key, d.reason] for d in s.dropped]))
    return sec
