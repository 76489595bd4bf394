"""Settings a job gets from its environment rather than from pario's flags: a ROMIO hints file
(ROMIO_HINTS), Open MPI MCA parameters of the MPI-IO stack (OMPI_MCA_*) and Cray's
MPICH_MPIIO_HINTS. They are requested as much as `--hint` is, so a run records them as
requested, with where each came from, and checks them like the others.

Who reads what (anchors-tuning.md, machine-notes 1c): ROMIO reads the ROMIO_HINTS file at open
(MPICH, Intel MPI, Open MPI romio321/341; OMPIO does not: nothing printed, nothing applied);
Open MPI reads OMPI_MCA_ variables for every component (the io_ompio_/fcoll/fs/fbtl ones act
under OMPIO only); only HPE Cray MPICH reads MPICH_MPIIO_HINTS."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pario.settings import knobs
from pario.settings.dialects.mpi import cray_patterns, romio_pairs
from pario.settings.hints import mpi_value

ROMIO_HINTS, CRAY_HINTS, MCA_PREFIX = "ROMIO_HINTS", "MPICH_MPIIO_HINTS", "OMPI_MCA_"
# MCA parameters that select or display rather than set: reported elsewhere (io component) or pario's own
_NOT_SETTINGS = {"io", "io_ompio_verbose_info_parsing"}


def _entry(key: str, value: str, source: str, reader: str, problem: str | None = None) -> dict[str, Any]:
    return {"key": key, "value": value, "from": source, "reader": reader, "problem": problem}


def collect(environ: Mapping[str, str]) -> list[dict[str, Any]]:
    """{key, value, from, reader (romio | ompio | cray), problem (why the MPI would misread it, or
    None)} of every MPI-IO setting in the environment."""
    out: list[dict[str, Any]] = []
    path = environ.get(ROMIO_HINTS)
    if path:
        source = f"{ROMIO_HINTS}={path}"
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            out.append(_entry("", "", source, "romio", f"cannot read it ({exc.strerror}); ROMIO ignores it too"))
            text = ""
        for _, key, value in romio_pairs(text):
            if key:
                _, problem = mpi_value(key, value)
                out.append(_entry(key, value, source, "romio", problem))
    for name in sorted(environ):
        param = name[len(MCA_PREFIX):]
        if name.startswith(MCA_PREFIX) and param in knobs.MCA and param not in _NOT_SETTINGS:
            out.append(_entry(f"mca.{param}", environ[name], name, "ompio"))
    hints = environ.get(CRAY_HINTS)
    if hints:
        for pattern, pairs in cray_patterns(hints).items():
            source = CRAY_HINTS if pattern == "*" else f"{CRAY_HINTS} ({pattern})"
            for key, value in pairs.items():
                out.append(_entry(key, value, source, "cray", mpi_value(key, value)[1]))
    return out


def not_read(entry: dict[str, Any], impl: str | None) -> str | None:
    """Why the MPI-IO implementation `impl` never sees an environment setting, or None."""
    if entry["reader"] == "romio" and impl == "ompio":
        return f"OMPIO does not read {ROMIO_HINTS} (use --io romio321, or the MCA parameter)"
    if entry["reader"] == "cray" and impl != "cray":
        return f"only HPE Cray MPICH reads {CRAY_HINTS}"
    if entry["reader"] == "ompio" and impl not in (None, "ompio"):
        return "an MCA parameter of OMPIO: ROMIO does not read it"
    return None
