"""Each dialect a setting is spoken in, rendered from one Settings object and parsed back into one:
MPI_Info (the engine's JSON `hints`), a ROMIO_HINTS file, Open MPI `--mca` flags and OMPI_MCA_
environment, Cray's MPICH_MPIIO_HINTS (mpi.py), an `lfs setstripe` command (lustre.py), a CephFS
`setfattr -n ceph.dir.layout` command (ceph.py), ADIOS2
XML, HDF5 calls and PnetCDF's PNETCDF_HINTS (libraries.py). parse(render(s)) gives back what the
dialect can carry of s. The spellings shared by several dialects are in spellings.py."""
from __future__ import annotations

from typing import Callable

from pario.model.errors import ParioError, did_you_mean
from pario.settings.dialects.ceph import parse_ceph, render_ceph
from pario.settings.dialects.libraries import (
    parse_adios2,
    parse_hdf5,
    parse_pnetcdf,
    render_adios2,
    render_hdf5,
    render_pnetcdf,
)
from pario.settings.dialects.lustre import parse_lfs, render_lfs
from pario.settings.dialects.mpi import (
    cray_patterns,
    parse_cray,
    parse_info,
    parse_ompi,
    parse_ompi_env,
    parse_romio,
    render_cray,
    render_info,
    render_ompi,
    render_ompi_env,
    render_romio,
    romio_pairs,
)
from pario.settings.dialects.spellings import hints_of, layout_of, mca_of
from pario.settings.model import Issue, Settings

__all__ = ["COMMENTS", "DIALECTS", "cray_patterns", "hints_of", "layout_of", "mca_of", "parse", "render",
           "render_ceph", "render_lfs", "romio_pairs", "sniff", "untranslated"]

DIALECTS: dict[str, tuple[Callable, Callable, str]] = {
    "info": (render_info, parse_info, "MPI_Info as the engine's JSON `hints` object"),
    "romio": (render_romio, parse_romio, "a ROMIO_HINTS file (MPICH, Intel MPI, Open MPI romio321)"),
    "ompi": (render_ompi, parse_ompi, "Open MPI --mca flags (OMPIO reads these, not ROMIO hints)"),
    "ompi-env": (render_ompi_env, parse_ompi_env, "Open MPI OMPI_MCA_ environment"),
    "cray": (render_cray, parse_cray, "HPE Cray MPICH_MPIIO_HINTS"),
    "lfs": (render_lfs, parse_lfs, "an lfs setstripe command (layout at creation)"),
    "ceph": (render_ceph, parse_ceph, "a CephFS setfattr ceph.dir.layout command (layout at creation)"),
    "adios2": (render_adios2, parse_adios2, "ADIOS2 XML with the BP5 parameters"),
    "hdf5": (render_hdf5, parse_hdf5, "HDF5 property-list calls"),
    "pnetcdf": (render_pnetcdf, parse_pnetcdf, "PNETCDF_HINTS environment"),
}


def render(settings: Settings, dialect: str, **opts) -> str:
    if dialect not in DIALECTS:
        raise ParioError(f"unknown dialect '{dialect}'{did_you_mean(dialect, DIALECTS)}; "
                         f"choose one of {', '.join(DIALECTS)}")
    return DIALECTS[dialect][0](settings, **opts)


# How a note is written inside each dialect's text; the dialects without comments (a JSON object,
# a line of --mca flags pasted into a command) get their note beside the text instead.
COMMENTS: dict[str, tuple[str, str]] = {"romio": ("# ", ""), "ompi-env": ("# ", ""), "cray": ("# ", ""),
                                        "lfs": ("# ", ""), "ceph": ("# ", ""), "pnetcdf": ("# ", ""),
                                        "adios2": ("<!-- ", " -->"),
                                        "hdf5": ("/* ", " */")}


def untranslated(settings: Settings, dialect: str, **opts) -> list[str]:
    """The `--set` keys of settings that `dialect` cannot say: the ones whose removal leaves its
    rendering unchanged (a setting spelled another way there, such as cb_nodes as OMPIO's
    io_ompio_num_aggregators, counts as said)."""
    from pario.settings.model import build
    pairs = settings.pairs()
    full = render(settings, dialect, **opts)
    out = []
    for i, (key, _) in enumerate(pairs):
        without, _issues = build(pairs[:i] + pairs[i + 1:])
        if render(without, dialect, **opts) == full:
            out.append(key)
    return sorted(out)


def parse(text: str, dialect: str) -> tuple[Settings, list[Issue]]:
    if dialect not in DIALECTS:
        raise ParioError(f"unknown dialect '{dialect}'; choose one of {', '.join(DIALECTS)}")
    return DIALECTS[dialect][1](text)


def sniff(text: str) -> str:
    """The dialect a file is written in, from its content."""
    body = text.strip()
    if body.startswith("{"):
        return "info"
    if body.startswith("<"):
        return "adios2"
    if "MPICH_MPIIO_HINTS" in body:
        return "cray"
    if "PNETCDF_HINTS" in body:
        return "pnetcdf"
    if "OMPI_MCA_" in body:
        return "ompi-env"
    if body.startswith("lfs "):
        return "lfs"
    if body.startswith(("setfattr ", "ceph.file.layout", "ceph.dir.layout", "# file:")):
        return "ceph"
    if "--mca" in body.split() or "-mca" in body.split():
        return "ompi"
    if "H5Pset_" in body:
        return "hdf5"
    return "romio"
