"""The I/O libraries' tables of a profile (issue 29), built once from analysis.profile.libviews and
drawn by both `pario profile show` (report/terminal/libraries.py) and the HTML profile page
(report/html/profile.py), so that the two say the same thing cell for cell."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from pario.analysis.profile.libviews import LibraryView, counter
from pario.analysis.profile.views import hist
from pario.model.units import seconds, tenths


@dataclass
class Column:
    header: str
    kind: str = "num"          # id | num | text | path (report.terminal.fit's kinds)
    aside: bool = False        # the terminal may move it below the table


@dataclass
class LibTable:
    key: str                   # the HTML anchor's last part
    title: str
    columns: list[Column]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class LibSection:
    library: str
    heading: str               # "HDF5 1.10.8 (libhdf5_openmpi.so.103)"
    lines: list[str] = field(default_factory=list)     # what the processes said, notes
    tables: list[LibTable] = field(default_factory=list)


def _size(v: int) -> str:
    return tenths(v).replace(".0 ", " ") if v >= 1024 else f"{v} B"


def _object_name(row: dict, lib_files: list[dict]) -> str:
    """A dataset's or variable's name; with its file's base name when the library had several files."""
    path = row["path"]
    for f in lib_files:
        if path.startswith(f["path"] + ":"):
            name = path[len(f["path"]) + 1:]
            return name if len(lib_files) == 1 else f"{os.path.basename(f['path'])}:{name}"
    return path


def _mix(parts: list[tuple[str, int]]) -> str:
    return ", ".join(f"{label} {n}" for label, n in parts if n) or "-"


# ---- per library: what its files were set to ----
def _hdf5_file(f: dict) -> str:
    parts = ["MPI-IO driver" if counter(f, "MPIO") else "not the MPI-IO driver"]
    align, thr = counter(f, "ALIGNMENT"), counter(f, "ALIGN_THRESHOLD")
    parts.append(f"alignment {_size(align)} above {_size(thr)}" if align > 1 else "alignment none (HDF5's default)")
    parts.append("collective metadata reads " + ("on" if counter(f, "COLL_MD_READS") else "off")
                 + ", writes " + ("on" if counter(f, "COLL_MD_WRITES") else "off"))
    page = counter(f, "PAGE_BUFFER_SIZE")
    if page:
        parts.append(f"page buffer {_size(page)}")
    return "; ".join(parts)


def _pnetcdf_file(f: dict) -> str:
    parts = []
    if counter(f, "HEADER_SIZE"):
        parts.append(f"header {_size(counter(f, 'HEADER_SIZE'))} in {_size(counter(f, 'HEADER_EXTENT'))} reserved")
    parts.append(f"nc_var_align_size {counter(f, 'VAR_ALIGN')}, nc_header_align_size {counter(f, 'HEADER_ALIGN')}, "
                 f"nc_record_align_size {counter(f, 'RECORD_ALIGN')}")
    waits = counter(f, "WAITS")
    if waits:
        wait_time = seconds(f["counters"].get("PNETCDF_FILE_F_WAIT_TIME"))
        parts.append(f"{waits} waits completed {counter(f, 'WAIT_REQUESTS')} requests (at most "
                     f"{counter(f, 'MAX_WAIT_REQUESTS')} in one), {wait_time}")
    if counter(f, "INDEP_BEGINS"):
        parts.append(f"independent mode entered {counter(f, 'INDEP_BEGINS')} times")
    return "; ".join(parts)


def _netcdf_file(f: dict) -> str:
    p = f.get("props") or {}
    return f"{p.get('format', '?')}, " + ("parallel" if counter(f, "PARALLEL") else "serial")


def _adios2_file(f: dict) -> str:
    p = f.get("props") or {}
    c = f["counters"]
    parts = [f"engine {p.get('engine', '?')} ({p.get('mode', '?')})"]
    aggs = [f"{k}={p[k]}" for k in ("NumAggregators", "AggregatorRatio", "NumSubFiles", "AggregationType") if k in p]
    parts.append(", ".join(aggs) if aggs else "aggregation: the engine's default")
    parts.append(f"{counter(f, 'END_STEPS')} steps ended, {seconds(c.get('ADIOS2_FILE_F_END_STEP_TIME'))} in end_step, "
                 f"{seconds(c.get('ADIOS2_FILE_F_CLOSE_TIME'))} in close")
    return "; ".join(parts)


_FILE_FACTS = {"hdf5": _hdf5_file, "pnetcdf": _pnetcdf_file, "netcdf": _netcdf_file, "adios2": _adios2_file}


