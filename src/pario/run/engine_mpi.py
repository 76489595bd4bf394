"""The engine's MPI against the launcher's, before the first launch. An engine built against Open
MPI under MPICH's mpiexec (or the reverse) runs as N singletons that each believe they are rank 0
of 1; run/bench.py's `_world_mismatch` finds that only after one launch. `pario-engine
--mpi-library` says which MPI the engine is built against without launching it, so a mismatch of
two flavours pario knows is refused before anything is launched, written or stored.

Only Open MPI against MPICH is refused: Intel MPI and Cray MPICH are MPICH-based and run under
each other's launchers, srun starts any MPI through its --mpi plugin, and an engine that cannot
say (an MPI older than 3.0, an older pario-engine) is not judged here. The after-the-fact checks
(`_world_mismatch`, the engine's srun check) stay the safety net for all of those."""
from __future__ import annotations

import os
import subprocess

from pario.model.errors import ParioError
from pario.platform.mpi import MPI, flavour_of

# The fix for a mismatch, here and in run/bench.py's after-the-fact check.
FIX = ("use that MPI's mpirun, or an engine built for the launcher's MPI (PARIO_ENGINE; for MPICH: "
       "scripts/build-mpich-engine.sh)")
# The flavours whose launchers start only their own MPI's ranks (each other's run as singletons).
_KNOWN = ("openmpi", "mpich")

# (engine path, mtime in ns) -> its library line, or None when it could not say: one exec per
# engine per process (a tuner's trials launch the same engine many times).
_cache: dict[tuple[str, int], str | None] = {}


def library(engine: str) -> str | None:
    """The first line of MPI_Get_library_version of `engine` ("Open MPI v4.1.4, package: ...",
    "MPICH Version: 4.0.2"), or None when it does not say (exec failed, older engine, no answer)."""
    try:
        key = (os.path.realpath(engine), os.stat(engine).st_mtime_ns)
    except OSError:
        return None   # not there: the launch's own checks say so
    if key not in _cache:
        _cache[key] = _ask(engine)
    return _cache[key]


def _ask(engine: str) -> str | None:
    try:
        out = subprocess.run([engine, "--mpi-library"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:   # an engine without the option prints its usage and exits 2
        return None
    line = next((ln for ln in out.stdout.splitlines() if ln.strip()), "")
    return " ".join(line.split()) or None   # "MPICH Version:\t4.0.2": whitespace collapsed


def short(text: str) -> str:
    """The library's name and version, without the package details after the first comma."""
    return text.split(",")[0].strip()


def check(engine: str, mpi: MPI, launcher: str) -> None:
    """Refuse a launch of `engine` by `mpi`'s mpirun when the two are different MPIs pario knows."""
    if launcher != "mpirun" or mpi.flavour not in _KNOWN:
        return
    text = library(engine)
    built = flavour_of(text) if text else "unknown"
    if built not in _KNOWN or built == mpi.flavour:
        return
    raise ParioError(f"the engine {engine} is built against {short(text or '')}, but the launcher {mpi.path} is "
                     f"{mpi.version}: its ranks would run as separate MPI jobs of 1 rank; {FIX}")
