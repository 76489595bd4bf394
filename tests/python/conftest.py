"""Session-wide: the tests see none of the user's pario or MPI-IO settings.

A user who followed the README has PARIO_SCRATCH (and maybe PARIO_DB, OMPI_MCA_io, a ROMIO_HINTS
file) exported; those would move the tests' files, change the MPI-IO layer under them or inject
faults. They are removed from this process's environment before any test module is imported,
so that every subprocess a test starts inherits the clean environment. The variables that tell
the tests where the built artefacts are (PARIO_ENGINE, PARIO_ENGINE_MPICH, PARIO_PRELOAD, set by
`make test`) are kept; a test that needs a setting sets it itself."""
import os

# Where the build is: set by `make test` or by hand, never a user preference.
KEEP = ("PARIO_ENGINE", "PARIO_ENGINE_MPICH", "PARIO_PRELOAD")
# Read by pario, the engine, the profiler or the MPI-IO layers under them.
# HYDRA_: MPICH's launcher (hosts, ssh agent), as `scripts/local-cluster.sh env` exports them.
PREFIXES = ("PARIO_", "OMPI_MCA_", "ROMIO_", "MPICH_MPIIO_", "PNETCDF_HINTS", "HYDRA_")


def is_user_setting(name: str) -> bool:
    return name.startswith(PREFIXES) and name not in KEEP


for _name in [n for n in os.environ if is_user_setting(n)]:
    del os.environ[_name]

# the session's cluster of several nodes (scripts/local-cluster.sh), started by the first test that asks
from cluster_support import nodes  # noqa: E402, F401
