"""Reading profile logs: one process part, a directory of parts, or a merged job log.

Counter names, kinds and merge operations come from the log itself (written from the one list in
include/pario/counters.h), so this module keeps no list of its own."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pario.model.errors import ParioError

FORMAT = "pario-profile"
VERSION = 1


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
    if doc.get("version") != VERSION:
        raise ParioError(f"{path} is profile log version {doc.get('version')}, this pario reads version "
                         f"{VERSION}; use the pario that wrote it")
    return doc


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
