"""Terminal tables for `pario profile show`: renders the views of pario.analysis.profile.views only."""
from __future__ import annotations

import time
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pario.model.units import tenths


def secs(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} us" if x else "0"


def size(v: int) -> str:
    return tenths(v).replace(".0 ", " ") if v >= 1024 else f"{v}"


def pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


def job_table(view: dict[str, Any]) -> Table:
    t = Table(title="Job", box=box.SIMPLE_HEAVY, show_header=False)
    t.add_column("", style="bold")
    t.add_column("")
    start = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(view["start"])) if view.get("start") else "-"
    t.add_row("processes",
              f"{view['processes']} ({view['ranks']} MPI ranks)" if view["ranks"] else str(view["processes"]))
    t.add_row("hosts", escape(", ".join(view["hosts"])))
    cmds = [" ".join(c) for c in view["commands"] if c]
    others = f"  (+{len(set(cmds)) - 1} other)" if len(set(cmds)) > 1 else ""
    t.add_row("command", escape(cmds[0] if cmds else "-") + others)
    t.add_row("started", start)
    t.add_row("wall time", secs(view.get("wall_time")))
    if view["partial"]:
        t.add_row("[red]partial[/]", f"[red]processes {view['partial_processes']} were stopped by a signal; "
                                     "their counters end there[/]")
    if view["dropped_records"]:
        t.add_row("[red]memory bound[/]", f"[red]{view['dropped_records']} files folded into \"<other files>\" "
                                          "(totals exact; raise --mem)[/]")
    if view["trace_kept"] or view["trace_dropped"]:
        note = f"{view['trace_kept']} events"
        if view["trace_dropped"]:
            note += f", [red]{view['trace_dropped']} dropped at the memory bound (counters exact; raise --mem)[/]"
        t.add_row("trace", note)
    return t


def module_table(view: dict[str, Any]) -> Table:
    t = Table(title="I/O by interface", box=box.SIMPLE_HEAVY)
    for col in ("interface", "files", "shared", "reads", "writes", "read", "written", "< 1 MiB ops",
                "read time", "write time", "meta time"):
        t.add_column(col, justify="left" if col == "interface" else "right")
    for mod, m in view["modules"].items():
        ops = m["reads"] + m["writes"]
        t.add_row(mod, str(m["files"]), str(m["shared_files"]), str(m["reads"]), str(m["writes"]),
                  tenths(m["bytes_read"]), tenths(m["bytes_written"]),
                  pct(m["small_reads"] + m["small_writes"], ops),
                  secs(m["read_time"]), secs(m["write_time"]), secs(m["meta_time"]))
    return t


def files_table(files: list[dict[str, Any]], top: int) -> Table:
    rank = sorted(files, key=lambda f: -(f["bytes_read"] + f["bytes_written"]
                                         + 1e9 * (f["read_time"] + f["write_time"] + f["meta_time"])))
    shown = [f for f in rank if f["reads"] or f["writes"] or f["meta_time"]][:top]
    t = Table(title=f"Files (top {len(shown)} of {len(files)} by bytes and time)", box=box.SIMPLE_HEAVY)
    for col in ("if", "file", "procs", "reads", "writes", "bytes", "common sizes", "seq", "unaligned", "align",
                "I/O time", "meta"):
        t.add_column(col, justify="left" if col in ("if", "file", "common sizes") else "right", overflow="fold")
    for f in shown:
        c = f["counters"]
        p = f["module"].upper()
        ops = f["reads"] + f["writes"]
        seq = c.get(f"{p}_SEQ_READS", 0) + c.get(f"{p}_SEQ_WRITES", 0)
        unal = c.get(f"{p}_FILE_NOT_ALIGNED")
        align = c.get(f"{p}_FILE_ALIGNMENT")
        sizes = ", ".join(f"{size(v)}x{n}" for v, n in f["common_sizes"][:3])
        t.add_row(f["module"], escape(f["path"]), str(f["nprocs"]), str(f["reads"]), str(f["writes"]),
                  tenths(f["bytes_read"] + f["bytes_written"]), sizes,
                  pct(seq, ops) if f["module"] == "posix" else "-",
                  pct(unal, ops) if unal is not None else "-",
                  (size(align) if align else "-") + (f" {f['fs']}" if f.get("fs") else ""),
                  secs(f["read_time"] + f["write_time"]), secs(f["meta_time"]))
    return t


def spread_table(files: list[dict[str, Any]]) -> Table | None:
    shared = [f for f in files if f["nprocs"] > 1 and (f["reads"] or f["writes"])]
    if not shared:
        return None
    t = Table(title="Files used by several ranks/processes: per-rank spread", box=box.SIMPLE_HEAVY)
    for col in ("if", "file", "procs", "fastest", "slowest", "bytes fastest/slowest", "time sd", "bytes sd"):
        t.add_column(col, justify="left" if col in ("if", "file") else "right", overflow="fold")
    for f in shared:
        c, p = f["counters"], f["module"].upper()
        vt, vb = c.get(f"{p}_F_VARIANCE_RANK_TIME"), c.get(f"{p}_F_VARIANCE_RANK_BYTES")
        t.add_row(f["module"], escape(f["path"]), str(f["nprocs"]),
                  f"r{c.get(f'{p}_FASTEST_RANK')} {secs(c.get(f'{p}_F_FASTEST_RANK_TIME'))}",
                  f"r{c.get(f'{p}_SLOWEST_RANK')} {secs(c.get(f'{p}_F_SLOWEST_RANK_TIME'))}",
                  f"{tenths(c.get(f'{p}_FASTEST_RANK_BYTES'))} / {tenths(c.get(f'{p}_SLOWEST_RANK_BYTES'))}",
                  secs(vt ** 0.5) if vt is not None else "-", tenths(vb ** 0.5) if vb is not None else "-")
    return t


def hints_table(files: list[dict[str, Any]]) -> Table | None:
    rows = [f for f in files if f["module"] == "mpiio"]
    if not rows:
        return None
    t = Table(title="MPI-IO files: hints in effect (as reported by MPI_File_get_info)", box=box.SIMPLE_HEAVY)
    t.add_column("file", overflow="fold")
    t.add_column("hints", overflow="fold")
    for f in rows:
        h = f["hints"]
        text = "; ".join(f"{k}={v}" for k, v in h.items()) if h else "(the MPI library reported none)"
        t.add_row(escape(f["path"]), escape(text))
    return t


def show(summary: dict[str, Any], top: int = 20, console: Console | None = None) -> None:
    import sys

    con = console or Console(width=None if sys.stdout.isatty() else 160)
    con.print(job_table(summary["job"]))
    if not summary["files"]:
        con.print("No file I/O was recorded (paths under the excluded prefixes are not recorded).")
        return
    con.print(module_table(summary["job"]))
    con.print(files_table(summary["files"], top))
    for extra in (spread_table(summary["files"]), hints_table(summary["files"])):
        if extra is not None:
            con.print(extra)
