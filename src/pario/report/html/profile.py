"""A profile log as a section of the page: the job, I/O per interface, a sortable per-file table,
access-size histograms per interface, the read/write/metadata time split, the per-rank spread of
shared files, and the operation timeline of a --trace log (trace.py). Draws the views of
pario.analysis.profile, the same that `pario profile show` prints."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pario.analysis.profile.views import hist
from pario.model.units import tenths
from pario.report.html import anchors, trace
from pario.report.html.page import Cell, Note, Plot, Section, Table
from pario.report.html.style import COLOURS, layout, plain
from pario.report.terminal import profile as shown
from pario.report.terminal.profile import FILE_COLUMNS, file_cells, job_lines, ranked_files, runtime_line, split

MAX_FILES = 2000      # rows of the per-file table; the rest is counted in a note


def _table(anchor: str, title: str, cols: list[Any], rows: list[list[str]], caption: str = "") -> Table:
    """A table of report/terminal/profile.py's (the same columns and cells as `pario profile show`)."""
    return Table(anchor, title, [c.header.replace("\n", " ") for c in cols], rows, caption)


def _files(n: int, files: list[dict[str, Any]]) -> list[Table | Note]:
    shown = ranked_files(files)
    rows: list[list[Cell | str]] = [[Cell(text, sort, mark="path" if i == 0 else "")
                                     for i, (text, sort) in enumerate(file_cells(f))] for f in shown[:MAX_FILES]]
    out: list[Table | Note] = [Table(
        anchors.profile(n, "files"), f"Files (top {len(rows)} of {len(files)} by bytes and time)",
        [c.header.replace("\n", " ") for c in FILE_COLUMNS], rows,
        "Every file with I/O, most bytes and time first; click a header to sort. sequential: POSIX accesses after "
        "the previous one; unaligned: starts off the file system's block or stripe size (alignment).", sortable=True)]
    if len(shown) > MAX_FILES:
        out.append(Note(f"The table lists the {MAX_FILES} files with the most bytes and time of {len(shown)} "
                        "(`pario profile show LOG --json` has all)."))
    return out


def _sizes(n: int, files: list[dict[str, Any]]) -> Plot | None:
    per: dict[str, dict[str, dict[str, int]]] = {}
    for f in files:
        for rw in ("READ", "WRITE"):
            acc = per.setdefault(f["module"], {}).setdefault(rw, {})
            for bucket, count in hist(f["module"], f["counters"], rw).items():
                acc[bucket] = acc.get(bucket, 0) + count
    mods = [m for m, d in per.items() if any(sum(v.values()) for v in d.values())]
    if not mods:
        return None
    fig = make_subplots(rows=1, cols=len(mods), subplot_titles=mods, shared_yaxes=False)
    for i, mod in enumerate(mods):
        for rw, op in (("READ", "read"), ("WRITE", "write")):
            buckets = per[mod].get(rw, {})
            fig.add_trace(go.Bar(x=[b.replace("_", "-") for b in buckets], y=list(buckets.values()), name=op,
                                 marker={"color": COLOURS[op]}, legendgroup=op, showlegend=i == 0,
                                 hovertemplate=f"{mod} {op}s of %{{x}} bytes: %{{y}}<extra></extra>"),
                          row=1, col=i + 1)
    fig.update_layout(layout(height=360, barmode="group"))
    fig.update_yaxes(title_text="operations", col=1)
    fig.update_xaxes(tickangle=-45)
    return Plot(anchors.profile(n, "sizes"), "Access sizes per interface", fig,
                "Operations per size range, reads and writes, summed over files (buckets as Darshan's; "
                "100K-1M holds sizes below 1 MiB, exactly 1 MiB is in 1M-4M).")


