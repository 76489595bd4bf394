"""Terminal tables for `pario profile show`: renders the views of pario.analysis.profile.views only,
through fit.py like every other table (the terminal's width, never a cut word or number)."""
from __future__ import annotations

import time
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from pario.analysis.profile.libviews import is_library
from pario.analysis.profile.views import LOOKED_UP_DIRS, hist
from pario.model.units import count, seconds, tenths
from pario.report.terminal.fit import Col, print_fit
from pario.report.terminal.libraries import show as show_libraries

# The record the profiler keeps the MPI runtime's own files in (csrc/profile/profile.h), and the
# paths those files have when recorded one by one (--runtime-files): shown apart from the
# application's files, and left out of the per-interface counts.
RUNTIME_RECORD = "<MPI runtime files>"
RUNTIME_PREFIXES = ("/dev/shm/vader_segment", "/dev/shm/sm_segment", "/dev/shm/pmix", "/tmp/ompi.", "/tmp/prte.",
                    "/tmp/pmix", "/dev/shm/mpich_shar_tmp", "/dev/shm/shm-col-space-", "/dev/shm/Intel_MPI_")


secs = seconds


def size(v: int) -> str:
    return tenths(v).replace(".0 ", " ") if v >= 1024 else f"{v}"


def pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


DIRECTORIES = LOOKED_UP_DIRS   # looked up (stat, open of the directory) by the runtime or libc: no data


def is_runtime(path: str) -> bool:
    """A file of the MPI runtime's own, or a directory looked up: apart from the application's files."""
    return path == RUNTIME_RECORD or path in DIRECTORIES or path.startswith(RUNTIME_PREFIXES) \
        or "pmix_dstor_" in path or ".locktest." in path


def split(summary: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the application's files, the rest: the MPI runtime's files and directories looked up) of a
    profile summary, the I/O libraries' records left out (their own tables): both views count these."""
    every = [f for f in summary["files"] if not is_library(f["module"])]
    return [f for f in every if not is_runtime(f["path"])], [f for f in every if is_runtime(f["path"])]


def runtime_line(runtime: list[dict[str, Any]]) -> str:
    """What was left out of the application's files, in one sentence ("" for nothing)."""
    files = [f for f in runtime if f["path"] not in DIRECTORIES]
    dirs = sorted({f["path"] for f in runtime if f["path"] in DIRECTORIES})
    parts = []
    if files:
        ops = sum(f["reads"] + f["writes"] for f in files)
        names = sorted({f["path"] for f in files})
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        calls = "read or write" if ops == 1 else "reads and writes"
        parts.append(f"the MPI runtime's own files ({shown}: {ops} {calls}, "
                     f"{tenths(sum(f['bytes_read'] + f['bytes_written'] for f in files))}; pario profile "
                     "--runtime-files records them one by one)")
    if dirs:
        parts.append(f"director{'ies' if len(dirs) > 1 else 'y'} looked up, metadata only: {', '.join(dirs)}")
    return ("Not counted above: " + "; ".join(parts) + ".") if parts else ""


