"""How a case is named wherever pario names it (tables, the run list's summaries, comparisons,
regressions): strategy/backend and its configuration, coll or indep always said, so that
"shared/mpiio" never stands for two different cases. Pure: summary rows in, words out."""
from __future__ import annotations

from pario.model.units import exact

# Backends whose cases may be collective or independent: the table says which.
COLLECTIVE_BACKENDS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")


def config_words(row: dict) -> list[str]:
    """What the case does beyond strategy/backend, in a few words: collective or independent calls,
    segments, the file view, fsync at the end (fsync) or after each write (fsync/w), O_DIRECT and
    a read shift. Always said, so that a label is the same whatever the other cases are."""
    c = row.get("config") or {}
    words = []
    if row["backend"] in COLLECTIVE_BACKENDS:
        words.append("coll" if row.get("collective") else "indep")
    if (c.get("segments") or 1) > 1:
        words.append(f"s={c['segments']}")
    if c.get("view"):
        words.append("view")
    if c.get("fsync_per_write"):
        words.append("fsync/w")
    elif c.get("fsync"):
        words.append("fsync")
    if c.get("odirect"):
        words.append("O_DIRECT")
    if c.get("reorder"):
        words.append(f"shift={c['reorder']}")
    return words


def case_labels(rows: list[dict]) -> list[str]:
    """strategy/backend and its configuration (config_words), plus whatever else tells the cases
    apart (pattern, transfer size, library settings), plus the case name if that is not enough."""
    labels = [" ".join([f"{r['strategy']}/{r['backend']}"] + config_words(r)) for r in rows]

    def lib(r: dict) -> str:
        return " ".join(f"{k}={v}" for k, v in sorted(((r.get("lib") or {}).get("requested") or {}).items()))

    def pattern(r: dict) -> str:
        return r["pattern"] if r["pattern"] not in ("?", "tree") else ""

    def xfer(r: dict) -> str:
        return f"t={exact(r['xfer'], 'GMk')}"

    for fmt in (pattern, xfer, lib):  # each said when it differs between cases
        words = [fmt(r) for r in rows]
        if len(set(words)) > 1 or (fmt is pattern and any(w not in ("", "segmented") for w in words)):
            labels = [f"{lab} {w}".rstrip() for lab, w in zip(labels, words)]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} ({r['name']})" for lab, r in zip(labels, rows)]
    return labels




def case_label(row: dict) -> str:
    """One case's label alone (no other case to tell it from): 'shared/mpiio coll fsync'."""
    return " ".join([f"{row['strategy']}/{row['backend']}"] + config_words(row))