# ---- per library: how each dataset or variable was accessed ----
def _hdf5_object(o: dict) -> tuple[str, str, str]:
    sel = _mix([("all", counter(o, "SELECT_ALL")), ("hyperslab", counter(o, "SELECT_REGULAR")),
                ("irregular", counter(o, "SELECT_IRREGULAR")), ("points", counter(o, "SELECT_POINTS")),
                ("none", counter(o, "SELECT_NONE"))])
    asked = counter(o, "COLL_REQUESTED")
    done = _mix([("contiguous collective", counter(o, "ACTUAL_CONTIG_COLL")),
                 ("chunks collective", counter(o, "ACTUAL_CHUNK_COLL")),
                 ("chunks independent", counter(o, "ACTUAL_CHUNK_INDEP")),
                 ("chunks mixed", counter(o, "ACTUAL_CHUNK_MIXED")), ("not collective", counter(o, "ACTUAL_NONE"))])
    why = [name for key, name in (("NOCOLL_TYPE_CONVERSION", "type conversion"),
                                  ("NOCOLL_DATA_TRANSFORM", "data transform"),
                                  ("NOCOLL_MPI_TYPES_OFF", "MPI types off"),
                                  ("NOCOLL_NOT_SIMPLE", "dataspace not simple"),
                                  ("NOCOLL_LAYOUT", "compact layout"), ("NOCOLL_FILTERS", "filters"),
                                  ("NOCOLL_ERROR", "error while checking"), ("NOCOLL_OTHER", "other"))
           if counter(o, key)]
    mode = "-"
    if asked:
        mode = f"collective {asked} -> {done}" + (f" ({', '.join(why)})" if why else "")
    elif counter(o, "INDEP_REQUESTED"):
        mode = f"independent {counter(o, 'INDEP_REQUESTED')}"
    p = o.get("props") or {}
    layout = p.get("layout", "?") + (f" {p['chunk']}" if p.get("chunk") else "") + (
        f", {p['filters']}" if p.get("filters") else "")
    return sel, mode, f"{layout}; {p.get('dims', '?')}"


def _pnetcdf_object(o: dict) -> tuple[str, str, str]:
    mode = _mix([("coll", counter(o, "COLL_WRITES") + counter(o, "COLL_READS")),
                 ("indep", counter(o, "INDEP_WRITES") + counter(o, "INDEP_READS")), ("iput", counter(o, "IPUTS")),
                 ("bput", counter(o, "BPUTS")), ("iget", counter(o, "IGETS"))])
    p = o.get("props") or {}
    form = f"varn {counter(o, 'VARN_CALLS')}" if counter(o, "VARN_CALLS") else "-"
    where = f"{'record' if counter(o, 'RECORD') else 'fixed'}; {p.get('dims', '?')}; at {counter(o, 'FILE_OFFSET')}"
    return form, mode, where


def _netcdf_object(o: dict) -> tuple[str, str, str]:
    mode = _mix([("coll", counter(o, "COLL_WRITES") + counter(o, "COLL_READS")),
                 ("indep", counter(o, "INDEP_WRITES") + counter(o, "INDEP_READS"))])
    p = o.get("props") or {}
    store = (f"chunks {p.get('chunk', '?')}" + (" (default)" if counter(o, "DEFAULT_CHUNKS") else "")
             if counter(o, "CHUNKED") else "contiguous")
    if counter(o, "DEFLATE_LEVEL"):
        store += f", deflate {counter(o, 'DEFLATE_LEVEL')}" + (" + shuffle" if counter(o, "SHUFFLE") else "")
    return "-", mode, f"{store}; {p.get('dims', '?')}"


def _adios2_object(o: dict) -> tuple[str, str, str]:
    mode = _mix([("deferred", counter(o, "PUTS_DEFERRED") + counter(o, "GETS_DEFERRED")),
                 ("sync", counter(o, "PUTS_SYNC") + counter(o, "GETS_SYNC"))])
    p = o.get("props") or {}
    return "-", mode, f"shape {p.get('shape', '?')}"


_OBJECT_FACTS = {"hdf5": _hdf5_object, "pnetcdf": _pnetcdf_object, "netcdf": _netcdf_object, "adios2": _adios2_object}
_SELECTION_HEADER = {"hdf5": "selection", "pnetcdf": "form", "netcdf": "form", "adios2": "form"}
_MODE_HEADER = {"hdf5": "transfer: asked -> done", "pnetcdf": "calls by mode", "netcdf": "access",
                "adios2": "puts/gets"}