def job_lines(view: dict[str, Any]) -> list[str]:
    start = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(view["start"])) if view.get("start") else "-"
    procs = f"{view['processes']} ({view['ranks']} MPI ranks)" if view["ranks"] else str(view["processes"])
    cmds = [" ".join(c) for c in view["commands"] if c]
    others = f"  (+{len(set(cmds)) - 1} other)" if len(set(cmds)) > 1 else ""
    lines = [f"processes: {procs}   hosts: {', '.join(view['hosts'])}", *view.get("launch", []),
             f"command: {cmds[0] if cmds else '-'}{others}",
             f"started: {start}   wall time: {secs(view.get('wall_time'))} (first process start to last "
             "process end)"]
    if view.get("time_interface"):
        wall, n = view.get("wall_time"), max(view.get("ranks") or view["processes"], 1)
        share = f" ({view['io_time_sum'] / (wall * n):.0%} of {n} x the wall time)" if wall else ""
        inside = ", the layers under it not added again" if set(view.get("time_layers") or []) - \
            {"mpiio", "posix", "stdio"} else ""
        lines.append(f"I/O time, summed ({view['time_interface']}{inside}): {secs(view['io_time_sum'])} over {n} "
                     f"process{'es' if n != 1 else ''}{share}")
        spread = view.get("per_rank")
        if spread:
            how = "" if spread["exact"] else " (shared files count between their fastest and slowest rank)"
            lines.append(f"I/O time per rank ({view['time_interface']}): {secs(spread['low'])} to "
                         f"{secs(spread['high'])} over {count(spread['n'], 'rank')}{how}")
    layer = view.get("application_layer")
    if layer and layer.get("text") != "no file I/O":
        lines.append(f"I/O came from: {layer['text']}")
    if view["partial_processes"]:
        many = len(view["partial_processes"]) > 1
        lines.append(f"partial: {_stopped(view)} stopped by a signal; {'their' if many else 'its'} counters end there")
    if view["dropped_records"]:
        lines.append(f"memory bound: {view['dropped_records']} files folded into \"<other files>\" (totals exact; "
                     "raise --mem)")
    if view["trace_kept"] or view["trace_dropped"]:
        note = f"trace: {view['trace_kept']} events"
        if view["trace_dropped"]:
            note += f", {view['trace_dropped']} dropped at the memory bound (counters exact; raise --mem)"
        lines.append(note)
    return lines


def _stopped(view: dict[str, Any]) -> str:
    """The processes stopped by a signal, named by MPI rank (a PID means nothing to the reader after
    MPI_Abort), by PID for a process that was no rank."""
    pids, ranks = view["partial_processes"], view.get("partial_ranks") or [None] * len(view["partial_processes"])
    if all(isinstance(r, int) and r >= 0 for r in ranks):
        return f"rank{'s' if len(ranks) > 1 else ''} {', '.join(str(r) for r in sorted(ranks))} " + \
            ("were" if len(ranks) > 1 else "was")
    names = [f"rank {r}" if isinstance(r, int) and r >= 0 else f"PID {pid}" for pid, r in zip(pids, ranks)]
    return f"process{'es' if len(names) > 1 else ''} {', '.join(names)} " + ("were" if len(names) > 1 else "was")


def _counter(f: dict[str, Any], name: str) -> int:
    return int(f["counters"].get(f"{f['module'].upper()}_{name}", 0) or 0)


