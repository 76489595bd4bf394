"""Reading profile logs: one process part, a directory of parts, or a merged job log.

Counter names, kinds and merge operations come from the log itself (written from the one list in
include/pario/counters.h), so this module keeps no list of its own.

Process logs are version 1. A merged job log is written compact (version 2, `compact`): what every
process has alike (counter names, settings, the command line) once at the top, and per process
only what differs and the records it kept, so that a job whose ranks share their files costs
about a hundred bytes per rank. Readers get version 1's shape back from `load` (`expand`)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pario.model.errors import ParioError

FORMAT = "pario-profile"
VERSION = 1
COMPACT_VERSION = 2   # merged job logs on disk
_NAMES = ("counters", "kinds", "ops", "fcounters", "fkinds", "fops")


def _load_json(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise ParioError(f"cannot read profile log {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ParioError(f"{path} is not a pario profile log (invalid JSON at line {exc.lineno}); "
                         "give the file written by `pario profile -o`") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ParioError(f"{path} is not a pario profile log (no \"format\": \"{FORMAT}\"); "
                         "give the file written by `pario profile -o`")
    if doc.get("version") == COMPACT_VERSION and doc.get("kind") == "job":
        try:
            return expand(doc)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ParioError(f"{path} is not a valid compact job log (version 2); "
                             "give the file written by `pario profile -o`") from None
    if doc.get("version") != VERSION:
        raise ParioError(f"{path} is profile log version {doc.get('version')}, this pario reads versions "
                         f"{VERSION} and {COMPACT_VERSION}; use the pario that wrote it")
    return doc


# the keys of a job log of either version; any other top-level key (a buffered run's "filesystem"
# view, pario profile --buffer) is carried through unchanged
_JOB_KEYS = ("format", "version", "kind", "job", "processes")
_COMPACT_KEYS = ("names", "common", "module_order")


def compact(doc: dict[str, Any]) -> dict[str, Any]:
    """A job document (version 1's shape) as written to disk: version 2."""
    procs = doc["processes"]
    names: dict[str, dict[str, Any]] = {}
    for proc in procs:
        for mod, m in proc["modules"].items():
            lists = {k: m[k] for k in _NAMES}
            names.setdefault(mod, lists)
    same = {mod: all(proc["modules"].get(mod) is None or {k: proc["modules"][mod][k] for k in _NAMES} == lists
                     for proc in procs) for mod, lists in names.items()}
    names = {mod: lists for mod, lists in names.items() if same[mod]}
    top = [k for k in procs[0] if k not in ("format", "version", "kind", "process", "modules")] if procs else []
    common = {k: procs[0][k] for k in top if all(k in p and p[k] == procs[0][k] for p in procs)}
    pkeys = list(procs[0]["process"]) if procs else []
    common_process = {k: procs[0]["process"][k] for k in pkeys
                      if all(k in p["process"] and p["process"][k] == procs[0]["process"][k] for p in procs)}
    out_procs = []
    for proc in procs:
        entry: dict[str, Any] = {k: v for k, v in proc.items()
                                 if k not in ("format", "version", "kind", "modules") and k not in common}
        entry["process"] = {k: v for k, v in proc["process"].items() if k not in common_process}
        mods: dict[str, Any] = {}
        for mod, m in proc["modules"].items():
            if mod in names:
                if m.get("records"):
                    mods[mod] = m["records"]
            else:
                mods[mod] = m  # names of its own (another library version): kept whole
        if mods:
            entry["modules"] = mods
        out_procs.append(entry)
    extra = {k: v for k, v in doc.items() if k not in _JOB_KEYS}  # e.g. a buffered run's "filesystem"
    return {"format": FORMAT, "version": COMPACT_VERSION, "kind": "job", "job": doc.get("job", {}),
            "names": names, "common": {**common, "process": common_process},
            "module_order": list(names), "processes": out_procs, **extra}


def expand(doc: dict[str, Any]) -> dict[str, Any]:
    """A version 2 job log back in version 1's shape (what every reader takes)."""
    names, common = doc["names"], doc["common"]
    if not isinstance(names, dict) or not isinstance(common, dict) or not isinstance(doc["processes"], list):
        raise TypeError("names, common and processes")
    order = [m for m in doc.get("module_order") or list(names) if m in names]
    procs = []
    for entry in doc["processes"]:
        proc = {"format": FORMAT, "version": VERSION, "kind": "process"}
        proc.update({k: v for k, v in common.items() if k != "process"})
        proc.update({k: v for k, v in entry.items() if k not in ("process", "modules")})
        proc["process"] = {**common.get("process", {}), **entry.get("process", {})}
        mods = entry.get("modules") or {}
        modules: dict[str, Any] = {}
        for mod in order:
            modules[mod] = {**names[mod], "records": list(mods.get(mod) or [])}
        for mod, m in mods.items():
            if mod not in names:
                modules[mod] = m
        proc["modules"] = modules
        procs.append(proc)
    extra = {k: v for k, v in doc.items() if k not in _JOB_KEYS + _COMPACT_KEYS}
    return {"format": FORMAT, "version": VERSION, "kind": "job", "job": doc.get("job", {}), "processes": procs,
            **extra}


def parts_in(directory: Path) -> list[Path]:
    """Finished per-process logs in a directory (unfinished *.tmp files are ignored)."""
    return sorted(p for p in directory.iterdir() if p.suffix == ".json" and p.is_file())


def job_from_parts(parts: list[dict[str, Any]], job: dict[str, Any] | None = None) -> dict[str, Any]:
    """One job document from process documents."""
    procs = sorted(parts, key=lambda d: (d["process"].get("rank", -1) if d["process"].get("rank", -1) >= 0 else 1 << 30,
                                         d["process"].get("start", 0), d["process"].get("pid", 0)))
    return {"format": FORMAT, "version": VERSION, "kind": "job", "job": dict(job or {}), "processes": procs}


def load(path: str | os.PathLike) -> dict[str, Any]:
    """A job document from a merged log, one process part, or a directory of parts."""
    p = Path(path)
    if not p.exists():
        raise ParioError(f"profile log {p} does not exist; give the file written by `pario profile -o` "
                         "or the PARIO_PROFILE_DIR directory of a job")
    if p.is_dir():
        files = parts_in(p)
        if not files:
            raise ParioError(f"{p} holds no process logs (*.json); did the job run with LD_PRELOAD set "
                             "by `pario profile --env`?")
        return job_from_parts([_load_json(f) for f in files], {"source": str(p)})
    doc = _load_json(p)
    if doc.get("kind") == "process":
        return job_from_parts([doc], {"source": str(p)})
    if doc.get("kind") != "job" or not isinstance(doc.get("processes"), list):
        raise ParioError(f"{p}: unknown profile log kind {doc.get('kind')!r}; expected \"job\" or \"process\"")
    return doc


def counters(module: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """Counter name -> value for one record, using the names stored in its module."""
    out = dict(zip(module["counters"], record["c"]))
    out.update(zip(module["fcounters"], record["fc"]))
    return out


def counter_meta(module: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Counter name -> {"kind", "op"} for a module, from the log."""
    meta = {n: {"kind": k, "op": o} for n, k, o in zip(module["counters"], module["kinds"], module["ops"])}
    meta.update({n: {"kind": k, "op": o} for n, k, o in zip(module["fcounters"], module["fkinds"], module["fops"])})
    return meta
