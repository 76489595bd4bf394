"""Pure analysis of a profile job document: per-file and per-job views (no printing, no files).

Records of one file from several processes are merged with the operation each counter carries in
the log (sum, max, min ignoring unset, or the per-rank spread)."""
from __future__ import annotations

from typing import Any, Callable

from pario.analysis.profile.launch import launch_lines, stopped
from pario.analysis.profile.libviews import (
    LIBRARIES,
    ON_TOP_OF,
    application_layer,
    is_library,
    library_totals,
    library_views,
    props,
)
from pario.analysis.profile.logread import counter_meta, counters
from pario.model.filesystems import MAGIC

# Directories the MPI runtime or libc looks up (stat, an open of the directory) in nearly every job:
# metadata only, never the program's data; profile show and advise both list them apart as such.
LOOKED_UP_DIRS = ("/", "/tmp")
SMALL_BUCKETS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M")  # all strictly below 1 MiB
def _prefix(mod: str) -> str:
    return mod.upper()


def _merge_top(tops: list[list[list[int]]], others: list[int], keep: int = 4) -> tuple[list[list[int]], int]:
    acc: dict[int, int] = {}
    for top in tops:
        for val, cnt in top:
            acc[val] = acc.get(val, 0) + cnt
    ranked = sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))
    return [[v, c] for v, c in ranked[:keep]], sum(others) + sum(c for _, c in ranked[keep:])


