"""Apply a case's Lustre layout for real before the engine runs: create the case's files empty with
`lfs setstripe` (a layout is fixed when a file is created; the engine's O_TRUNC / MPI_MODE_CREATE
open keeps it), then read back with `lfs getstripe` what took effect. Off Lustre, say so.

The layout a case asks for is its striping hints (striping_factor, striping_unit, start_iodevice)
or an explicit `layout` (a list of settings.knobs.LAYOUT components)."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from pario.platform import fsinfo
from pario.settings import Settings, dialects
from pario.settings.model import build

# Backends whose files are exactly DIR/PREFIX.CASE.FILE (the library layers add their own objects).
_PLAIN = ("posix", "mpiio")


def requested_layout(case: dict[str, Any]) -> list[dict[str, str]]:
    if case.get("layout"):
        pairs = [(f"lustre.{i}.{k}" if len(case["layout"]) > 1 else f"lustre.{k}", str(v))
                 for i, comp in enumerate(case["layout"]) for k, v in comp.items()]
        return build(pairs)[0].layout
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
            fs_type: str | None) -> dict[int, dict[str, Any]]:
    """{case index: what was asked, done and measured} for the cases that ask for a layout."""
    out: dict[int, dict[str, Any]] = {}
    for index, case in enumerate(cases):
        layout = requested_layout(case)
        if not layout:
            continue
        rec: dict[str, Any] = {"requested": layout, "applied": False}
        out[index] = rec
        command = dialects.render_lfs(Settings(layout=layout), path="FILE").strip()
        rec["command"] = command
        if fs_type != "lustre":
            rec["reason"] = f"not Lustre ({fs_type or 'unknown file system'}): layout not applied"
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


def compare(rec: dict[str, Any]) -> list[str]:
    """Requested layout fields that the created file does not have."""
    if not rec.get("applied") or len(rec["requested"]) != 1:
        return []
    want, got = rec["requested"][0], rec.get("effective") or {}
    names = {"stripe_count": "stripe_count", "stripe_size": "stripe_size", "stripe_index": "stripe_offset"}
    return [f"{k} {v} (is {got.get(names[k])})" for k, v in want.items()
            if k in names and v not in ("0", "-1") and str(got.get(names[k])) != v]
