"""`pario bench --suite layers`: the same global array written and read through raw MPI-IO and
through each I/O library built into the engine, and what each layer costs against raw MPI-IO on
the same bytes. The planning half; analysis/layers.py compares, report/terminal/layers.py renders."""
from __future__ import annotations

from typing import Any

from pario.model.units import MIB
from pario.plan.cases import build_case

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
        return ["-e: every layer syncs before close; adios2 (BP5 has no sync call) has every file BP5 "
                "wrote flushed right after its close, inside the timed phase"]
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
    base = {"strategy": "shared", "pattern": "segmented", "transfer": min(MIB, block), "block": block,
            "segments": 1, "ops": ops, "reps": reps}
    base.update(overrides or {})
    cases = []
    for name, backend, collective, lib in ROWS:
        if listing is not None and backend not in have:
            continue
        row = {**base, "name": name, "backend": backend, "collective": collective}
        if lib:
            row["lib"] = dict(lib)
        cases.append(build_case(row, "layers suite"))
    return cases