def _time_split(n: int, files: list[dict[str, Any]]) -> Plot | None:
    keys = ("read_time", "write_time", "meta_time")
    per: dict[str, dict[str, float]] = {}
    for f in files:   # the application's files, as the interface table counts them
        m = per.setdefault(f["module"], dict.fromkeys(keys, 0.0))
        for k in keys:
            m[k] += f[k]
    mods = {m: v for m, v in per.items() if sum(v.values()) > 0}
    if not mods:
        return None
    top = sorted(files, key=lambda f: -(f["read_time"] + f["write_time"] + f["meta_time"]))[:15]
    top = [f for f in top if f["read_time"] + f["write_time"] + f["meta_time"] > 0]
    fig = make_subplots(rows=2, cols=1, row_heights=[0.3, 0.7], vertical_spacing=0.12,
                        subplot_titles=["per interface", f"the {len(top)} files with the longest time"])
    labels = [f"{f['module']}: {_short(shown.labelled(f))}" for f in top]   # a node-local file: a bar per node
    for key, name in (("read_time", "read"), ("write_time", "write"), ("meta_time", "meta")):
        fig.add_trace(go.Bar(y=list(mods), x=[m[key] for m in mods.values()], orientation="h", name=name,
                             marker={"color": COLOURS[name]}, legendgroup=name,
                             hovertemplate=f"%{{y}} {name}: %{{x:.4g}} s<extra></extra>"), row=1, col=1)
        fig.add_trace(go.Bar(y=labels, x=[f[key] for f in top], orientation="h", name=name, showlegend=False,
                             marker={"color": COLOURS[name]}, legendgroup=name,
                             hovertext=[f"{plain(shown.labelled(f))}<br>{name}: {f[key]:.4g} s" for f in top],
                             hoverinfo="text"),
                      row=2, col=1)
    fig.update_layout(layout(height=260 + 24 * (len(top) + len(mods)), barmode="stack"))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text="seconds (summed over processes)", row=2, col=1)
    return Plot(anchors.profile(n, "time"), "Time split: read, write, metadata", fig,
                "Seconds inside read, write and metadata calls (open, close, stat, seek, sync), summed over "
                "the processes that used each file.")


def _short(path: str, keep: int = 48) -> str:
    return plain(path if len(path) <= keep else "..." + path[-(keep - 3):])


def _spread(n: int, files: list[dict[str, Any]]) -> Plot | None:
    shared = [f for f in files if f["nprocs"] > 1 and (f["reads"] or f["writes"])]
    if not shared:
        return None
    shared = sorted(shared, key=lambda f: -(f["read_time"] + f["write_time"]))[:30]
    fig = go.Figure()
    line_x: list[float | None] = []
    line_y: list[str | None] = []
    fast: list[float] = []
    slow: list[float] = []
    fast_h: list[str] = []
    slow_h: list[str] = []
    ys: list[str] = []
    for f in shared:
        c, p = f["counters"], f["module"].upper()
        tf, ts = float(c.get(f"{p}_F_FASTEST_RANK_TIME") or 0), float(c.get(f"{p}_F_SLOWEST_RANK_TIME") or 0)
        # a node-local file (one per node under one path) with its node: the nodes' rows stay apart
        y = f"{f['module']}: {_short(shown.labelled(f))}" + (f" (slowest {ts / tf:.2f}x fastest)" if tf else "")
        ys.append(y)
        var = c.get(f"{p}_F_VARIANCE_RANK_TIME")
        sd = f", sd {var ** 0.5:.3g} s" if var is not None else ""
        line_x += [tf, ts, None]
        line_y += [y, y, None]
        fast.append(tf)
        slow.append(ts)
        fast_h.append(f"{plain(shown.labelled(f))}<br>fastest: rank {c.get(f'{p}_FASTEST_RANK')} {tf:.4g} s, "
                      f"{tenths(c.get(f'{p}_FASTEST_RANK_BYTES'))}{sd}")
        slow_h.append(f"{plain(shown.labelled(f))}<br>slowest: rank {c.get(f'{p}_SLOWEST_RANK')} {ts:.4g} s, "
                      f"{tenths(c.get(f'{p}_SLOWEST_RANK_BYTES'))} ({f['nprocs']} processes){sd}")
    fig.add_trace(go.Scatter(x=line_x, y=line_y, mode="lines", line={"color": "#999999", "width": 2},
                             showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=fast, y=ys, mode="markers", name="fastest rank", hovertext=fast_h, hoverinfo="text",
                             marker={"symbol": "circle", "size": 11, "color": "#009E73"}))
    fig.add_trace(go.Scatter(x=slow, y=ys, mode="markers", name="slowest rank", hovertext=slow_h, hoverinfo="text",
                             marker={"symbol": "diamond", "size": 12, "color": "#D55E00"}))
    fig.update_layout(layout(height=160 + 30 * len(shared), xaxis={"title": "seconds of I/O of one rank",
                                                                   "rangemode": "tozero"},
                             yaxis={"autorange": "reversed", "type": "category"}, margin={"l": 20, "r": 90}))
    fig.update_yaxes(automargin=True)
    return Plot(anchors.profile(n, "spread"), "Per-rank spread of shared files", fig,
                "For each file used by several processes: the I/O time of its fastest and slowest rank "
                "(hover for the ranks, their bytes and the standard deviation over ranks).")


