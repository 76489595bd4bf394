"""The MPI of this host: which launcher, which implementation (its flavour decides the launcher's
flags and how the settings in effect can be read), and whether we run inside a Slurm job."""
from __future__ import annotations

import os
import re

from pario.model.errors import ParioError

# Open MPI's io components (`--mca io NAME`): the MPI-IO implementations one Open MPI may carry.
IO_COMPONENTS = ("ompio", "romio321", "romio341")
INSTALL_MPI = ("install an MPI: Debian/Ubuntu `apt-get install openmpi-bin libopenmpi-dev`, "
               "RHEL `dnf install openmpi-devel`, or `module load` your site's MPI; "
               "or point --mpirun / $PARIO_MPIRUN at its mpirun")


class MPI:
    """The MPI behind a launcher. A plain class, as a dataclass would be (fields, ==, repr): the
    commands that wrap an MPI program (`pario profile -n 4`) start it without importing dataclasses,
    which cost them more than the rest of their launch (benchmarks/startup)."""

    def __init__(self, path: str, flavour: str, version: str) -> None:
        self.path = path
        self.flavour = flavour   # openmpi | mpich | intel | unknown
        self.version = version   # `mpirun --version`'s first line, with the version a header names (version_of)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MPI):
            return NotImplemented
        return (self.path, self.flavour, self.version) == (other.path, other.flavour, other.version)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        return f"MPI(path={self.path!r}, flavour={self.flavour!r}, version={self.version!r})"


def find_mpirun(explicit: str | None = None) -> str:
    """The launcher: --mpirun, else $PARIO_MPIRUN, else mpirun or mpiexec on PATH. A launcher the user
    named that is not there is bad input (exit 2); no MPI at all is a missing tool (exit 3)."""
    from pario.platform.which import which

    chosen = explicit or os.environ.get("PARIO_MPIRUN")
    if chosen:
        found = which(chosen)
        if not found:
            how = "--mpirun" if explicit else "PARIO_MPIRUN"
            raise ParioError(f"MPI launcher {chosen} ({how}) not found or not executable; give the path of "
                             "your MPI's mpirun or mpiexec")
        return found
    for name in ("mpirun", "mpiexec"):
        found = which(name)
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


# Words an MPI launcher's --version names (Open MPI, MPICH/Hydra, Intel MPI, MVAPICH, Cray PALS,
# HPE MPT, Slurm): a program whose --version names none of them is not a launcher.
_LAUNCHER_WORDS = re.compile(r"mpi|hydra|open rte|openrte|prte|pals|slurm|mpt", re.IGNORECASE)


def detect(mpirun: str) -> MPI:
    """The MPI behind a launcher, from `LAUNCHER --version`. A program that is not an MPI launcher
    (/bin/false, /bin/echo, a script) is refused here, before any run depends on it."""
    import subprocess

    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL)
        text = (out.stdout or "") + (out.stderr or "")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"{mpirun} --version failed ({exc}); give an MPI launcher (mpirun or mpiexec)") from None
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if out.returncode != 0 or not first:
        said = f" and printed {first[:60]!r}" if first else " and printed nothing"
        raise ParioError(f"{mpirun} is not an MPI launcher: `{os.path.basename(mpirun)} --version` exited with "
                         f"{out.returncode}{said}; give your MPI's mpirun or mpiexec")
    flavour = flavour_of(text)
    body = text.replace("--version", "")  # /bin/echo repeats its argument
    if flavour == "unknown" and not _LAUNCHER_WORDS.search(body):
        raise ParioError(f"{mpirun} is not an MPI launcher: its --version ({first[:60]!r}) names no MPI; "
                         "give your MPI's mpirun or mpiexec")
    return MPI(mpirun, flavour, version_of(text, flavour))


def version_of(text: str, flavour: str) -> str:
    """The launcher's version in one line. Most print it on the first line; MPICH's Hydra (and
    Cray's and Intel's Hydra builds) print a header, "HYDRA build details:", and the version below
    it, so the first line alone said nothing in run records and messages."""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not first.endswith(":"):
        return first
    found = re.search(r"^\s*Version:\s*(\S+)", text, re.MULTILINE)
    if not found:
        return first.rstrip(":")
    name = "MPICH (Hydra)" if flavour == "mpich" else first.rstrip(":")
    return f"{name} {found.group(1)}"


def in_slurm() -> str | None:
    return os.environ.get("SLURM_JOB_ID")


def io_components(mpi: MPI) -> list[str] | None:
    """Open MPI's MPI-IO components (ompi_info), or None when they cannot be listed (another MPI,
    no ompi_info beside the launcher or on PATH)."""
    import shutil
    import subprocess

    if mpi.flavour != "openmpi":
        return None
    beside = os.path.join(os.path.dirname(mpi.path), "ompi_info")
    tool = beside if os.access(beside, os.X_OK) else shutil.which("ompi_info")
    if not tool:
        return None
    try:
        text = subprocess.run([tool, "--parsable"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    comps = sorted({line.split(":")[2] for line in text.splitlines()
                    if line.startswith("mca:io:") and ":version:" in line})
    return comps or None


def check_io(mpi: MPI, io: str | None) -> None:
    """--io names a component this Open MPI has (a name it lacks made the MPI fail with
    MPI_ERR_INTERN at the first open, long after the launch)."""
    if not io or mpi.flavour != "openmpi":
        return
    comps = io_components(mpi)
    name = io[1:] if io.startswith("^") else io
    if comps is not None and name not in comps:
        raise ParioError(f"--io {io}: this Open MPI ({mpi.version}) has the io components {', '.join(comps)}; "
                         "choose one of them")
