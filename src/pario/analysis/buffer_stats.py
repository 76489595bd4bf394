"""Reading the buffer's per-process stats files (schemas/buffer-stats.schema.json) and summing
them per file. The files are untrusted: a wrong one is named in one line, never a traceback."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pario.model.buffer import BufferFileStats, BufferStats
from pario.model.errors import ParioError
from pario.platform import documents

FORMAT = "pario-buffer-stats"
VERSION = 1
LIMIT = 64 << 20   # bytes of one process's stats: a few hundred bytes per file it wrote
_INTS = ("size", "opens", "calls", "bytes", "direct", "flushes", "sys_writes", "sys_bytes", "errors")
_FLOATS = ("program_time", "write_time")


def _bad(path: Path, what: str) -> ParioError:
    return ParioError(f"{path} is not a pario buffer stats file ({what}); it is written by libpario-preload.so "
                      "under `pario buffer --stats`")


def load_doc(path: Path) -> dict[str, Any]:
    # untrusted: a regular file, bounded in size and depth, then its schema (platform.documents)
    doc = checked(documents.load_json(path, "buffer stats", limit=LIMIT), path)
    try:
        documents.validate(doc, "buffer-stats", "the document")
    except ParioError as exc:
        raise _bad(path, str(exc)) from None
    return doc


def checked(doc: Any, path: Path | str) -> dict[str, Any]:
    """The document, if it is a stats document; else a ParioError naming `path`."""
    path = Path(path)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _bad(path, f"no \"format\": \"{FORMAT}\"")
    if doc.get("version") != VERSION:
        raise _bad(path, f"version {doc.get('version')!r}, this pario reads {VERSION}")
    files = doc.get("files")
    if not isinstance(files, list) or not isinstance(doc.get("process"), dict):
        raise _bad(path, "no process or files")
    for f in files:
        if not isinstance(f, dict) or not isinstance(f.get("path"), str):
            raise _bad(path, "a file without a path")
        for k in _INTS:
            if not isinstance(f.get(k), int) or isinstance(f.get(k), bool) or f[k] < 0:
                raise _bad(path, f"{k} of {f['path']} is not a count")
        for k in _FLOATS:
            if not isinstance(f.get(k), (int, float)) or f[k] < 0:
                raise _bad(path, f"{k} of {f['path']} is not a time")
    return doc


def docs_in(directory: Path) -> list[dict[str, Any]]:
    """Every finished stats file of a directory (a *.tmp left by a killed process is skipped)."""
    return [load_doc(p) for p in sorted(directory.glob("*.json")) if p.is_file()]


def summarize(docs: list[dict[str, Any]]) -> BufferStats:
    """Per (file, stream or descriptor), summed over processes; files the program only opened
    for reading and never wrote through the buffer are left out."""
    rows: dict[tuple[str, bool], BufferFileStats] = {}
    size = 0
    pieces: set[int] = set()
    for doc in docs:
        size = max(size, int(doc.get("settings", {}).get("size", 0) or 0))
        piece = doc.get("settings", {}).get("piece")
        if isinstance(piece, int) and not isinstance(piece, bool) and piece >= 0:
            pieces.add(piece)
        for f in doc["files"]:
            if not (f["calls"] or f["flushes"]):
                continue
            key = (f["path"], bool(f.get("stdio")))
            row = rows.setdefault(key, BufferFileStats(path=key[0], stdio=key[1], size=f["size"]))
            row.processes += 1
            row.size = max(row.size, f["size"])
            for k in _INTS[1:]:
                setattr(row, k, getattr(row, k) + f[k])
            for k in _FLOATS:
                setattr(row, k, getattr(row, k) + float(f[k]))
            for why, n in (f.get("flush_reasons") or {}).items():
                if isinstance(n, int):
                    row.flush_reasons[why] = row.flush_reasons.get(why, 0) + n
    partial = sum(1 for d in docs if d["process"].get("partial"))
    files = sorted(rows.values(), key=lambda r: (-r.bytes, r.path, r.stdio))
    return BufferStats(processes=len(docs), partial=partial, size=size, files=files,
                       piece=max(pieces) if pieces else None)
