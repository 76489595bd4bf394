"""What the ranks find in their environment: the user's PARIO_/ROMIO_/Cray knobs forwarded to
every rank, and the variables that make an MPI print the settings it took at open (for the
untimed settings launch only)."""
from __future__ import annotations

import os
from typing import Any

from pario.platform.mpi import MPI

FORWARD_PREFIXES = ("PARIO_", "ROMIO_", "MPICH_MPIIO_")  # what the ranks need (faults, ROMIO/Cray knobs)
HINT_LAYERS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")  # the layers that open through MPI-IO with hints
DISPLAY_VARS = ("ROMIO_PRINT_HINTS", "MPICH_MPIIO_HINTS_DISPLAY", "OMPI_MCA_io_ompio_verbose_info_parsing")


def forwarded_env(environ=None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k.startswith(FORWARD_PREFIXES)}


def settings_env(mpi: MPI, io: str | None, cases: list[dict[str, Any]]) -> dict[str, str]:
    """Environment of the settings launch (`pario-engine --settings`), which makes the MPI print
    the settings it took at open; {} when it would learn nothing. Only Open MPI needs it: its
    MPI_File_get_info echoes the keys given, while the MPICH family's returns the effective ones
    (recorded by the timed run itself). The timed run never prints: a display at every open cost
    about 20% of short MPI-IO read phases (benchmarks/RESULTS.md)."""
    if mpi.flavour != "openmpi":
        return {}
    layered = [c for c in cases if c.get("workload") != "metadata" and c.get("backend") in HINT_LAYERS]
    io = io or os.environ.get("OMPI_MCA_io")
    if io and io.startswith(("romio", "^ompio")):
        return {"ROMIO_PRINT_HINTS": "1"} if layered else {}
    # ompio reports only the keys it was given, one line each
    return {"OMPI_MCA_io_ompio_verbose_info_parsing": "1"} if any(c.get("hints") for c in layered) else {}


def timed_env(environ=None) -> dict[str, str]:
    """What the timed run forwards: the user's PARIO_/ROMIO_/Cray knobs, without the displays."""
    return {k: v for k, v in forwarded_env(environ).items() if k not in DISPLAY_VARS}