def module_rows(files: list[dict[str, Any]]) -> tuple[list[Col], list[list[str]]]:
    """Per interface (one column each, so that it fits 80 columns), the application's files only:
    the counts users look for first (opens, stats, seeks, fsyncs; collective vs independent
    MPI-IO calls), bytes, small operations and times."""
    mods: dict[str, dict[str, Any]] = {}
    for f in files:
        m = mods.setdefault(f["module"], {"files": 0, "shared": 0, "opens": 0, "reads": 0, "writes": 0, "br": 0,
                                          "bw": 0, "small": 0, "rt": 0.0, "wt": 0.0, "mt": 0.0, "stats": 0,
                                          "seeks": 0, "fsyncs": 0, "coll": 0, "indep": 0})
        m["files"] += 1
        m["shared"] += 1 if f["nprocs"] > 1 else 0
        m["opens"] += _counter(f, "OPENS")
        m["reads"] += f["reads"]
        m["writes"] += f["writes"]
        m["br"] += f["bytes_read"]
        m["bw"] += f["bytes_written"]
        m["small"] += f["small_reads"] + f["small_writes"]
        m["rt"] += f["read_time"]
        m["wt"] += f["write_time"]
        m["mt"] += f["meta_time"]
        m["stats"] += _counter(f, "STATS")
        m["seeks"] += _counter(f, "SEEKS")
        m["fsyncs"] += _counter(f, "FSYNCS") + _counter(f, "FDSYNCS") + _counter(f, "SYNCS")
        m["coll"] += _counter(f, "COLL_READS") + _counter(f, "COLL_WRITES")
        m["indep"] += _counter(f, "INDEP_READS") + _counter(f, "INDEP_WRITES")
    names = list(mods)
    lines: list[tuple[str, str, Callable[[Any], str]]] = [
             ("files", "files", str), ("used by >1 process", "shared", str), ("opens", "opens", str),
             ("reads", "reads", str), ("writes", "writes", str), ("bytes read", "br", tenths),
             ("bytes written", "bw", tenths), ("stats", "stats", str), ("seeks", "seeks", str),
             ("fsyncs/syncs", "fsyncs", str), ("read time (sum over ranks)", "rt", secs),
             ("write time (sum over ranks)", "wt", secs), ("metadata time (sum over ranks)", "mt", secs)]
    rows = [[label] + [fmt(mods[n][key]) for n in names] for label, key, fmt in lines]
    rows.insert(5, ["ops < 1 MiB"] + [pct(mods[n]["small"], mods[n]["reads"] + mods[n]["writes"]) for n in names])
    if "mpiio" in mods:
        rows.insert(5, ["collective r+w"] + [str(mods[n]["coll"]) if n == "mpiio" else "-" for n in names])
        rows.insert(6, ["independent r+w"] + [str(mods[n]["indep"]) if n == "mpiio" else "-" for n in names])
    return [Col("", "id")] + [Col(n, "num", "right") for n in names], rows


def histogram_rows(files: list[dict[str, Any]]) -> tuple[list[Col], list[list[str]]]:
    """Access sizes per interface and direction: the operations in each size bucket."""
    totals: dict[tuple[str, str], dict[str, int]] = {}
    order: list[str] = []
    for f in files:
        for rw in ("READ", "WRITE"):
            for bucket, n in hist(f["module"], f["counters"], rw).items():
                if n:
                    t = totals.setdefault((f["module"], rw.lower()), {})
                    t[bucket] = t.get(bucket, 0) + int(n)
                    if bucket not in order:
                        order.append(bucket)
    cols = [Col("interface", "id"), Col("op", "id"), Col("operations by access size", "text")]
    rows = [[mod, rw, "  ".join(f"{b.replace('_', '-')}: {t[b]}" for b in order if b in t)]
            for (mod, rw), t in sorted(totals.items())]
    return cols, rows


FILE_COLUMNS = [Col("file", "path"), Col("if", "id"), Col("procs", "num", "right"),
                Col("reads/\nwrites", "num", "right"), Col("bytes", "num", "right"), Col("I/O\ntime", "num", "right"),
                Col("meta\ntime", "num", "right"), Col("common sizes", "text", aside=True),
                Col("sequential", "num", "right", aside=True), Col("unaligned", "num", "right", aside=True),
                Col("alignment", "text", aside=True)]


