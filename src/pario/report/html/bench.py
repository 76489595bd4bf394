"""A stored bench run as a section of the page: what ran where, bandwidth and IOPS per case
(median, min-max, every repetition, the cache flags on the points), imbalance, per-rank timelines,
requested against effective settings, and the metadata workload. Draws rows made by
pario.analysis.summary, as the terminal tables do; computes nothing --json lacks."""
from __future__ import annotations

import plotly.graph_objects as go

from pario.analysis.nodes import rank_hosts
from pario.analysis.summary import FLAG_HELP, OPS
from pario.model.case import MD_OPS
from pario.report.html import anchors, settings, timeline
from pario.report.html.page import Note, Plot, Section, Table
from pario.report.html.style import COLOURS, PALETTE, layout, spread_traces, toggled
from pario.report.terminal.bench import measured_line
from pario.report.terminal.layers import HEAD as LAYERS_HEAD
from pario.report.terminal.layers import layers_table
from pario.report.terminal.servers import metadata_table, servers_table
from pario.report.terminal.tables import case_labels, footer_lines, op_notes, summary_table


def _plain(line: str) -> str:
    """A terminal line (rich markup) as the page's text."""
    from rich.text import Text

    return Text.from_markup(line).plain


def _tables(run_id: int, data: list[dict], result: dict) -> list[Table | Note]:
    """The terminal's tables of the run (`pario results show`), with their lines: the same figures."""
    from pario.analysis.layers import is_layers_run

    out: list[Table | Note] = []
    measured = measured_line(result.get("cases") or [])
    if measured:
        out.append(Note(measured))
    cols, cells = summary_table(data)
    out.append(Table(anchors.run(run_id, "summary"), "Cases", [c.header.replace("\n", " ") for c in cols], cells,
                     "median [min-max] over the repetitions, as `pario results show` prints them."))
    out += [Note(_plain(line)) for line in footer_lines(data)]
    if is_layers_run(data):
        cols, cells, lines = layers_table(data, result)
        out.append(Table(anchors.run(run_id, "layers"), "Layers", [c.header.replace("\n", " ") for c in cols],
                         cells, LAYERS_HEAD + "."))
        out += [Note(line) for line in lines]
    return out


def facts(run: dict) -> list[list[str]]:
    """Where and how the run ran: the lines `pario results show` prints above its table, one a row."""
    from pario.report.terminal.runs import env_lines

    return [[_plain(line)] for line in env_lines(run)]


def _rate_plot(run_id, labels: list[str], rows: list[dict], env: dict, what: str) -> Plot:
    """Bandwidth (what=bandwidth) or IOPS per case and operation."""
    fig = go.Figure()
    for op in OPS:
        if not any(r.get(op) for r in rows):
            continue
        key = "bw_mib" if what == "bandwidth" else "iops_spread"
        spreads = [(r.get(op) or {}).get(key) for r in rows]
        notes = [op_notes(r, op) if r.get(op) else "" for r in rows]
        for t in spread_traces(labels, spreads, name=op, colour=COLOURS[op], group=op, notes=notes,
                               unit="MiB/s" if what == "bandwidth" else "ops/s"):
            fig.add_trace(t)
    ceiling = env.get("ceiling") or {}
    if what == "bandwidth":
        for op in OPS:
            limit = ceiling.get(f"{op}_mib")
            if limit and any(r.get(op) for r in rows):
                fig.add_hline(y=limit, line={"dash": "dash", "color": COLOURS[op], "width": 1},
                              annotation_text=f"{op} device ceiling (O_DIRECT) {limit:.0f} MiB/s",
                              annotation_position="top left", annotation_font={"size": 10, "color": COLOURS[op]})
    unit = "MiB/s, open to close" if what == "bandwidth" else "operations/s (transfer time)"
    fig.update_layout(toggled(height=420, scattermode="group", yaxis={"title": unit, "rangemode": "tozero"},
                              xaxis={"title": None}))
    flags = sorted({f for r in rows for f in r["flags"]} | {f for r in rows for op in OPS for f in
                                                            (r.get(op) or {}).get("flags", [])})
    legend = " ".join(f"{f}: {FLAG_HELP[f]}." for f in flags if f in FLAG_HELP)
    caption = ("Diamond: median over repetitions, bar: min-max, dots: each repetition. "
               "An open diamond is flagged, and the flag is written beside it. " + legend)
    title = "Bandwidth per case" if what == "bandwidth" else "IOPS per case"
    return Plot(anchors.run(run_id, what), title, fig, caption.strip())


