"""`pario bench --suite layers`: the same global array written and read through raw MPI-IO and
through each I/O library built into the engine, and what each layer costs against raw MPI-IO on
the same bytes. Case planning and pure analysis; tables_layers.py renders."""
from __future__ import annotations

from typing import Any

from . import spec as specmod

BASELINE = "mpiio-coll"
# (name, backend, collective, lib): the rows of the suite, in the order the table shows them.
ROWS: tuple[tuple[str, str, bool, dict[str, str]], ...] = (
    (BASELINE, "mpiio", True, {}),
    ("mpiio-indep", "mpiio", False, {}),
    ("hdf5-coll", "hdf5", True, {}),
    ("hdf5-indep", "hdf5", False, {}),
    ("pnetcdf-coll", "pnetcdf", True, {}),
    ("pnetcdf-iput", "pnetcdf", True, {"mode": "iput"}),
    ("pnetcdf-bput", "pnetcdf", True, {"mode": "bput"}),
    ("netcdf4-coll", "netcdf4", True, {}),
    ("netcdf4-indep", "netcdf4", False, {}),
    ("adios2", "adios2", False, {}),
)
# What to install when a library is not built (Debian; elsewhere the site's module).
INSTALL = {
    "hdf5": "apt-get install libhdf5-openmpi-dev hdf5-tools (or load your site's parallel HDF5 module), then rebuild",
    "pnetcdf": "apt-get install libpnetcdf-dev pnetcdf-bin (or load your site's PnetCDF module), then rebuild",
    "netcdf4": "apt-get install libnetcdf-mpi-dev netcdf-bin (or load your site's parallel NetCDF module), "
               "then rebuild",
    "adios2": "scripts/build-adios2.sh (or load your site's ADIOS2 module), then rebuild",
    "mpiio": "rebuild pario with an MPI that has MPI-IO",
}


def built(listing: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    return {b["name"]: b for b in (listing or {}).get("backends", []) if b.get("built")}


def fsync_note(overrides: dict[str, Any], listing: dict[str, Any] | None) -> list[str]:
    if overrides.get("fsync") and (listing is None or "adios2" in built(listing)):
        return ["-e: every layer syncs before close except adios2, which has no fsync"]
    return []


def missing_notes(listing: dict[str, Any] | None) -> list[str]:
    """One sentence per library of the suite that this engine lacks, with how to get it."""
    have = built(listing)
    notes = []
    for backend in dict.fromkeys(r[1] for r in ROWS):
        if backend not in have:
            notes.append(f"{backend} not built, its rows are left out: {INSTALL[backend]}")
    return notes


def suite_cases(block: int, ops: list[str], reps: int, listing: dict[str, Any] | None,
                overrides: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One shared file, segmented, 1 MiB transfers, one segment: the same bytes through every layer."""
    have = built(listing)
    base = {"strategy": "shared", "pattern": "segmented", "transfer": min(specmod.MIB, block), "block": block,
            "segments": 1, "ops": ops, "reps": reps}
    base.update(overrides or {})
    cases = []
    for name, backend, collective, lib in ROWS:
        if listing is not None and backend not in have:
            continue
        row = {**base, "name": name, "backend": backend, "collective": collective}
        if backend == "adios2":
            row.pop("fsync", None)  # BP5 has no fsync: its close is timed, the note of the run says so
        if lib:
            row["lib"] = dict(lib)
        cases.append(specmod.build_case(row, "layers suite"))
    return cases


# ---- analysis (pure) ------------------------------------------------------------------------

def _median(row: dict[str, Any], op: str) -> float | None:
    stats = row.get(op) or {}
    return (stats.get("bw_mib") or {}).get("median")


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def _baseline(rows: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any] | None:
    """The mpiio collective row that moved the same bytes, if the run has one."""
    for cand in rows:
        if cand["backend"] == "mpiio" and cand["collective"] and cand.get("bytes") == row.get("bytes") \
                and cand.get("pattern") == row.get("pattern"):
            return cand
    return None


def compare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per data row: write/read spreads, ratio of medians to mpiio collective on the same bytes,
    and for pnetcdf non-blocking rows the ratio to pnetcdf blocking collective."""
    out = []
    for row in rows:
        if row.get("workload") == "metadata":
            continue
        base = _baseline(rows, row)
        entry = {"name": row["name"], "backend": row["backend"], "collective": row["collective"],
                 "mode": (row.get("lib") or {}).get("requested", {}).get("mode"), "lib": row.get("lib"),
                 "baseline": base["name"] if base else None, "verify": row.get("verify")}
        for op in ("write", "read"):
            entry[op] = (row.get(op) or {}).get("bw_mib")
            entry[f"{op}_ratio"] = _ratio(_median(row, op), _median(base, op)) if base and base is not row else None
        if row["backend"] == "pnetcdf" and entry["mode"] in ("iput", "bput"):
            blocking = next((r for r in rows if r["backend"] == "pnetcdf" and r["collective"] == row["collective"]
                             and (r.get("lib") or {}).get("requested", {}).get("mode", "blocking") == "blocking"
                             and r.get("bytes") == row.get("bytes")), None)
            if blocking:
                entry["vs_blocking"] = {op: _ratio(_median(row, op), _median(blocking, op)) for op in ("write", "read")}
        out.append(entry)
    return out


def is_layers_run(rows: list[dict[str, Any]]) -> bool:
    """A run worth the layers table: a library layer and an mpiio collective baseline."""
    return any(r.get("lib") for r in rows) and any(r["backend"] == "mpiio" and r["collective"] for r in rows)

