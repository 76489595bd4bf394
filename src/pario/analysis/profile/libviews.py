"""The I/O libraries of a profile (issue 29): per library (HDF5, PnetCDF, NetCDF, ADIOS2) its files
and its datasets or variables, from the records of its two modules (include/pario/counters.h), the
layers the application's I/O went through, and what each process said of the libraries it had
(called, loaded but not seen, linked statically).

Pure analysis of the rows of views.file_view; the terminal (report/terminal/libraries.py) and the
HTML page (report/html/profile.py) both draw the tables of report/libtables.py from these views."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Library:
    name: str          # as the log's "libraries" object names it
    title: str         # as people write it
    file_module: str
    object_module: str
    objects: str       # what its object module holds: "datasets" or "variables"


LIBRARIES = (Library("hdf5", "HDF5", "h5f", "h5d", "datasets"),
             Library("pnetcdf", "PnetCDF", "pnetcdf_file", "pnetcdf_var", "variables"),
             Library("netcdf", "NetCDF", "netcdf_file", "netcdf_var", "variables"),
             Library("adios2", "ADIOS2", "adios2_file", "adios2_var", "variables"))
LIBRARY_MODULES = frozenset(m for lib in LIBRARIES for m in (lib.file_module, lib.object_module))
# the layers under the libraries, top first
LAYERS = ("mpiio", "stdio", "posix")
# which library sits on which: a netCDF-4 file is an HDF5 file underneath
ON_TOP_OF = {"netcdf": "hdf5"}


def is_library(module: str) -> bool:
    return module in LIBRARY_MODULES


def props(text: str | None) -> dict[str, str]:
    """A record's "props" ("k=v;k=v") as a dict."""
    out: dict[str, str] = {}
    for item in filter(None, (text or "").split(";")):
        key, _, value = item.partition("=")
        out[key] = value
    return out


@dataclass
class LibraryView:
    lib: Library
    files: list[dict[str, Any]] = field(default_factory=list)     # file_view rows of its file module
    objects: list[dict[str, Any]] = field(default_factory=list)   # ... of its dataset/variable module
    states: dict[str, int] = field(default_factory=dict)          # state -> processes
    versions: list[str] = field(default_factory=list)
    objects_seen: list[str] = field(default_factory=list)         # the shared objects it was in
    notes: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return sum(f["reads"] + f["writes"] for f in self.files)

    @property
    def bytes(self) -> int:
        return sum(f["bytes_read"] + f["bytes_written"] for f in self.files)


def _counter(row: dict[str, Any], name: str) -> int:
    return int(row["counters"].get(f"{row['module'].upper()}_{name}") or 0)


def counter(row: dict[str, Any], name: str) -> int:
    """A counter of a file_view row by its name without the module prefix (0 when absent)."""
    return _counter(row, name)


def library_views(job: dict[str, Any], files: list[dict[str, Any]]) -> list[LibraryView]:
    """The libraries the job used or had, in LIBRARIES order; files: views.file_view(job)."""
    out = []
    for lib in LIBRARIES:
        view = LibraryView(lib)
        view.files = [f for f in files if f["module"] == lib.file_module]
        view.objects = [f for f in files if f["module"] == lib.object_module]
        for proc in job.get("processes") or []:
            said = (proc.get("libraries") or {}).get(lib.name) if isinstance(proc.get("libraries"), dict) else None
            if not isinstance(said, dict):
                continue
            state = str(said.get("state") or "?")
            view.states[state] = view.states.get(state, 0) + 1
            for key, acc in (("version", view.versions), ("object", view.objects_seen)):
                value = said.get(key)
                if value and value not in acc:
                    acc.append(str(value))
            note = said.get("note")
            if note and state != "called" and note not in view.notes:
                view.notes.append(str(note))
        if view.files or view.objects or view.states:
            out.append(view)
    return out


def recorded(job: dict[str, Any]) -> bool:
    """Whether the pario that wrote the log recorded the libraries (its process logs say which
    libraries each process had; logs written before issue 29 do not, and cannot say)."""
    return any(isinstance(p.get("libraries"), dict) for p in job.get("processes") or [])


def _under(path: str, lib_path: str) -> bool:
    return path == lib_path or path.startswith(lib_path.rstrip("/") + "/")