def _imbalance_plot(run_id, labels: list[str], rows: list[dict]) -> Plot:
    fig = go.Figure()
    for op in OPS:
        spreads = [(r.get(op) or {}).get("imbalance_spread") for r in rows]
        if any(spreads):
            for t in spread_traces(labels, spreads, name=op, colour=COLOURS[op], group=op, unit="x"):
                fig.add_trace(t)
    fig.add_hline(y=1.0, line={"dash": "dot", "color": "#777777", "width": 1}, annotation_text="balanced",
                  annotation_position="bottom left", annotation_font={"size": 10})
    fig.update_layout(layout(height=340, scattermode="group",
                             yaxis={"title": "last rank done / first rank done"}))
    return Plot(anchors.run(run_id, "imbalance"), "Imbalance per case", fig,
                "How much later the last rank closed than the first, per phase (1.00: all together). "
                "The per-rank timelines below show who was late.")


def _metadata(run_id, rows: list[dict]) -> list[Plot | Table]:
    fig = go.Figure()
    for i, row in enumerate(rows):
        phases = row["metadata"]["phases"]
        ops = [op for op in MD_OPS if op in phases]
        for t in spread_traces(ops, [phases[op].get("files_per_s") for op in ops], name=row["name"],
                               colour=PALETTE[i % len(PALETTE)], group=row["name"], unit="files/s",
                               notes=[", ".join(row["flags"])] + [""] * (len(ops) - 1)):
            fig.add_trace(t)
    fig.update_layout(toggled(height=380, scattermode="group",
                              yaxis={"title": "files per second", "rangemode": "tozero"}))
    table_rows = []
    for row in rows:
        md = row["metadata"]
        v = row.get("verify")
        table_rows.append([row["name"], "shared" if md.get("shared_dir", True) else "per rank",
                           str(md.get("files_per_rep", "?")), str(md.get("created", "?")), str(md.get("removed", "?")),
                           str(md.get("left_behind") or 0),
                           "-" if not v else ("verified" if not v["errors"] else f"{v['errors']} words differ")])
    return [Plot(anchors.run(run_id, "metadata"), "Metadata workload: files per second of each phase", fig,
                 "files handled by all ranks / time from the first rank's start to the last rank's end."),
            Table(anchors.run(run_id, "metadata-counts"), "Metadata workload: exact counts",
                  ["case", "tree", "files/rep", "created", "removed", "left behind", "read back"], table_rows)]


def section(run: dict, rows: list[dict]) -> Section:
    """One stored run (Store.get_run) and its summary rows (analysis.summary.summarize)."""
    run_id = run["id"]
    result = run.get("result") or {}
    env = run.get("env") or {}
    sec = Section(anchors.run(run_id, "section"), f"Run {run_id}: {run.get('kind', 'bench')}",
                  intro="MiB/s are open-to-close (sync included), like IOR; the terminal's "
                        f"`pario results show {run_id}` prints the same figures.")
    sec.items.append(Table(anchors.run(run_id, "facts"), "Where it ran", [""], facts(run)))
    data = [r for r in rows if r.get("workload") != "metadata"]
    metadata = [r for r in rows if r.get("workload") == "metadata"]
    if not rows:
        sec.items.append(Note("This run has no cases (it ended before the first one).", "warn"))
    if data:
        sec.items += _tables(run_id, data, result)
        labels = case_labels(data)
        sec.items.append(_rate_plot(run_id, labels, data, env, "bandwidth"))
        details = [d for r in data for d in r.get("cache_details", [])]
        if details:
            sec.items.append(Note("Above the device ceiling: " + "; ".join(
                f"{lab}: {', '.join(r['cache_details'])}" for lab, r in zip(labels, data) if r.get("cache_details"))
                + ".", "warn"))
        sec.items.append(_rate_plot(run_id, labels, data, env, "iops"))
        sec.items.append(_imbalance_plot(run_id, labels, data))
        cases = {c.get("index"): c for c in result.get("cases") or []}
        hosts = rank_hosts(result)
        for label, row in zip(labels, data):
            plot = timeline.case_plot(run_id, label, cases.get(row["index"]) or {}, hosts)
            if plot:
                sec.items.append(plot)
    if metadata:
        sec.items += _metadata(run_id, metadata)
    sec.items += settings.items(run_id, result.get("cases") or [], rows)
    for what, made in (("servers", servers_table), ("servers-md", metadata_table)):
        title, columns, cells, notes = made(result.get("cases") or [])
        if cells:  # a striped file system's servers: each one's bytes, the time their placement predicts
            sec.items.append(Table(anchors.run(run_id, what), "File servers", columns, cells, title + "."))
            sec.items += [Note(text, level or "info") for text, level in notes]
    return sec
