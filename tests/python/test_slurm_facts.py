"""Slurm facts read without a cluster: the allocation from Slurm's variables (as measured in a real
salloc and batch job, tests/slurm/README.md), srun's plugin list and the plugin each MPI needs,
and srun's failure messages in one line. The real cluster's side: test_slurm_*.py."""
import pytest

from pario.model.errors import ParioError
from pario.platform import slurm
from pario.run import launchers
from pario.run.launchers import srun

SALLOC = {"SLURM_CLUSTER_NAME": "pario", "SLURM_JOB_ID": "16", "SLURM_JOB_CPUS_PER_NODE": "2",
          "SLURM_JOB_NODELIST": "vm", "SLURM_JOB_NUM_NODES": "1", "SLURM_JOB_PARTITION": "debug",
          "SLURM_NNODES": "1", "SLURM_NPROCS": "2", "SLURM_NTASKS": "2", "SLURM_TASKS_PER_NODE": "2"}
MPI_LIST = """MPI plugin types are...
\tpmix
\tnone
\tcray_shasta
\tpmi2
specific pmix plugin versions available: pmix_v4
"""


def test_allocation_of_salloc_and_nothing_outside():
    alloc = slurm.allocation(SALLOC)
    assert alloc is not None
    assert (alloc.job, alloc.tasks, alloc.nodes, alloc.partition, alloc.tasks_per_node, alloc.step) == \
        ("16", 2, 1, "debug", [2], None)
    assert slurm.default_ranks(alloc) == 2
    assert slurm.allocation({"SLURM_PROCID": "0"}) is None  # a variable alone is not an allocation
    nodes_only = slurm.allocation({"SLURM_JOB_ID": "3", "SLURM_TASKS_PER_NODE": "4(x2),2"})
    assert slurm.default_ranks(nodes_only) == 10


@pytest.mark.parametrize("text,counts", [("2", [2]), ("2(x3),1", [2, 2, 2, 1]), ("", []), ("2(x", [])])
def test_expand_counts(text, counts):
    assert slurm.expand_counts(text) == counts


def test_plugin_list_and_choice():
    names = slurm.parse_mpi_list(MPI_LIST)
    assert names == ["pmix", "none", "cray_shasta", "pmi2", "pmix_v4"]
    ompi_info = "mca:pmix:ext3x:version:mca:2.1.0\nmca:pmix:flux:version:mca:2.1.0\n"
    assert slurm.choose_plugin("openmpi", "", names, ompi_info, environ={}).plugin == "pmix"
    assert slurm.choose_plugin("mpich", "", names, environ={}).plugin == "pmi2"
    # Open MPI built with Slurm's PMI-2 (s2) on a Slurm without PMIx
    with_s2 = ompi_info + "mca:pmix:s2:version:mca:2.1.0\n"
    assert slurm.choose_plugin("openmpi", "", ["none", "pmi2"], with_s2, environ={}).plugin == "pmi2"
    with pytest.raises(ParioError, match="starts only under --mpi=pmix"):
        slurm.choose_plugin("openmpi", "", ["none", "pmi2"], ompi_info, environ={})
    kept = slurm.choose_plugin("mpich", "", names, environ={"SLURM_MPI_TYPE": "pmix"})
    assert kept.plugin is None and kept.source == "SLURM_MPI_TYPE"


OMPI_PMI2 = ['The application appears to have been direct launched using "srun",\n',
             "but OMPI was not built with SLURM's PMI support and therefore cannot\n",
             "srun: error: vm: tasks 0-1: Exited with exit code 1\n"]


@pytest.mark.parametrize("lines,expect", [
    (OMPI_PMI2, "Open MPI cannot start under srun --mpi=pmi2"),
    (["srun: error: Couldn't find the specified plugin name for mpi/bogus looking at all files\n",
      "srun: error: Invalid MPI type 'bogus', --mpi=list for acceptable types\n"], "no MPI plugin 'bogus'"),
    (["srun: error: Unable to create step for job 23: More processors requested than permitted\n"],
     "Slurm refused the job step in job 23: More processors requested than permitted (-n 3, but the "
     "allocation has 2 tasks"),
    (["slurmstepd-vm: error: *** STEP 5.0 ON vm CANCELLED AT 2026-11-24T13:10:19 DUE TO TIME LIMIT ***\n"],
     "Slurm stopped 5.0 at the job's time limit"),
    (["srun: error: vm: task 1: Exited with exit code 3\n"], None),
])
def test_srun_failure_in_one_line(lines, expect):
    got = srun.failure(lines, "pmi2", 3, environ=SALLOC)
    assert (got is None) if expect is None else (expect in got and "\n" not in got)


def test_default_launcher_follows_the_allocation(monkeypatch):
    monkeypatch.setattr(launchers, "which", lambda name: "/usr/bin/" + name)
    assert launchers.resolve(None, SALLOC) == "srun"
    assert launchers.resolve(None, {}) == "mpirun"
    assert launchers.resolve("mpirun", SALLOC) == "mpirun"


def test_started_as_many_tasks_is_refused(monkeypatch):
    monkeypatch.setattr(launchers, "which", lambda name: "/usr/bin/" + name)
    for key, value in {**SALLOC, "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "2"}.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ParioError, match="one of 2 tasks of srun step 16.0"):
        launchers.check_launcher("srun")
