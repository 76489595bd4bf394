"""Apply a case's layout for real before the engine runs: create the case's files empty with the
layout (a layout is fixed when a file is created; the engine's O_TRUNC / MPI_MODE_CREATE open keeps
it), then read back what took effect. Lustre: `lfs setstripe` / `lfs getstripe`. CephFS: the
attributes ceph.file.layout (files) and ceph.dir.layout (IOR's -u directories), set and read back
by pario itself. Elsewhere, say so.

The layout a case asks for is its `_layout` (--stripe-count, --stripe-size, --object-size; a list
of settings.knobs.LAYOUT components), or on Lustre its striping hints (striping_factor,
striping_unit, start_iodevice: ROMIO's Lustre driver sets them at creation, and pario does what it
would). On CephFS the MPI-IO layers ignore the striping hints (ROMIO's and OMPIO's ufs drivers set no
layout): the record says so, and the layout the file really got is read back after the write by
the engine (the case's `fs_layout`), to be shown beside what was asked and what MPI-IO reported."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from pario.platform import cephfs, fsinfo
from pario.settings import Settings, ceph_layout, dialects
from pario.settings.dialects.ceph import layout_value
from pario.settings.model import build

# Backends whose files are exactly DIR/PREFIX.CASE.FILE (the library layers add their own objects).
_PLAIN = ("posix", "mpiio")
# Lustre's layout fields that CephFS has no equivalent of.
_LUSTRE_ONLY = ("stripe_index", "ost_list", "overstripe_count", "mdt", "extent_end")


def requested_layout(case: dict[str, Any], fs_type: str | None = "lustre") -> list[dict[str, str]]:
    own = case.get("_layout") or case.get("layout")
    if own:
        pairs = [(f"lustre.{i}.{k}" if len(own) > 1 else ("ceph." if k == "object_size" else "lustre.") + k, str(v))
                 for i, comp in enumerate(own) for k, v in comp.items()]
        return build(pairs)[0].layout
    return hint_layout(case) if fs_type != "cephfs" else []


def hint_layout(case: dict[str, Any]) -> list[dict[str, str]]:
    """The layout the case's striping hints ask for."""
    hints = case.get("hints") or {}
    return dialects.layout_of(Settings(hints={k: str(v) for k, v in hints.items()}))


def file_count(case: dict[str, Any], ranks: int) -> int | None:
    strategy = case.get("strategy")
    if strategy == "fpp":
        return ranks
    if strategy in ("shared", "serial"):
        return 1
    if strategy == "nfiles":
        return int(case.get("nfiles") or 1)
    return None  # pernode: the number of hosts is known only inside the run


def prepare(cases: list[dict[str, Any]], directory: str, prefix: str, ranks: int,
            fs_type: str | None, servers: int | None = None,
            rank_dirs: list[str] | tuple = ()) -> dict[int, dict[str, Any]]:
    """{case index: what was asked, done and measured} for the cases that ask for a layout.
    `servers`: CephFS's object servers (stripe count -1 means all of them); `rank_dirs`: IOR's -u
    directories this run created (CephFS: each gets the layout for the files made in it)."""
    out: dict[int, dict[str, Any]] = {}
    for index, case in enumerate(cases):
        if fs_type == "cephfs":
            ceph = _prepare_ceph(case, index, directory, prefix, ranks, servers, rank_dirs)
            if ceph is not None:
                out[index] = ceph
            continue
        layout = requested_layout(case, fs_type)
        if not layout:
            continue
        rec: dict[str, Any] = {"requested": layout, "applied": False}
        out[index] = rec
        command = dialects.render_lfs(Settings(layout=layout), path="FILE").strip()
        rec["command"] = command
        if fs_type != "lustre":
            rec["reason"] = (f"not Lustre or CephFS ({fs_type or 'unknown file system'}): layout not applied"
                             if case.get("_layout") else f"not Lustre ({fs_type or 'unknown file system'}): "
                                                             "layout not applied")
            continue
        if not shutil.which("lfs"):
            rec["reason"] = "lfs not found on PATH: the layout is left to the MPI-IO striping hints"
            continue
        count = file_count(case, ranks)
        if case.get("unique_dir") or case.get("use_existing"):  # IOR's -u, -E
            rec["reason"] = ("-u puts the files in DIR/<rank>/ and -E may find them there already: not created "
                             "here; set the layout on the directory: " + command.replace("FILE", directory))
            continue
        if count is None or case.get("backend") not in _PLAIN or case.get("reuse"):
            rec["reason"] = ("the engine names these files at run time: the layout is left to the MPI-IO "
                             "striping hints (or set it on the directory: " + command.replace("FILE", directory) + ")")
            continue
        paths = [os.path.join(directory, f"{prefix}.{index}.{i}") for i in range(count)]
        failed = _setstripe(command, paths)
        if failed:
            rec["reason"] = failed
            continue
        got = fsinfo.run_tool(["lfs", "getstripe", paths[0]])
        entries = fsinfo.parse_getstripe(got) if got else []
        rec.update(applied=True, files=count, means="lfs getstripe",
                   effective={k: v for k, v in (entries[0] if entries else {}).items() if k != "path"},
                   note="kept for every repetition: the engine truncates these files between repetitions "
                        "instead of removing them")
    return out