def _libraries(n: int, summary: dict[str, Any]) -> list[Table | Note | Plot]:
    """The I/O libraries' tables, the same objects `pario profile show` prints (report/libtables.py),
    and each library's access sizes as a plot."""
    from pario.analysis.profile.libviews import views_of_summary
    from pario.report.libtables import histogram_counts, sections

    views = {v.lib.name: v for v in views_of_summary(summary)}
    out: list[Table | Note | Plot] = []
    for sec in sections(list(views.values())):
        out.append(Note(f"{sec.heading}: " + "; ".join(sec.lines) if sec.lines else sec.heading))
        for t in sec.tables:
            out.append(Table(anchors.profile(n, t.key), t.title, [c.header.replace("\n", " ") for c in t.columns],
                             t.rows, t.caption))
        counts = histogram_counts(views[sec.library])
        if counts:
            fig = go.Figure()
            for op in ("read", "write"):
                buckets = counts.get(op, {})
                if buckets:
                    fig.add_trace(go.Bar(x=[b.replace("_", "-") for b in buckets], y=list(buckets.values()), name=op,
                                         marker={"color": COLOURS[op]},
                                         hovertemplate=f"{op}s of %{{x}} bytes: %{{y}}<extra></extra>"))
            fig.update_layout(layout(height=320, barmode="group"))
            fig.update_yaxes(title_text="calls")
            fig.update_xaxes(tickangle=-45)
            title = views[sec.library].lib.title
            out.append(Plot(anchors.profile(n, f"{sec.library}-size-plot"), f"{title} access sizes", fig,
                            f"{title} data calls per size range (the bytes each call asked for), reads and writes."))
    return out


def section(n: int, name: str, job: dict[str, Any], summary: dict[str, Any]) -> Section:
    """The n-th profile log (1, 2, ...): its job document (analysis.profile.load) and the summary of
    it (analysis.profile.summary, what `pario profile show --json` prints). Every table is one of
    `pario profile show`'s (report/terminal/profile.py), with the same figures; the plots draw them."""
    view = summary["job"]
    files, runtime = split(summary)   # the application's files; the MPI runtime's apart, as in the terminal
    sec = Section(anchors.profile(n, "section"), f"Profile: {name}",
                  intro="What the program did to files, as `pario profile show` prints it, with plots.")
    sec.items.append(Table(anchors.profile(n, "job"), "Job", [""], [[line] for line in job_lines(view)]))
    if view["partial"] or view["dropped_records"] or view["trace_dropped"]:
        sec.items.append(Note("Some limits were hit (see the Job table): the figures below say what was kept.", "warn"))
    if summary.get("nodes"):   # a job over several nodes: the terminal's table of them
        from pario.report.terminal.profile_nodes import CAPTION, TITLE, node_table

        cols, rows = node_table(summary["nodes"])
        sec.items.append(_table(anchors.profile(n, "nodes"), TITLE, cols, rows, CAPTION))
    sec.items += _libraries(n, summary)
    if not files:
        sec.items.append(Note("No file I/O of the application was recorded (paths under the excluded prefixes and "
                              "the MPI runtime's own files are not counted)."))
    else:
        cols, rows = shown.module_rows(files)
        sec.items.append(_table(anchors.profile(n, "interfaces"), "I/O by interface", cols, rows,
                                "The application's files; the MPI runtime's files apart, below."))
        sec.items += _files(n, files)
        # each plot, and under it the terminal's table of the figures it draws (none for the time split)
        for plot, table in ((_sizes(n, files), ("sizes-table", "Access sizes", shown.histogram_rows)),
                            (_time_split(n, files), None),
                            (_spread(n, files), ("spread-table", "Per-rank spread", shown.spread_rows))):
            if plot is None:
                continue
            sec.items.append(plot)
            if table is not None:
                key, title, make = table
                cols, rows = make(files)
                sec.items.append(_table(anchors.profile(n, key), title, cols, rows, "The figures drawn above."))
        cols, rows = shown.hint_rows(files)
        if rows:
            sec.items.append(_table(anchors.profile(n, "hints"), "MPI-IO files: hints (MPI_File_get_info) and MCA "
                                    "settings (MPI_T)", cols, rows))
    if runtime:
        sec.items.append(Note(runtime_line(runtime)))
    sec.items += trace.items(n, job)
    return sec