def layers(views: list[LibraryView], files: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per library that was called: the layers its files' I/O went through, top first (NetCDF,
    then HDF5 for a netCDF-4 file, then MPI-IO and POSIX where those records have its files:
    the same path, or under it for ADIOS2's output directories)."""
    out: list[dict[str, Any]] = []
    by_lib = {v.lib.name: v for v in views}
    for v in views:
        paths = sorted({f["path"] for f in v.files})
        if not paths:   # (a file opened without a data call is still the library's I/O: its metadata)
            continue
        below = []
        under = ON_TOP_OF.get(v.lib.name)
        if under in by_lib and any(f["path"] in paths for f in by_lib[under].files):
            below.append(by_lib[under].lib.title)
        for layer in LAYERS:
            if any(f["module"] == layer and any(_under(f["path"], p) for p in paths) and (f["reads"] or f["writes"])
                   for f in files):
                below.append({"mpiio": "MPI-IO", "stdio": "stdio", "posix": "POSIX"}[layer])
        out.append({"library": v.lib.name, "title": v.lib.title, "files": len(paths), "calls": v.calls,
                    "bytes": v.bytes, "below": below})
    # a library another one calls (HDF5 under NetCDF) is the application's own only for files
    # the other library did not open
    for n in out:
        name = str(n["library"])
        tops = [str(o["library"]) for o in out if ON_TOP_OF.get(str(o["library"])) == name]
        top_paths = {f["path"] for t in tops for f in by_lib[t].files}
        n["own"] = any(f["path"] not in top_paths for f in by_lib[name].files)
    return out


def application_layer(job: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, Any]:
    """Which layer the application's I/O came from: {"layer", "text", "known"}; layer is a
    library name, "mpiio" or "posix" (or None without I/O); known is False for a log written
    before the libraries were recorded (its library calls, if any, were not seen)."""
    views = library_views(job, files)
    stack = [n for n in layers(views, files) if n["own"]]
    if stack:
        top = max(stack, key=lambda n: n["bytes"])
        parts = [f"{n['title']} ({n['files']} file{'s' if n['files'] != 1 else ''}"
                 + (f", over {' over '.join(n['below'])}" if n["below"] else "") + ")" for n in stack]
        return {"layer": top["library"], "text": "; ".join(parts), "known": True}
    used = [m for m in LAYERS if any(f["module"] == m and (f["reads"] or f["writes"]) and not f["path"].startswith("<")
                                     for f in files)]   # not "<MPI runtime files>", "<other files>"
    known = recorded(job)
    if not used:
        return {"layer": None, "text": "no file I/O", "known": known}
    names = {"mpiio": "MPI-IO", "stdio": "stdio", "posix": "POSIX"}
    said = [names[m] for m in used]
    text = (", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]) + " calls of its own" + (
        "" if known else " (this log was written by a pario that did not record HDF5, PnetCDF, NetCDF or ADIOS2 "
                         "calls: a library's I/O shows as the layers under it)")
    return {"layer": "mpiio" if "mpiio" in used else used[0], "text": text, "known": known}


def library_totals(views: list[LibraryView]) -> dict[str, dict[str, Any]]:
    """Per library: files, datasets/variables, calls, bytes and time (for the job view)."""
    out = {}
    for v in views:
        out[v.lib.name] = {"files": len(v.files), v.lib.objects: len(v.objects),
                           "reads": sum(f["reads"] for f in v.files), "writes": sum(f["writes"] for f in v.files),
                           "bytes_read": sum(f["bytes_read"] for f in v.files),
                           "bytes_written": sum(f["bytes_written"] for f in v.files),
                           "read_time": sum(f["read_time"] for f in v.files),
                           "write_time": sum(f["write_time"] for f in v.files),
                           "meta_time": sum(f["meta_time"] for f in v.files),
                           "states": dict(v.states), "versions": list(v.versions),
                           "objects_seen": list(v.objects_seen), "notes": list(v.notes)}
    return out


def views_of_summary(summary: dict[str, Any]) -> list[LibraryView]:
    """The library views again from a summary (views.summary: its job's "libraries" and its file
    rows), as `pario profile show` and the HTML page get it."""
    out = []
    totals = (summary.get("job") or {}).get("libraries") or {}
    for lib in LIBRARIES:
        t = totals.get(lib.name)
        if t is None:
            continue
        out.append(LibraryView(lib, files=[f for f in summary["files"] if f["module"] == lib.file_module],
                               objects=[f for f in summary["files"] if f["module"] == lib.object_module],
                               states=dict(t.get("states") or {}), versions=list(t.get("versions") or []),
                               objects_seen=list(t.get("objects_seen") or []), notes=list(t.get("notes") or [])))
    return out