def ranked_files(files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The files with I/O, most bytes and time first (the order of both views' tables)."""
    rank = sorted(files, key=lambda f: -(f["bytes_read"] + f["bytes_written"]
                                         + 1e9 * (f["read_time"] + f["write_time"] + f["meta_time"])))
    return [f for f in rank if f["reads"] or f["writes"] or f["meta_time"]]


def file_cells(f: dict[str, Any]) -> list[tuple[str, Any]]:
    """One file's row of FILE_COLUMNS: (text, the value it sorts by on the page)."""
    c, p = f["counters"], f["module"].upper()
    ops = f["reads"] + f["writes"]
    seq = c.get(f"{p}_SEQ_READS", 0) + c.get(f"{p}_SEQ_WRITES", 0)
    unal = c.get(f"{p}_FILE_NOT_ALIGNED")
    align = c.get(f"{p}_FILE_ALIGNMENT")
    moved, io_time = f["bytes_read"] + f["bytes_written"], f["read_time"] + f["write_time"]
    posix = f["module"] == "posix" and ops
    return [(labelled(f), None), (f["module"], None), (str(f["nprocs"]), f["nprocs"]),
            (f"{f['reads']}/{f['writes']}", ops), (tenths(moved), moved), (secs(io_time), io_time),
            (secs(f["meta_time"]), f["meta_time"]),
            (", ".join(f"{size(v)}x{n}" for v, n in f["common_sizes"][:3]), None),
            (pct(seq, ops) if posix else "", seq / ops if posix else -1),
            (pct(unal, ops) if unal is not None and ops else "", unal / ops if unal is not None and ops else -1),
            ((size(align) + (f" ({f['fs']})" if f.get("fs") else "")) if align and ops else "", align or -1)]


def file_rows(files: list[dict[str, Any]], top: int) -> tuple[list[Col], list[list[str]], int]:
    shown = ranked_files(files)[:top]
    return FILE_COLUMNS, [[text for text, _ in file_cells(f)] for f in shown], len(shown)


def labelled(f: dict[str, Any]) -> str:
    """A file's name in the tables: a node-local file (one per node under one path) with its node."""
    return f"{f['path']} (on {f['node']})" if f.get("node") else f["path"]


def spread_rows(files: list[dict[str, Any]]) -> tuple[list[Col], list[list[str]]]:
    cols = [Col("file", "path"), Col("if", "id"), Col("procs", "num", "right"), Col("fastest", "num", "right"),
            Col("slowest", "num", "right"), Col("bytes fastest / slowest", "num", "right", aside=True),
            Col("time sd", "num", "right", aside=True), Col("bytes sd", "num", "right", aside=True)]
    rows = []
    for f in files:
        if f["nprocs"] <= 1 or not (f["reads"] or f["writes"]):
            continue
        c, p = f["counters"], f["module"].upper()
        vt, vb = c.get(f"{p}_F_VARIANCE_RANK_TIME"), c.get(f"{p}_F_VARIANCE_RANK_BYTES")
        rows.append([labelled(f), f["module"], str(f["nprocs"]),
                     f"r{c.get(f'{p}_FASTEST_RANK')} {secs(c.get(f'{p}_F_FASTEST_RANK_TIME'))}",
                     f"r{c.get(f'{p}_SLOWEST_RANK')} {secs(c.get(f'{p}_F_SLOWEST_RANK_TIME'))}",
                     f"{tenths(c.get(f'{p}_FASTEST_RANK_BYTES'))} / {tenths(c.get(f'{p}_SLOWEST_RANK_BYTES'))}",
                     secs(vt ** 0.5) if vt is not None else "-", tenths(vb ** 0.5) if vb is not None else "-"])
    return cols, rows


def hint_rows(files: list[dict[str, Any]]) -> tuple[list[Col], list[list[str]]]:
    """Hints confirmed in effect, hints Open MPI only echoed, and the MCA settings the run used."""
    cols = [Col("file", "path"), Col("settings", "id")]
    rows = []
    for f in files:
        if f["module"] != "mpiio":
            continue
        status = f.get("hints_status") or {}
        parts = []
        if status.get("confirmed"):
            parts.append("in effect (MPI_File_get_info returns the values in effect): "
                         + ", ".join(f"{k}={v}" for k, v in status["confirmed"].items()))
        if status.get("echoed"):
            parts.append("echoed by Open MPI, not confirmed (its MPI_File_get_info gives back the keys the "
                         "program passed): " + ", ".join(f"{k}={v}" for k, v in status["echoed"].items()))
        if status.get("mca"):
            parts.append("MCA settings this run used (MPI_T): "
                         + ", ".join(f"{k}={v}" for k, v in status["mca"].items()))
        if status.get("requested"):  # what the program passed (open, set_view, set_info)
            parts.append("requested by the program: " + ", ".join(f"{k}={v}" for k, v in status["requested"].items()))
        rows.append([f["path"], "\n".join(parts) or "(the MPI library reported none)"])
    return cols, rows


def library_sections(summary: dict[str, Any], top: int = 20) -> list:
    """The I/O libraries' sections of a summary (report/libtables.py): the same objects the HTML
    page draws."""
    from pario.analysis.profile.libviews import views_of_summary
    from pario.report.libtables import sections

    return sections(views_of_summary(summary), top)


def show(summary: dict[str, Any], top: int = 20, console: Console | None = None) -> None:
    con = console or Console()  # the terminal's width; 80 columns (or $COLUMNS) when piped
    con.print(Text("Job", style="italic"))
    for line in job_lines(summary["job"]):
        con.print(Text("  " + line))
    files, runtime = split(summary)
    if summary.get("nodes"):
        from pario.report.terminal.profile_nodes import show_nodes
        show_nodes(con, summary["nodes"])
    libs = library_sections(summary, top)
    if libs:
        show_libraries(con, libs)
    if not files:
        con.print(Text("No file I/O of the application was recorded (paths under the excluded prefixes and "
                       "the MPI runtime's own files are not counted)."))
    else:
        cols, rows = module_rows(files)
        print_fit(con, cols, rows, "I/O by interface (the application's files; MPI runtime files apart, below)")
        cols, rows = histogram_rows(files)
        if rows:
            print_fit(con, cols, rows, "Access sizes (operations per size bucket)")
        cols, rows, n = file_rows(files, top)
        print_fit(con, cols, rows, f"Files (top {n} of {len(files)} by bytes and time)")
        cols, rows = spread_rows(files)
        if rows:
            print_fit(con, cols, rows, "Files used by several ranks/processes: per-rank spread")
        cols, rows = hint_rows(files)
        if rows:
            print_fit(con, cols, rows, "MPI-IO files: hints (MPI_File_get_info) and MCA settings (MPI_T)")
    if runtime:
        con.print(Text(runtime_line(runtime)))
    if summary.get("filesystem"):
        from pario.model.buffer import BufferFileStats, BufferStats
        from pario.report.terminal.buffer import flush_lines, notes, table

        fs = dict(summary["filesystem"])
        stats = BufferStats(**{**fs, "files": [BufferFileStats(**f) for f in fs["files"]]})
        con.print(table(stats, title="What the file system saw (pario buffer): the program's write calls "
                                     "against the writes that reached the files", width=con.width))
        for text in flush_lines(stats, con.width):
            con.print(text)
        for line in notes(stats):
            con.print(f"[dim]{escape(line)}[/]")


def show_trace(events: list, total: int, limit: int, console: Console | None = None) -> None:
    """`pario profile show LOG --trace`: the traced operations in time order (after the filters)."""
    con = console or Console()
    shown = events[:limit]
    cols = [Col("time s", "num", "right"), Col("rank", "id"), Col("if", "id"), Col("op", "id"),
            Col("file", "path"), Col("offset", "num", "right"), Col("bytes", "num", "right"),
            Col("took", "num", "right")]
    rows = [[f"{e.t:.6f}", str(e.rank) if e.rank is not None else e.who, e.module, e.op, e.path,
             "-" if e.offset is None else str(e.offset),
             str(e.size) if e.size else "-", secs(e.duration)] for e in shown]
    title = (f"Trace: {len(shown)} of {len(events)} matching operations" + (f" ({total} in the log)"
             if total != len(events) else "") + "; time s: since the first process started")
    if not rows:
        con.print(Text(f"No traced operation matches ({total} in the log)."))
        return
    print_fit(con, cols, rows, title)
    if len(events) > limit:
        con.print(Text(f"{len(events) - limit} more: narrow with --file, --rank, --from/--to, or raise --limit."))
