"""Runs measured but not (yet) stored. `pario bench` writes the run's record here first, then
stores it and removes the file; when the store is locked too long, corrupt, or pario is killed
while storing, the file stays and `pario results import FILE` stores it later. A file pario
reads back is untrusted: load() checks its shape."""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from pario.model.errors import ParioError
from pario.platform import documents

SCHEMA = "pario.run/1"
DIRNAME = "unstored"
STATUSES = ("complete", "partial", "failed")
LIMIT = 1 << 30  # bytes of one run record: its result holds every repetition of every rank
_KEYS = {"kind": str, "command": str, "status": str, "headline": str, "spec": dict, "env": dict, "result": dict}


def places(db_path: str) -> list[str]:
    """Where a record may go, best first: beside the database, the working directory, $TMPDIR."""
    return [os.path.join(os.path.dirname(os.path.abspath(db_path)), DIRNAME), os.getcwd(), tempfile.gettempdir()]


def keep(db_path: str, run: dict[str, Any]) -> str | None:
    """Write the run (the add_run fields) to a file of its own; its path, or None when no place
    could take it (the caller still tries the store)."""
    doc = {"schema": SCHEMA, **run}
    name = f"pario-run-{(run.get('spec') or {}).get('run_id') or os.getpid()}.json"
    for place in places(db_path):
        path = os.path.join(place, name)
        try:
            os.makedirs(place, exist_ok=True)
            with open(path + ".tmp", "w", encoding="utf-8") as fh:
                json.dump(doc, fh, sort_keys=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(path + ".tmp", path)
            return path
        except (OSError, TypeError, ValueError):
            try:
                os.unlink(path + ".tmp")
            except OSError:
                pass
    return None


def discard(path: str | None) -> None:
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass
        try:
            os.rmdir(os.path.dirname(path))  # the unstored/ directory, once empty
        except OSError:
            pass


def load(path: str) -> dict[str, Any]:
    """The run kept in `path`, checked: the add_run fields with their types."""
    # untrusted like any file given: a regular file, bounded in size and depth (platform.documents)
    doc = documents.load_json(path, "run record", limit=LIMIT)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ParioError(f"{path} is not a run record of pario (no \"schema\": \"{SCHEMA}\"); IOR's JSON summary "
                         "goes through `pario results import-ior`")
    for key, kind in _KEYS.items():
        if not isinstance(doc.get(key), kind):
            raise ParioError(f"{path}: \"{key}\" is missing or not a {kind.__name__}; the file is damaged")
    if doc["status"] not in STATUSES:
        raise ParioError(f"{path}: status {doc['status']!r} is not one of {', '.join(STATUSES)}")
    return {key: doc[key] for key in _KEYS}