def _merge(mod: str, meta: dict[str, dict[str, str]], parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge counter dicts of one file (each from one process or one reduced group)."""
    if len(parts) == 1:
        return dict(parts[0])
    p = _prefix(mod)
    out: dict[str, Any] = {}
    for name, m in meta.items():
        vals = [c.get(name, 0) or 0 for c in parts]
        if m["op"] == "sum":
            out[name] = sum(vals)
        elif m["op"] == "max":
            out[name] = max(vals)
        elif m["op"] == "min":
            set_vals = [v for v in vals if v]
            out[name] = min(set_vals) if set_vals else 0
    fast = min(parts, key=lambda c: c.get(f"{p}_F_FASTEST_RANK_TIME", 0))
    slow = max(parts, key=lambda c: c.get(f"{p}_F_SLOWEST_RANK_TIME", 0))
    out[f"{p}_NPROCS"] = sum(c.get(f"{p}_NPROCS", 1) for c in parts)
    for side, src in (("FASTEST", fast), ("SLOWEST", slow)):
        out[f"{p}_{side}_RANK"] = src.get(f"{p}_{side}_RANK")
        out[f"{p}_{side}_RANK_BYTES"] = src.get(f"{p}_{side}_RANK_BYTES")
        out[f"{p}_F_{side}_RANK_TIME"] = src.get(f"{p}_F_{side}_RANK_TIME")
    if all(c.get(f"{p}_NPROCS", 1) == 1 for c in parts):
        for what, key in (("TIME", f"{p}_F_FASTEST_RANK_TIME"), ("BYTES", f"{p}_FASTEST_RANK_BYTES")):
            xs = [float(c.get(key) or 0) for c in parts]
            mean = sum(xs) / len(xs)
            out[f"{p}_F_VARIANCE_RANK_{what}"] = sum((x - mean) ** 2 for x in xs) / len(xs)
    else:  # variances of already-reduced groups cannot be combined without their means
        out[f"{p}_F_VARIANCE_RANK_TIME"] = None
        out[f"{p}_F_VARIANCE_RANK_BYTES"] = None
    return out


def hist(mod: str, c: dict[str, Any], rw: str) -> dict[str, int]:
    """Size histogram (bucket name -> count) for READ or WRITE, in log order."""
    head = f"{_prefix(mod)}_SIZE_{rw}_"
    return {k[len(head):]: int(v) for k, v in c.items() if k.startswith(head)}


def file_view(job: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (module, file) of the job, merged over processes."""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for proc in job.get("processes", []):
        host = (proc.get("process") or {}).get("host")
        for mod, mdoc in proc.get("modules", {}).items():
            meta = counter_meta(mdoc)
            for rec in mdoc.get("records", []):
                # a node-local file (tmpfs, /dev/shm) is one file per node under one path: the profiler
                # reduced it per node and named the node (csrc/profile/reduce_mpi.c)
                g = groups.setdefault((mod, rec["path"], str(rec.get("node") or "")),
                                      {"meta": meta, "parts": [], "sizes": [], "strides": [],
                                       "others": [0, 0], "reduced": False, "hints": None, "props": None,
                                       "hosts": set()})
                if rec.get("rank") != -1 and host:
                    g["hosts"].add(str(host))   # a process's own record: its host did this I/O
                g["parts"].append(counters(mdoc, rec))
                g["sizes"].append(rec.get("sizes", []))
                g["strides"].append(rec.get("strides", []))
                g["others"][0] += rec.get("sizes_other", 0)
                g["others"][1] += rec.get("strides_other", 0)
                g["reduced"] = g["reduced"] or rec.get("rank") == -1
                if rec.get("hints") and g["hints"] is None:
                    g["hints"] = rec["hints"]
                if rec.get("props") and g["props"] is None:  # an I/O library's facts (libviews.props)
                    g["props"] = rec["props"]
    rows = []
    for (mod, path, node), g in sorted(groups.items()):
        c = _merge(mod, g["meta"], g["parts"])
        p = _prefix(mod)
        sizes, sizes_other = _merge_top(g["sizes"], [g["others"][0]])
        strides, strides_other = _merge_top(g["strides"], [g["others"][1]])
        reads = sum(hist(mod, c, "READ").values())
        writes = sum(hist(mod, c, "WRITE").values())
        row = {
            "module": mod, "path": path, "nprocs": c.get(f"{p}_NPROCS", 1),
            "shared": g["reduced"] or len(g["parts"]) > 1,
            "reads": reads, "writes": writes,
            "bytes_read": c.get(f"{p}_BYTES_READ", 0), "bytes_written": c.get(f"{p}_BYTES_WRITTEN", 0),
            "small_reads": sum(hist(mod, c, "READ").get(b, 0) for b in SMALL_BUCKETS),
            "small_writes": sum(hist(mod, c, "WRITE").get(b, 0) for b in SMALL_BUCKETS),
            # a time the profiler could not take (not finite) is written as null: counted as none here
            "read_time": c.get(f"{p}_F_READ_TIME") or 0.0, "write_time": c.get(f"{p}_F_WRITE_TIME") or 0.0,
            "meta_time": c.get(f"{p}_F_META_TIME") or 0.0,
            "common_sizes": sizes, "common_sizes_other": sizes_other,
            "common_strides": strides, "common_strides_other": strides_other,
            "hints": parse_hints(g["hints"]), "hints_status": hints_status(parse_hints(g["hints"])), "counters": c,
            "fs": fs_name(c.get("POSIX_FS_TYPE")) if mod == "posix" else None,
            "props": props(g["props"]) if g["props"] is not None else None,
            # node: the node of a node-local file; hosts: where its unreduced records' processes ran (a file
            # reduced across nodes has none: its per-node share is not in the log)
            "node": node or None,
            "hosts": sorted(g["hosts"]) if not g["reduced"] else ([node] if node else []),
        }
        rows.append(row)
    return rows


def fs_name(magic) -> str | None:
    if not magic:
        return None
    return MAGIC.get(int(magic), f"0x{int(magic):x}")


def parse_hints(text: str | None) -> dict[str, str] | None:
    if text is None:
        return None
    out = {}
    for item in filter(None, text.split(";")):
        key, _, val = item.partition("=")
        out[key] = val
    return out


def hints_status(hints: dict[str, str] | None) -> dict[str, dict[str, str]] | None:
    """What MPI_File_get_info's answer proves. The profiler records it and, under Open MPI, the
    MCA variables of the MPI-IO stack read through MPI_T ("mca:" items, csrc/profile/wrap_mpiio.c).
    Open MPI 4.1's MPI_File_get_info (OMPIO and romio321 alike) gives back the keys the program
    passed, whatever took effect (machine-notes 1d): those are only echoed. Elsewhere (the MPICH
    family) it returns the values in effect: confirmed. The MCA values are what the run used."""
    if hints is None:
        return None
    mca = {k[len("mca:"):]: v for k, v in hints.items() if k.startswith("mca:")}
    # "req:" items: what the program passed (open, set_view, set_info), kept apart from the answer
    requested = {k[len("req:"):]: v for k, v in hints.items() if k.startswith("req:")}
    info = {k: v for k, v in hints.items() if not k.startswith(("mca:", "req:"))}
    open_mpi = bool(mca)
    return {"echoed": info if open_mpi else {}, "confirmed": {} if open_mpi else info, "mca": mca,
            "requested": requested}


def per_rank_time(own: dict[int, float], shared: list[dict[str, Any]],
                  all_ranks: set[int] | None = None) -> dict[str, Any] | None:
    """The spread of I/O time over ranks: {n, low, high, exact}. `own`: each rank's time in the
    records it kept; `shared`: files reduced across ranks, of which only the fastest and the
    slowest rank (and their times) are known, so another rank's share lies between the two
    (from 0 when not every rank used the file): the spread is then a bound, exact False."""
    ranks = set(all_ranks or ()) | set(own) | {r for f in shared for r in (f["fastest"][0], f["slowest"][0])}
    if not ranks:
        return None
    lows, highs, exact = [], [], True
    for rank in sorted(ranks):
        lo = hi = own.get(rank, 0.0)
        for f in shared:
            (fr, ft), (sr, st) = f["fastest"], f["slowest"]
            if rank in (fr, sr):
                t = ft if rank == fr else st
                lo, hi = lo + t, hi + t
            else:
                exact = False
                lo += ft if f.get("nprocs", 0) >= len(ranks) else 0.0
                hi += st
        lows.append(lo)
        highs.append(hi)
    return {"n": len(ranks), "low": min(lows), "high": max(highs), "exact": exact}


def _rank_times(procs: list[dict[str, Any]], module: str,
                keep: Callable[[str, str], bool] | None = None) -> dict[str, Any] | None:
    """Per-rank I/O time (read + write + meta) of interfaces: of `module`, or of the records
    keep(module, path) accepts (a library's files, and the files no library opened)."""
    own: dict[int, float] = {}
    shared: list[dict[str, Any]] = []
    ranks = {r for r in ((proc.get("process") or {}).get("rank") for proc in procs) if r is not None and r >= 0}
    for proc in procs:
        rank = (proc.get("process") or {}).get("rank")
        if rank is None or rank < 0:
            continue
        for mod, mdoc in (proc.get("modules") or {}).items():
            if keep is None and mod != module:
                continue
            p = _prefix(mod)
            for rec in mdoc.get("records", []):
                if keep is not None and not keep(mod, str(rec.get("path", ""))):
                    continue
                _add_rank_time(own, shared, rank, rec, counters(mdoc, rec), p)
    return per_rank_time(own, shared, ranks)


def _add_rank_time(own: dict[int, float], shared: list[dict[str, Any]], rank: int, rec: dict[str, Any],
                   c: dict[str, Any], p: str) -> None:
    if rec.get("rank") == -1:  # reduced across ranks at MPI_Finalize: fastest and slowest known
        shared.append({"fastest": (c.get(f"{p}_FASTEST_RANK"), c.get(f"{p}_F_FASTEST_RANK_TIME") or 0.0),
                       "slowest": (c.get(f"{p}_SLOWEST_RANK"), c.get(f"{p}_F_SLOWEST_RANK_TIME") or 0.0),
                       "nprocs": c.get(f"{p}_NPROCS", 0)})
    else:
        own[rank] = own.get(rank, 0.0) + sum(float(c.get(f"{p}_F_{k}_TIME") or 0.0) for k in ("READ", "WRITE", "META"))


def job_view(job: dict[str, Any], files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Totals of the whole job, per module, plus what limits were hit."""
    files = file_view(job) if files is None else files
    procs = job.get("processes", [])
    pinfo = [p.get("process", {}) for p in procs]
    starts = [p["start"] for p in pinfo if p.get("start")]
    ends = [p["end"] for p in pinfo if p.get("end")]
    limits = [p.get("limits", {}) for p in procs]
    ranks = {p.get("rank") for p in pinfo if (p.get("rank") if p.get("rank") is not None else -1) >= 0}
    mods: dict[str, dict[str, Any]] = {}
    for f in files:
        if is_library(f["module"]):  # the I/O libraries: "libraries" below
            continue
        m = mods.setdefault(f["module"], {"files": 0, "shared_files": 0, "reads": 0, "writes": 0, "bytes_read": 0,
                                          "bytes_written": 0, "small_reads": 0, "small_writes": 0,
                                          "read_time": 0.0, "write_time": 0.0, "meta_time": 0.0})
        m["files"] += 1
        m["shared_files"] += int(bool(f["shared"]))
        for k in ("reads", "writes", "bytes_read", "bytes_written", "small_reads", "small_writes",
                  "read_time", "write_time", "meta_time"):
            m[k] += f[k] or 0
    return {
        "processes": len(procs),
        "ranks": len(ranks),
        "hosts": sorted({p.get("host", "?") for p in pinfo}),
        "commands": [p.get("cmdline", []) for p in pinfo],
        "start": min(starts) if starts else None,
        "end": max(ends) if ends else None,
        "wall_time": (max(ends) - min(starts)) if starts and ends else None,
        "partial": any(p.get("partial") for p in pinfo),
        # stopped by a signal (a process that called MPI_Abort is named by launch_lines)
        "partial_processes": [p.get("pid") for p in pinfo if stopped(p)],
        "partial_ranks": [p.get("rank") for p in pinfo if stopped(p)],
        "launch": launch_lines(job, (job.get("job") or {}).get("ranks")),   # copies, ranks that left no log
        "dropped_records": sum(int(lim.get("dropped_records", 0)) for lim in limits),
        "trace_kept": sum(int(lim.get("trace_kept", 0)) for lim in limits),
        "trace_dropped": sum(int(lim.get("trace_dropped", 0)) for lim in limits),
        "modules": mods,
        "libraries": library_totals(library_views(job, files)),
        "application_layer": application_layer(job, files),
        "job": job.get("job", {}),
        **_time_of_job(procs, mods, files),
    }


def _time_of_job(procs: list[dict[str, Any]], mods: dict[str, dict[str, Any]],
                 files: list[dict[str, Any]]) -> dict[str, Any]:
    """The I/O time of the top interface (MPI-IO when used: its time includes the POSIX calls
    under it), summed over ranks and spread per rank; sums are sums, never a wall time. A file an
    I/O library opened counts at the library's level (its calls' time holds the MPI-IO and POSIX
    calls under them, and a netCDF-4 file's HDF5 calls), the other files at the top interface's:
    time_layers names the layers summed."""
    top = "mpiio" if "mpiio" in mods else "posix" if "posix" in mods else next(iter(mods), None)
    libs = _top_library_files(files)
    if not libs:
        if top is None:
            return {"time_interface": None, "time_layers": [], "io_time_sum": 0.0, "per_rank": None}
        m = mods[top]
        return {"time_interface": top, "time_layers": [top],
                "io_time_sum": m["read_time"] + m["write_time"] + m["meta_time"], "per_rank": _rank_times(procs, top)}

    def covered(path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in libs)

    def keep(module: str, path: str) -> bool:
        return libs.get(path) == module if module in _FILE_MODULES else module == top and not covered(path)

    def t(f: dict[str, Any]) -> float:
        return float(f["read_time"] + f["write_time"] + f["meta_time"])

    total = sum(t(f) for f in files if keep(f["module"], f["path"]))
    rest = [f for f in files if f["module"] == top and not covered(f["path"])]
    names = [lib for mod, lib in _FILE_MODULES.items() if mod in libs.values()]
    layers = names + ([top] if top and any(f["reads"] or f["writes"] or t(f) for f in rest) else [])
    return {"time_interface": " + ".join(_LAYER_TITLES.get(x, x) for x in layers), "time_layers": layers,
            "io_time_sum": total, "per_rank": _rank_times(procs, "", keep)}


# a library's file module -> the library (LIBRARIES' order), and what the time line calls each layer
_FILE_MODULES = {lib.file_module: lib.name for lib in LIBRARIES}
_LAYER_TITLES = {**{lib.name: lib.title for lib in LIBRARIES}, "mpiio": "MPI-IO", "posix": "POSIX", "stdio": "stdio"}


def _top_library_files(files: list[dict[str, Any]]) -> dict[str, str]:
    """path -> the file module of the library the program called for it (netCDF, not the HDF5
    under a netCDF-4 file)."""
    out: dict[str, str] = {}
    for f in files:
        lib = _FILE_MODULES.get(f["module"])
        if lib is None:
            continue
        have = _FILE_MODULES.get(out.get(f["path"], ""))
        if have is None or ON_TOP_OF.get(lib) == have:
            out[f["path"]] = f["module"]
    return out
def rank_nodes(job: dict[str, Any]) -> dict[int, str]:
    """The rank-to-node map of an MPI job: each rank's host, from its process log."""
    out = {}
    for proc in job.get("processes", []):
        p = proc.get("process") or {}
        if isinstance(p.get("rank"), int) and p["rank"] >= 0 and p.get("host"):
            out[p["rank"]] = str(p["host"])
    return out


def node_view(job: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Each node of a job over several: its ranks, and the POSIX and stdio I/O of the files that are
    its own (a node-local file, or a file only its processes used); the files reduced across nodes
    apart, whole (the log keeps their fastest and slowest rank, not each node's share). None for a
    job on one node."""
    ranks = rank_nodes(job)
    hosts = sorted({str((p.get("process") or {}).get("host")) for p in job.get("processes", [])
                    if (p.get("process") or {}).get("host")})
    if len(hosts) < 2:
        return None
    keys = ("bytes_written", "bytes_read", "write_time", "read_time", "meta_time")
    rows: dict[str, dict[str, Any]] = {h: {"node": h, "ranks": sorted(r for r, n in ranks.items() if n == h),
                                           "files": 0, "node_local_files": 0, **{k: 0 for k in keys}}
                                       for h in hosts}
    across: dict[str, Any] = {"files": 0, **{k: 0 for k in keys}}
    for f in files:
        if f["module"] not in ("posix", "stdio") or f["path"].startswith("<") or not (f["reads"] or f["writes"]):
            continue   # what reached the file system (MPI-IO and the libraries' calls are under posix)
        own = f["node"] or (f["hosts"][0] if len(f["hosts"]) == 1 else None)
        target = rows.get(own) if own else None
        bucket = target if target is not None else across
        bucket["files"] += 1
        if target is not None and f["node"]:
            target["node_local_files"] += 1
        for k in keys:
            bucket[k] += f[k] or 0
    return {"nodes": list(rows.values()), "across": across}


def filesystem_view(job: dict[str, Any]) -> dict[str, Any] | None:
    """A buffered run (pario profile --buffer): per file, the writes the file system saw, from
    the buffer's stats kept in the log; None for an unbuffered run."""
    fs = job.get("filesystem")
    if not isinstance(fs, dict):
        return None
    from dataclasses import asdict

    from pario.analysis.buffer_stats import checked, summarize

    return asdict(summarize([checked(d, "the profile log's filesystem view") for d in fs.get("processes", [])]))


def summary(job: dict[str, Any]) -> dict[str, Any]:
    """What `pario profile show --json` prints: the job view, the file rows and, for a buffered
    run, what the file system saw."""
    files = file_view(job)
    out = {"job": job_view(job, files), "files": files}
    nodes = node_view(job, files)
    if nodes is not None:
        out["nodes"] = nodes
    fs = filesystem_view(job)
    if fs is not None:
        out["filesystem"] = fs
    return out
