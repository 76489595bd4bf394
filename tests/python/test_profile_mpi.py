"""MPI programs under the profiler: a shared file written collectively by all ranks and by a
subset, reduced at MPI_Finalize into one record per file with the per-rank spread."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from profile_support import PROGRAMS, compile_c, files, parts, preload_lib

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(not (shutil.which("mpicc") and shutil.which("mpirun")),
                                reason="no MPI (mpicc/mpirun) on PATH")]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def _mpirun(n, lib, logs, argv, *exports):
    cmd = ["mpirun", "-n", str(n), "--oversubscribe", "-x", f"LD_PRELOAD={lib}", "-x", f"PARIO_PROFILE_DIR={logs}"]
    for export in exports:
        cmd += ["-x", export]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return subprocess.run(cmd + [str(a) for a in argv], capture_output=True, timeout=180)


@pytest.mark.parametrize("mode,ranks,users", [("all", 4, 4), ("subset", 4, 3)])
def test_shared_file_reduced(lib, tmp_path, mode, ranks, users):
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    logs, target = tmp_path / "log", tmp_path / "shared.dat"
    proc = _mpirun(ranks, lib, logs, [exe, target, mode])
    assert proc.returncode == 0, proc.stderr.decode()
    docs = parts(logs)
    assert sorted(d["process"]["rank"] for d in docs) == list(range(ranks))
    # exactly one record for the file in the whole job: reduced on one owner rank, rank -1
    holders = [r for d in docs for r in d["modules"]["mpiio"]["records"] if r["path"] == str(target)]
    assert len(holders) == 1 and holders[0]["rank"] == -1
    c = files(logs)[("mpiio", str(target))]["counters"]
    block = 65536
    expect = {"MPIIO_NPROCS": users, "MPIIO_OPENS": users, "MPIIO_CLOSES": users, "MPIIO_COLL_WRITES": 4 * users,
              "MPIIO_INDEP_READS": 4 * users, "MPIIO_SYNCS": 2 * users, "MPIIO_BYTES_WRITTEN": 4 * users * block,
              "MPIIO_BYTES_READ": 4 * users * block, "MPIIO_SIZE_WRITE_10K_100K": 4 * users,
              "MPIIO_FASTEST_RANK_BYTES": 8 * block, "MPIIO_SLOWEST_RANK_BYTES": 8 * block}
    assert {k: c[k] for k in expect} == expect
    assert c["MPIIO_FASTEST_RANK"] in range(users) and c["MPIIO_SLOWEST_RANK"] in range(users)
    assert c["MPIIO_F_FASTEST_RANK_TIME"] <= c["MPIIO_F_SLOWEST_RANK_TIME"]
    assert c["MPIIO_F_VARIANCE_RANK_BYTES"] == 0 and c["MPIIO_F_VARIANCE_RANK_TIME"] >= 0
    # the hint passed at open is what MPI_File_get_info gives back (Open MPI: an echo of it)
    assert files(logs)[("mpiio", str(target))]["hints"].get("cb_nodes") == "1"
    # POSIX I/O underneath MPI-IO is recorded too, and the bytes add up
    posix = files(logs)[("posix", str(target))]["counters"]
    assert posix["POSIX_BYTES_WRITTEN"] == 4 * users * block and posix["POSIX_BYTES_READ"] == 4 * users * block
    assert all(d["process"]["mpi_finalized"] for d in docs)


def _runtime_paths(docs):
    return [r["path"] for d in docs for m in d["modules"].values() for r in m["records"]
            if r["path"].startswith(("/dev/shm/vader", "/tmp/ompi.")) or ".locktest." in r["path"]]


def test_runtime_files_folded(lib, tmp_path):
    """The MPI runtime's own files (shared memory, session directories, OMPIO's lock test files)
    become one "<MPI runtime files>" record, reduced across ranks like a shared file: they no
    longer cost the log a record per rank and file."""
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    logs, target = tmp_path / "log", tmp_path / "shared.dat"
    proc = _mpirun(4, lib, logs, [exe, target, "all"])
    assert proc.returncode == 0, proc.stderr.decode()
    docs = parts(logs)
    assert _runtime_paths(docs) == []
    folded = [r for d in docs for r in d["modules"]["posix"]["records"] if r["path"] == "<MPI runtime files>"]
    assert len(folded) == 1 and folded[0]["rank"] == -1
    assert all(d["settings"]["runtime_files"] is False and "/dev/shm/vader_segment.*" in d["settings"]["runtime"]
               for d in docs)
    # the program's own file is still recorded per file
    assert ("posix", str(target)) in files(logs)


def test_runtime_files_recorded_when_asked(lib, tmp_path):
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    logs, target = tmp_path / "log", tmp_path / "shared.dat"
    cmd = ["mpirun", "-n", "2", "--oversubscribe", "-x", f"LD_PRELOAD={lib}", "-x", f"PARIO_PROFILE_DIR={logs}",
           "-x", "PARIO_PROFILE_RUNTIME_FILES=1"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    proc = subprocess.run(cmd + [str(exe), str(target)], capture_output=True, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode()
    docs = parts(logs)
    assert _runtime_paths(docs), "with PARIO_PROFILE_RUNTIME_FILES=1 the runtime's files are recorded one by one"
    assert not [r for d in docs for m in d["modules"].values() for r in m["records"]
                if r["path"] == "<MPI runtime files>"]


def test_trace_names_a_reduced_shared_file_for_every_rank(lib, tmp_path):
    """The shared file's record lives on one owner rank after the reduction; the other ranks'
    trace events name it all the same, and --file finds them (they showed a bare id before)."""
    from pario.analysis.profile.logread import job_from_parts
    from pario.analysis.profile.trace import events

    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    logs, target = tmp_path / "log", tmp_path / "shared.dat"
    proc = _mpirun(2, lib, logs, [exe, target, "all"], "PARIO_PROFILE_TRACE=1")
    assert proc.returncode == 0, proc.stderr.decode()
    job = job_from_parts(parts(logs), {})
    found, _ = events(job, file="shared.dat")
    assert {e.rank for e in found if e.module == "mpiio"} == {0, 1}
    assert all(e.path == str(target) for e in found)


@pytest.mark.parametrize("aborter", [0, 2])
def test_a_rank_that_calls_mpi_abort_writes_its_log_first_and_is_named(lib, tmp_path, aborter):
    """MPI_Abort: the calling rank's log is written before the MPI ends the job (reason mpi_abort,
    the error code, its counters up to the call), and pario names it by rank, apart from the ranks
    the MPI then stopped by a signal."""
    from pario.analysis.profile.launch import aborted_lines
    from pario.analysis.profile.logread import job_from_parts

    exe = compile_c(tmp_path, "mpi_abort", "-O2", cc="mpicc")
    logs, target = tmp_path / "log", tmp_path / "out"
    proc = _mpirun(3, lib, logs, [exe, target, str(aborter)])
    assert proc.returncode == 5, proc.stderr.decode()
    docs = parts(logs)
    mine = [d for d in docs if d["process"]["rank"] == aborter]
    assert len(mine) == 1, [d["process"] for d in docs]
    info = mine[0]["process"]
    assert (info["reason"], info["mpi_abort_code"], info["partial"]) == ("mpi_abort", 5, True)
    assert files(logs)[("stdio", f"{target}.{aborter}")]["counters"]["STDIO_BYTES_WRITTEN"] == 4
    assert all(d["process"]["reason"] in ("signal", "exit") for d in docs if d is not mine[0])
    doc = job_from_parts(docs, {"command": [str(exe)], "ranks": 3})
    assert aborted_lines(doc) == [f"rank {aborter} called MPI_Abort with error code 5: the MPI ended the job there"]


@pytest.mark.skipif(not shutil.which("mpif90"), reason="no mpif90 (Open MPI's and MPICH's -dev packages bring it)")
@pytest.mark.parametrize("aborter", [-1, 1])
def test_a_fortran_program_is_an_mpi_program(lib, tmp_path, aborter):
    """Open MPI's Fortran bindings call PMPI_Init, PMPI_Finalize, PMPI_Abort and PMPI_File_*: the
    preload wraps those names too, so a Fortran MPI program has ranks (it was taken for copies that
    never called MPI_Init), its MPI-IO calls are recorded, each once (they were missing: only the
    POSIX calls beneath them were), it is reduced at MPI_Finalize, and the rank that calls
    MPI_Abort is named."""
    from pario.analysis.profile.launch import aborted_lines
    from pario.analysis.profile.logread import job_from_parts

    exe = tmp_path / "mpi_fortran"
    subprocess.run(["mpif90", "-O2", "-o", str(exe), str(PROGRAMS / "mpi_fortran.f90")], check=True)
    logs, target = tmp_path / "log", tmp_path / "out"
    proc = _mpirun(2, lib, logs, [exe, target, str(aborter)])
    assert proc.returncode == (7 if aborter >= 0 else 0), proc.stderr.decode()
    docs = parts(logs)
    ranks = sorted(d["process"]["rank"] for d in docs)
    if aborter < 0:
        assert ranks == [0, 1] and all(d["process"]["mpi_finalized"] for d in docs), [d["process"] for d in docs]
        c = files(logs)[("mpiio", f"{target}.shared")]["counters"]
        want = {"MPIIO_NPROCS": 2, "MPIIO_OPENS": 2, "MPIIO_CLOSES": 2, "MPIIO_COLL_WRITES": 2,
                "MPIIO_BYTES_WRITTEN": 8192}
        assert {k: c[k] for k in want} == want, c
        return
    assert aborter in ranks, [d["process"] for d in docs]
    doc = job_from_parts(docs, {"command": [str(exe)], "ranks": 2})
    assert aborted_lines(doc) == ["rank 1 called MPI_Abort with error code 7: the MPI ended the job there"]
