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

from pario.model.errors import ParioError
from pario.platform import documents

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from typing import Any

FORMAT = "pario-profile"
VERSION = 1
COMPACT_VERSION = 2   # merged job logs on disk
_NAMES = ("counters", "kinds", "ops", "fcounters", "fkinds", "fops")


LIMIT = 1 << 30        # bytes of one log: about 9 KB per rank, so room for 100,000 ranks
_HOW = "give the file written by `pario profile -o`"
# Counter kinds that cannot be negative (offsets and ranks use -1 for "none").
_NON_NEGATIVE = ("count", "bytes", "size")
_INT64 = 1 << 63


def _load_json(path: str | os.PathLike, schema: bool = True) -> dict[str, Any]:
    """One log file, bounded and validated (schemas/profile-log.schema.json, then what a schema
    cannot say: counter arrays as long as their names, no negative counts or times). schema=False:
    the parts `pario profile` merges right after its run (profile/run.py's merge), which its own
    library wrote into a directory pario made for the run: the schema's validator alone takes about
    0.1 s to import (benchmarks/startup), so they are checked against it only if merging them fails,
    to name the damage in one line; every later reader of the job log checks the schema."""
    where = f"profile log {path}"
    doc = documents.parse_json(documents.decode(documents.read_bytes(path, "profile log", LIMIT), where), where)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ParioError(f"{path} is not a pario profile log (no \"format\": \"{FORMAT}\"); {_HOW}")
    if doc.get("version") == COMPACT_VERSION and doc.get("kind") == "job":
        try:  # a merged job log as written to disk; checked below in version 1's shape, as every reader takes it
            doc = expand(doc)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ParioError(f"{where}: not a valid compact job log (version 2); {_HOW}") from None
    if doc.get("version") != VERSION:
        raise ParioError(f"{path} is profile log version {doc.get('version')!r}, this pario reads versions "
                         f"{VERSION} and {COMPACT_VERSION}; use the pario that wrote it")
    if doc.get("kind") not in ("job", "process"):
        raise ParioError(f"{where}: kind is {doc.get('kind')!r}; a profile log is a \"job\" or a \"process\"")
    if schema:
        documents.validate(_once(doc), "profile-log", where, part=doc["kind"])
    processes = doc["processes"] if doc.get("kind") == "job" else [doc]
    for i, proc in enumerate(processes):
        _check_process(proc, f"processes[{i}]." if doc.get("kind") == "job" else "", where)
    return doc


# the keys of a job log of either version; any other top-level key (a buffered run's "filesystem"
# view, pario profile --buffer) is carried through unchanged
_JOB_KEYS = ("format", "version", "kind", "job", "processes")
_COMPACT_KEYS = ("names", "common", "module_order")
def _once(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with each module's counter names, kinds and operations kept where they first
    appear and emptied where they repeat (every process of one build writes the same ones): the
    schema then checks each distinct list once, at its first place, and a 1,000-process log takes
    seconds instead of minutes (benchmarks/RESULTS.md). The document itself is not changed."""
    procs = doc.get("processes") if doc.get("kind") == "job" else [doc]
    if not isinstance(procs, list):
        return doc
    seen: set[str] = set()
    out = []
    for proc in procs:
        modules = proc.get("modules") if isinstance(proc, dict) else None
        if not isinstance(modules, dict):
            out.append(proc)
            continue
        slim = {}
        for name, module in modules.items():
            if isinstance(module, dict) and all(isinstance(module.get(k), list) for k in _NAMES):
                key = json.dumps([module[k] for k in _NAMES])
                if key in seen:
                    module = {**module, **{k: [] for k in _NAMES}}
                seen.add(key)
            slim[name] = module
        out.append({**proc, "modules": slim})
    return {**doc, "processes": out} if doc.get("kind") == "job" else out[0]


def _check_process(proc: dict[str, Any], at: str, where: str) -> None:
    for name, module in proc["modules"].items():
        here = f"{at}modules.{name}"
        for names, kinds, ops in (("counters", "kinds", "ops"), ("fcounters", "fkinds", "fops")):
            if not len(module[names]) == len(module[kinds]) == len(module[ops]):
                raise ParioError(f"{where}: {here}: {names}, {kinds} and {ops} differ in length "
                                 f"({len(module[names])}, {len(module[kinds])}, {len(module[ops])}); "
                                 "the log is damaged")
        for r, rec in enumerate(module["records"]):
            for key, names, kinds in (("c", "counters", "kinds"), ("fc", "fcounters", "fkinds")):
                values = rec[key]
                if len(values) != len(module[names]):
                    raise ParioError(f"{where}: {here}.records[{r}].{key} has {len(values)} values for "
                                     f"{len(module[names])} {names}; the log is damaged")
                for k, (value, kind) in enumerate(zip(values, module[kinds])):
                    bad = value is not None and (abs(value) >= _INT64 or value < 0 and
                                                 (kind in _NON_NEGATIVE or key == "fc" and kind == "seconds"))
                    if bad:
                        raise ParioError(f"{where}: {here}.records[{r}].{key}[{k}] ({module[names][k]}) is "
                                         f"{value}, impossible for a {kind} counter; the log is damaged")


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


def parts_in(directory: str | os.PathLike) -> list[str]:
    """Finished per-process logs in a directory (unfinished *.tmp files are ignored)."""
    from pario.platform.outfile import path_text, suffix

    where = path_text(directory)   # as strings: pathlib costs `pario profile` its start (outfile.py)
    names = (n for n in os.listdir(where) if suffix(n) == ".json")
    return sorted(p for p in (n if where == "." else os.path.join(where, n) for n in names) if os.path.isfile(p))


def job_from_parts(parts: list[dict[str, Any]], job: dict[str, Any] | None = None) -> dict[str, Any]:
    """One job document from process documents."""
    procs = sorted(parts, key=lambda d: (d["process"].get("rank", -1) if d["process"].get("rank", -1) >= 0 else 1 << 30,
                                         d["process"].get("start", 0), d["process"].get("pid", 0)))
    return {"format": FORMAT, "version": VERSION, "kind": "job", "job": dict(job or {}), "processes": procs}


def load(path: str | os.PathLike) -> dict[str, Any]:
    """A job document from a merged log, one process part, or a directory of parts."""
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        raise ParioError(f"profile log {p} does not exist; give the file written by `pario profile -o` "
                         "or the PARIO_PROFILE_DIR directory of a job")
    if p.is_dir():
        try:
            files = parts_in(p)
        except OSError as exc:
            raise ParioError(f"{p}: cannot list it ({exc.strerror})") from None
        if not files:
            raise ParioError(f"{p} holds no process logs (*.json); did the job run with LD_PRELOAD set "
                             "by `pario profile --env`?")
        return job_from_parts([_load_json(f) for f in files], {"source": str(p)})
    doc = _load_json(p)
    if doc.get("kind") == "process":
        return job_from_parts([doc], {"source": str(p)})
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
