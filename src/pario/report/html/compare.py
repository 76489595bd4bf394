"""Two or more runs on the same axes: each case of the first run (the baseline) with the matching
case of every other run (paired by pario.analysis.compare, as `pario results compare` pairs them),
and the ratio and verdict of each pair in a table, the same as the terminal's."""
from __future__ import annotations

from plotly.subplots import make_subplots

from pario.analysis import compare as analysis
from pario.analysis.summary import OPS
from pario.report.html import anchors
from pario.report.html.page import Cell, Note, Section, Table
from pario.report.html.page import Plot as PagePlot
from pario.report.html.style import PALETTE, layout, spread_traces
from pario.report.terminal.tables import op_notes


def _label(entry: dict) -> str:
    a, b = entry["name_a"], entry["name_b"]
    return a if a == b or not b else (b if not a else f"{a} | {b}")


def section(runs: list[tuple[dict, list[dict]]]) -> Section:
    """runs: (stored run, its summary rows), the first being the baseline."""
    base_run, base_rows = runs[0]
    # x positions: the baseline's cases, then cases only some other run has
    xs: list[str] = [r["name"] for r in base_rows if r.get("workload") != "metadata"]
    placed: list[dict[str, dict]] = [{r["name"]: r for r in base_rows if r.get("workload") != "metadata"}]
    table_rows: list[list[Cell | str]] = []
    for run, rows in runs[1:]:
        data = [r for r in rows if r.get("workload") != "metadata"]
        by_name = {r["name"]: r for r in data}
        mine: dict[str, dict] = {}
        for entry in analysis.compare([r for r in base_rows if r.get("workload") != "metadata"], data):
            if entry["name_b"] is None:
                continue
            x = entry["name_a"] or f"{entry['name_b']} (run {run['id']} only)"
            if x not in xs:
                xs.append(x)
            mine[x] = by_name[entry["name_b"]]
            for op in OPS:
                c = entry[op]
                if not c:
                    continue
                mark = {"B faster": "ok", "B slower": "bad"}.get(c["verdict"], "")  # the noise test's verdict
                ratio = "-" if c["ratio"] is None else f"{c['ratio']:.2f}" + (
                    f" [{c['low']:.2f}-{c['high']:.2f}]" if c.get("low") is not None else "")
                a, b = c.get("a") or {}, c.get("b") or {}
                table_rows.append([f"{base_run['id']} -> {run['id']}", _label(entry) + (
                    f" ({entry['matched_by']})" if entry["matched_by"] not in ("name", "shape") else ""), op,
                    Cell("-" if a.get("median") is None else f"{a['median']:.0f}", a.get("median")),
                    Cell("-" if b.get("median") is None else f"{b['median']:.0f}", b.get("median")),
                    Cell(ratio, c["ratio"]), Cell(c["verdict"], mark=mark)])
        placed.append(mine)
    ops = [op for op in OPS if any(r.get(op) for place in placed for r in place.values())]
    ids = ", ".join(str(r["id"]) for r, _ in runs)
    if not ops:
        return Section(anchors.compare("section"), f"Runs {ids} compared", items=[Note(
            "These runs have no data cases with a bandwidth to compare (metadata cases are shown per run).")])
    fig = make_subplots(rows=max(1, len(ops)), cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=[f"{op} MiB/s" for op in ops])
    for k, ((run, _), place) in enumerate(zip(runs, placed)):
        colour = PALETTE[k % len(PALETTE)]
        for i, op in enumerate(ops):
            spreads = [(place.get(x) or {}).get(op, None) for x in xs]
            notes = [op_notes(place[x], op) if place.get(x) and place[x].get(op) else "" for x in xs]
            for t in spread_traces(xs, [(s or {}).get("bw_mib") for s in spreads], name=f"run {run['id']}",
                                   colour=colour, group=f"run{run['id']}", unit="MiB/s", notes=notes,
                                   showlegend=i == 0):
                fig.add_trace(t, row=i + 1, col=1)
    fig.update_layout(layout(height=260 + 260 * len(ops), scattermode="group"))
    fig.update_yaxes(rangemode="tozero")
    sec = Section(anchors.compare("section"), f"Runs {ids} compared",
                  intro=f"Run {base_run['id']} is the baseline; cases of the other runs are paired with its cases by "
                        "name, then by the same case shape, then by strategy and backend (as `pario results compare`).")
    sec.items.append(PagePlot(anchors.compare("bandwidth"), "Bandwidth of every run on the same axes", fig,
                              "Diamond: median over repetitions, bar: min-max, dots: each repetition; one colour "
                              "per run. Flags (cache?, warm) are written beside the medians they concern."))
    sec.items.append(Table(anchors.compare("table"), "Ratio of medians and verdict",
                           ["runs A -> B", "case", "op", "A MiB/s", "B MiB/s", "B/A [95% interval]", "verdict"],
                           table_rows, "B faster / B slower: the 95% bootstrap interval of the ratio of medians "
                           "excludes 1 (the test of analysis/noise.py, as `pario results compare`); within noise: "
                           "it includes 1; at least 3 repetitions a side are needed for either. `pario results "
                           "compare` also names what differs between the runs.", sortable=True))
    return sec
