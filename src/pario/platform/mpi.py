"""The MPI of this host: which launcher, which implementation (its flavour decides the launcher's
flags and how the settings in effect can be read), and whether we run inside a Slurm job."""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from pario.model.errors import ParioError

# Open MPI's io components (`--mca io NAME`): the MPI-IO implementations one Open MPI may carry.
IO_COMPONENTS = ("ompio", "romio321", "romio341")
INSTALL_MPI = ("install an MPI: Debian/Ubuntu `apt-get install openmpi-bin libopenmpi-dev`, "
               "RHEL `dnf install openmpi-devel`, or `module load` your site's MPI; "
               "or point --mpirun / $PARIO_MPIRUN at its mpirun")


@dataclass
class MPI:
    path: str
    flavour: str                 # openmpi | mpich | intel | unknown
    version: str                 # first line of `mpirun --version`


def find_mpirun(explicit: str | None = None) -> str:
    chosen = explicit or os.environ.get("PARIO_MPIRUN")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise ParioError(f"MPI launcher {chosen} not found or not executable; {INSTALL_MPI}", exit_code=3)
        return found
    for name in ("mpirun", "mpiexec"):
        found = shutil.which(name)
        if found:
            return found
    raise ParioError(f"no MPI found (no mpirun or mpiexec on PATH); {INSTALL_MPI}", exit_code=3)


def flavour_of(text: str) -> str:
    low = text.lower()
    if "open mpi" in low or "open rte" in low or "openrte" in low:
        return "openmpi"
    if "intel(r) mpi" in low or "intel mpi" in low:
        return "intel"
    if "hydra" in low or "mpich" in low:
        return "mpich"
    return "unknown"


def detect(mpirun: str) -> MPI:
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=20)
        text = (out.stdout or "") + (out.stderr or "")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"{mpirun} --version failed ({exc}); {INSTALL_MPI}", exit_code=3) from None
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return MPI(mpirun, flavour_of(text), first)


def in_slurm() -> str | None:
    return os.environ.get("SLURM_JOB_ID")
