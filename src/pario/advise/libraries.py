"""Which I/O library a file belongs to, so that a fix names that library's own knobs (HDF5's
H5Pset_alignment is no fix for a PnetCDF file, whose knobs are nc_header_align_size and
nc_var_align_size). Most trusted first: the log's own records of the library (modules named
after it), the file's first bytes when it is here (HDF5's signature, which NetCDF-4 files carry
too; CDF-1/2/5 of classic netCDF and PnetCDF), then its name (.h5, .bp, ...). A .nc file known
by its name only could be either netCDF flavour: the fix says so and gives both."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pario.advise.job import Job
from pario.model.units import exact

HDF5, NETCDF4, PNETCDF, NETCDF, ADIOS2 = "HDF5", "NetCDF-4", "PnetCDF", "netCDF", "ADIOS2"
_NAMES = {".h5": HDF5, ".hdf5": HDF5, ".he5": HDF5, ".hdf": HDF5, ".nc4": NETCDF4, ".nc": NETCDF,
          ".bp": ADIOS2, ".bp4": ADIOS2, ".bp5": ADIOS2}


@dataclass
class Library:
    name: str | None       # HDF5 | NetCDF-4 | PnetCDF | netCDF (either flavour) | ADIOS2 | None
    how: str               # where that came from


def _magic(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return None
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return HDF5
    if head[:3] == b"CDF" and head[3:4] in (b"\x01", b"\x02", b"\x05"):
        return PNETCDF
    return None


def library_of(path: str, job: Job) -> Library:
    ext = os.path.splitext(path)[1].lower()
    logged = job.lib_files.get(path)
    if logged == HDF5 and ext in (".nc", ".nc4"):
        return Library(NETCDF4, "the log's HDF5 records of a .nc file: NetCDF-4")
    if logged:
        return Library(logged, "the log's records of the library")
    if ext in (".nc", ".nc4") and job.format == "pario" and any(r.path == path and r.module == "mpiio"
                                                                  for r in job.records):
        # netCDF's parallel classic files go through PnetCDF, whose own keys the log would show
        return Library(NETCDF4, "opened through MPI-IO without PnetCDF's keys in its hints: NetCDF-4's HDF5")
    magic = _magic(path) if os.path.isfile(path) else None
    if magic == HDF5:
        return Library(NETCDF4 if ext in (".nc", ".nc4") else HDF5, "the file's HDF5 signature, read here")
    if magic == PNETCDF:
        return Library(PNETCDF, "the file's classic netCDF signature (CDF-1/2/5), read here: PnetCDF's knobs "
                                "apply when it writes it")
    if ext in _NAMES:
        return Library(_NAMES[ext], f"its name ({ext})")
    if os.path.isdir(path) and ext in (".bp", ".bp4", ".bp5"):
        return Library(ADIOS2, "its name")
    return Library(None, "no library named by the log, the file or its name")


def alignment_fix(lib: Library, unit: int) -> tuple[str, dict[str, str], dict[str, str]]:
    """(words, settings keys -> values, dialect -> rendered) of aligning a library's file to `unit`."""
    from pario.settings import Settings, render

    u = exact(unit, "gmk")
    if lib.name == HDF5:
        s = Settings(lib={"hdf5": {"alignment": str(unit), "align_threshold": str(unit)}})
        return (f"HDF5: H5Pset_alignment(fapl, {unit}, {unit}) on the file access property list puts every "
                f"object of {u} or more at a multiple of {u}",
                {"hdf5.alignment": str(unit), "hdf5.align_threshold": str(unit)}, {"hdf5": render(s, "hdf5").strip()})
    if lib.name == NETCDF4:
        return (f"NetCDF-4 (HDF5 underneath): nc_set_alignment({unit}, {unit}) before nc_create (netCDF-C 4.9 "
                "or later) aligns every variable of that size or more",
                {"netcdf4.alignment": str(unit), "netcdf4.align_threshold": str(unit)},
                {"netcdf4": f"nc_set_alignment({unit}, {unit});"})
    if lib.name == PNETCDF:
        s = Settings(lib={"pnetcdf": {"header_align": str(unit), "var_align": str(unit)}})
        return (f"PnetCDF: the hints nc_header_align_size={unit} and nc_var_align_size={unit} (MPI_Info at "
                "ncmpi_create, or PNETCDF_HINTS) pad the header and start each variable at a multiple",
                {"pnetcdf.header_align": str(unit), "pnetcdf.var_align": str(unit)},
                {"pnetcdf": render(s, "pnetcdf").strip()})
    if lib.name == NETCDF:
        hdf = alignment_fix(Library(NETCDF4, lib.how), unit)
        pnc = alignment_fix(Library(PNETCDF, lib.how), unit)
        return (f"a .nc file may be NetCDF-4 or classic netCDF: if NetCDF-4, {hdf[0]}; if classic written "
                f"with PnetCDF, {pnc[0]}", {**hdf[1], **pnc[1]}, {**hdf[2], **pnc[2]})
    if lib.name == ADIOS2:
        s = Settings(lib={"adios2": {"StripeSize": str(unit)}})
        return (f"ADIOS2: the BP5 engine parameter StripeSize={unit} aligns its data blocks",
                {"adios2.StripeSize": str(unit)}, {"adios2": render(s, "adios2").strip()})
    return "", {}, {}


# The files an ADIOS2 BP engine writes in its output directory NAME.bp: data.N (one per
# aggregator), md.N and md.idx (BP4, BP5), mmd.N (BP5), profiling.json. The engine buffers the
# program's puts and writes these itself at EndStep and Close, on its own schedule.
_BP_DIR = re.compile(r"\.bp[45]?$", re.IGNORECASE)
_BP_FILE = re.compile(r"^(data\.\d+|md\.\d+|md\.idx|mmd\.\d+|profiling\.json)$")


def engine_outputs(job: Job) -> dict[str, str]:
    """file -> the ADIOS2 output directory it is part of: the files under a directory the log's
    ADIOS2 records name, or (a log without them: Darshan has no ADIOS2 module) the BP format's
    own file names inside a directory named NAME.bp, .bp4 or .bp5. Their POSIX calls are the
    engine's, not the program's: no buffer, pwrite or order change of the program's reaches them;
    the engine's parameters do (rules/lib_layout.py)."""
    logged = {f.rstrip("/") for f, lib in job.lib_files.items() if lib == ADIOS2}
    out: dict[str, str] = {}
    for r in job.records:
        parent, name = os.path.split(r.path)
        if parent in logged or (_BP_DIR.search(parent) and _BP_FILE.match(name)):
            out[r.path] = parent
    return out