def _prepare_ceph(case: dict[str, Any], index: int, directory: str, prefix: str, ranks: int,
                  servers: int | None, rank_dirs: list[str] | tuple) -> dict[str, Any] | None:
    layout = requested_layout(case, "cephfs")
    if not layout:
        asked = hint_layout(case)
        if not asked:
            return None
        return {"requested": asked, "applied": False, "from": "hints",
                "command": dialects.render(Settings(layout=asked), "ceph", path="FILE").strip(),
                "reason": "MPI-IO's striping hints set no layout on CephFS (ROMIO's and OMPIO's ufs drivers "
                          "ignore them); the layout the file got is read back after the write; --stripe-count "
                          "sets one"}
    rec: dict[str, Any] = {"requested": layout, "applied": False}
    comp = dict(layout[0])
    if comp.get("stripe_count") == "-1":
        if not servers:
            rec["reason"] = "stripe count -1 (every server): the number of object servers is unknown"
            return rec
        comp["stripe_count"] = str(servers)
        rec["note"] = f"stripe count -1: the {servers} object servers"
    value = layout_value(comp)
    rec["command"] = f'setfattr -n ceph.file.layout -v "{value}" FILE'
    rec["resolved"] = comp
    if len(layout) > 1:
        rec["reason"] = "CephFS has no composite (PFL) layouts: give one component"
        return rec
    dropped = [k for k in _LUSTRE_ONLY if k in comp]
    if dropped:
        rec["ignored"] = [f"{k} (Lustre only)" for k in dropped]
    if not value:
        rec["reason"] = "nothing CephFS can set (" + ", ".join(dropped) + " are Lustre's)"
        return rec
    want = ceph_layout.parse_layout(value)
    if case.get("workload") == "metadata":  # the engine sets it on the tree's top directory when it makes it
        rec.update(applied=True, target="tree", top_xattr=f"{cephfs.DIR_XATTR}={value}",
                   command=f'setfattr -n ceph.dir.layout -v "{value}" TREE', means="the engine, when it makes the tree",
                   note="every file and directory made in the tree inherits it")
        return rec
    if case.get("unique_dir"):  # IOR's -u: the files are made in DIR/<rank>/, which inherit this
        if case.get("use_existing") or len(rank_dirs) < ranks:
            rec["reason"] = ("-u with directories this run did not create: not changed; set the layout on them: "
                             f'setfattr -n ceph.dir.layout -v "{value}" DIR/<rank>')
            return rec
        failed = next((why for d in rank_dirs if (why := cephfs.set_layout(d, want))), None)
        if failed:
            rec["reason"] = failed
            return rec
        got = cephfs.read_layout(rank_dirs[0]) or {}
        rec.update(applied=True, files=len(rank_dirs), target="directories", means="getfattr ceph.dir.layout",
                   effective=got, command=rec["command"].replace("ceph.file.layout", "ceph.dir.layout")
                   .replace("FILE", "DIR/<rank>"))
        return rec
    count = file_count(case, ranks)
    if case.get("use_existing") or count is None or case.get("backend") not in _PLAIN or case.get("reuse"):
        rec["reason"] = ("the engine names these files at run time (or -E finds them there): set the layout on "
                         f'the directory: setfattr -n ceph.dir.layout -v "{value}" {directory}')
        return rec
    paths = [os.path.join(directory, f"{prefix}.{index}.{i}") for i in range(count)]
    made: list[str] = []
    for path in paths:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            made.append(path)
            failed = cephfs.set_layout(path, want)
        except OSError as exc:
            failed = f"could not create {path}: {exc.strerror}"
        if failed:
            for done in made:  # the files of this case that pario made: the engine makes its own
                os.unlink(done)
            rec["reason"] = failed
            return rec
    rec.update(applied=True, files=count, means="getfattr ceph.file.layout",
               effective=cephfs.read_layout(paths[0]) or {},
               note="kept for every repetition: the engine truncates these files between repetitions "
                    "instead of removing them")
    return rec


def _setstripe(command: str, paths: list[str]) -> str | None:
    argv = command.split()[:-1]
    for path in paths:
        try:
            out = subprocess.run(argv + [path], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"lfs setstripe failed ({exc})"
        if out.returncode:
            return f"lfs setstripe {path} failed: {(out.stderr or out.stdout).strip().splitlines()[-1:]}"
    return None


# What a requested layout field is called in what each file system reports.
_LUSTRE_NAMES = {"stripe_count": "stripe_count", "stripe_size": "stripe_size", "stripe_index": "stripe_offset"}
_CEPH_NAMES = {"stripe_count": "stripe_count", "stripe_size": "stripe_unit", "object_size": "object_size",
               "pool": "pool"}


def compare(rec: dict[str, Any]) -> list[str]:
    """Requested layout fields that the created file does not have."""
    if not rec.get("applied") or len(rec["requested"]) != 1:
        return []
    want, got = rec.get("resolved") or rec["requested"][0], rec.get("effective") or {}
    ceph = rec.get("top_xattr") or str(rec.get("means", "")).startswith("getfattr ceph")
    names = _CEPH_NAMES if ceph else _LUSTRE_NAMES
    return [f"{k} {v} (is {got.get(names[k])})" for k, v in want.items()
            if k in names and v not in ("0", "-1") and str(got.get(names[k])) != v]
