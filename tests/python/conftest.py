"""Session-wide: the tests see none of the user's pario or MPI-IO settings.

A user who followed the README has PARIO_SCRATCH (and maybe PARIO_DB, OMPI_MCA_io, a ROMIO_HINTS
file) exported; those would move the tests' files, change the MPI-IO layer under them or inject
faults. They are removed from this process's environment before any test module is imported,
so that every subprocess a test starts inherits the clean environment. The variables that tell
the tests where the built artefacts are (PARIO_ENGINE, PARIO_ENGINE_MPICH, PARIO_PRELOAD(_MPICH), set by
`make test`) are kept; a test that needs a setting sets it itself."""
import os

import pytest

# Where the build is: set by `make test` or by hand, never a user preference.
KEEP = ("PARIO_ENGINE", "PARIO_ENGINE_MPICH", "PARIO_PRELOAD", "PARIO_PRELOAD_MPICH",
        "PARIO_REQUIRE_PFS", "PARIO_REQUIRE_CLUSTER")  # .ci/run: the CephFS and several-node tests
                                                        # must run there, not skip
# Read by pario, the engine, the profiler or the MPI-IO layers under them.
# HYDRA_: MPICH's launcher (hosts, ssh agent), as `scripts/local-cluster.sh env` exports them.
PREFIXES = ("PARIO_", "OMPI_MCA_", "ROMIO_", "MPICH_MPIIO_", "PNETCDF_HINTS", "HYDRA_")


def is_user_setting(name: str) -> bool:
    return name.startswith(PREFIXES) and name not in KEEP


for _name in [n for n in os.environ if is_user_setting(n)]:
    del os.environ[_name]


@pytest.fixture(scope="session")
def pfs(tmp_path_factory):
    """A real CephFS for the whole session (tests/python/pfs_support.py): 4 object servers, each
    capped (pfs_support.CAP) where the blkio controller allows it; skipped where it cannot run."""
    import pfs_support
    fs = pfs_support.local_pfs(tmp_path_factory.mktemp("pfs"), cap=None if pfs_support.can_cap() else pfs_support.CAP)
    yield fs
    pfs_support.stop(fs)


@pytest.fixture(scope="session")
def nodes(tmp_path_factory):
    """A cluster of 3 real nodes for the whole session (tests/python/cluster_support.py); a test
    that needs 2 uses the first two. Skipped where it cannot run (not root, no namespaces)."""
    import cluster_support
    cluster = cluster_support.start(cluster_support.NODES, share=[tmp_path_factory.getbasetemp()])
    yield cluster
    cluster_support.stop(cluster)