_STORE_HEADER = {"hdf5": "layout; extent", "pnetcdf": "kind; shape; offset", "netcdf": "storage; shape",
                 "adios2": "shape"}


def _state_lines(v: LibraryView) -> list[str]:
    lines = []
    said = {"called": "its calls were recorded", "loaded": "loaded, but no call of its C API reached the profiler",
            "static": "linked into the executable: its calls go straight to it and are not seen"}
    for state, n in sorted(v.states.items()):
        lines.append(f"{n} process{'es' if n != 1 else ''}: {said.get(state, state)}")
    lines += v.notes
    return lines


def sections(views: list[LibraryView], top: int = 20) -> list[LibSection]:
    """One section per library: its files, its datasets or variables, and their access sizes."""
    out = []
    for v in views:
        lib = v.lib
        version = f" {v.versions[0]}" if v.versions else ""
        where = f" ({', '.join(os.path.basename(o) for o in v.objects_seen)})" if v.objects_seen else ""
        sec = LibSection(lib.name, f"{lib.title}{version}{where}", _state_lines(v))
        if v.files:
            rows = []
            for f in sorted(v.files, key=lambda f: -(f["bytes_read"] + f["bytes_written"]))[:top]:
                opens = counter(f, "OPENS") + counter(f, "CREATES")
                rows.append([f["path"], str(f["nprocs"]), str(opens), f"{f['reads']}/{f['writes']}",
                             tenths(f["bytes_read"] + f["bytes_written"]), seconds(f["read_time"] + f["write_time"]),
                             seconds(f["meta_time"]), _FILE_FACTS[lib.name](f)])
            sec.tables.append(LibTable(
                f"{lib.name}-files", f"{lib.title} files",
                [Column("file", "path"), Column("procs"), Column("opens"), Column("reads/\nwrites"),
                 Column("bytes"), Column("data\ntime"), Column("meta\ntime"), Column("settings", "text", aside=True)],
                rows, "Per file: calls on its " + lib.objects + " (reads/writes), the bytes they asked for, and the "
                      "settings the file was opened with."))
        if v.objects:
            rows = []
            for o in sorted(v.objects, key=lambda o: -(o["bytes_read"] + o["bytes_written"]))[:top]:
                sel, mode, store = _OBJECT_FACTS[lib.name](o)
                sizes = ", ".join(f"{_size(s)} x{n}" for s, n in o["common_sizes"][:2])
                rows.append([_object_name(o, v.files), str(o["nprocs"]), f"{o['reads']}/{o['writes']}",
                             tenths(o["bytes_read"] + o["bytes_written"]), sizes or "-", sel, mode, store,
                             seconds(o["read_time"] + o["write_time"])])
            sec.tables.append(LibTable(
                f"{lib.name}-objects", f"{lib.title} {lib.objects}",
                [Column(lib.objects[:-1], "path"), Column("procs"), Column("reads/\nwrites"), Column("bytes"),
                 Column("common sizes", "text", aside=True),
                 Column(_SELECTION_HEADER[lib.name], "text", aside=True),
                 Column(_MODE_HEADER[lib.name], "text", aside=True),
                 Column(_STORE_HEADER[lib.name], "text", aside=True),
                 Column("data\ntime")],
                rows, f"Per {lib.objects[:-1]}, summed over the processes that used it"
                      + (f" (top {top})" if len(v.objects) > top else "") + "."))
        hist_rows = histogram_rows(v)
        if hist_rows:
            sec.tables.append(LibTable(f"{lib.name}-sizes", f"{lib.title} access sizes (calls per size bucket)",
                                       [Column("op", "id"), Column("calls by bytes asked for", "text")], hist_rows))
        out.append(sec)
    return out


def histogram_counts(v: LibraryView) -> dict[str, dict[str, int]]:
    """"read"/"write" -> size bucket -> calls, over the library's files (its data calls)."""
    out: dict[str, dict[str, int]] = {}
    for f in v.files:
        for rw in ("READ", "WRITE"):
            for bucket, n in hist(f["module"], f["counters"], rw).items():
                if n:
                    acc = out.setdefault(rw.lower(), {})
                    acc[bucket] = acc.get(bucket, 0) + int(n)
    return out


def histogram_rows(v: LibraryView) -> list[list[str]]:
    counts = histogram_counts(v)
    return [[rw, "  ".join(f"{b.replace('_', '-')}: {n}" for b, n in counts[rw].items())]
            for rw in ("read", "write") if rw in counts]
