"""After MPI_Abort (issue 30) the log names ranks, not PIDs: the ranks that left no log and the ranks
stopped by a signal ('partial: processes [10343, 10344, 10347] were stopped by a signal'); a program
that never called MPI_Init under -n 4 is said to be 4 independent copies."""
from __future__ import annotations

from pario.analysis.profile.logread import job_from_parts
from pario.analysis.profile.views import summary
from pario.cli.profile import ranks_said
from pario.report.terminal.profile import job_lines
from profile_support import ROOT  # noqa: F401  (puts src/ on sys.path)


def _proc(rank: int, partial: bool) -> dict:
    names = {"counters": ["POSIX_OPENS"], "kinds": ["count"], "ops": ["sum"], "fcounters": ["POSIX_F_WRITE_TIME"],
             "fkinds": ["seconds"], "fops": ["sum"]}
    return {"format": "pario-profile", "version": 1, "kind": "process",
            "process": {"host": "n1", "pid": 10343 + rank, "rank": rank, "nprocs": 4, "exe": "/a.out",
                        "cmdline": ["./a.out"], "start": 1.0, "end": 2.0, "reason": "signal" if partial else "exit",
                        "partial": partial},
            "settings": {}, "limits": {"dropped_records": 0, "trace_kept": 0, "trace_dropped": 0, "trace_capacity": 0},
            "modules": {m: {**names, "records": []} for m in ("posix", "stdio", "mpiio")}}


def test_an_abort_names_the_lost_and_the_stopped_by_rank():
    doc = job_from_parts([_proc(0, True), _proc(1, True), _proc(3, True)], {"command": ["./a.out"], "ranks": 4})
    assert ranks_said(doc, 4) == ["rank 2 of 4 left no log (ended before MPI_Finalize and exit: MPI_Abort, a "
                                  "signal or a crash)"]
    lines = job_lines(summary(doc)["job"])
    assert "partial: ranks 0, 1, 3 were stopped by a signal; their counters end there" in lines, lines
    # pario profile show says what pario profile warned of when it ran
    assert any(line.startswith("rank 2 of 4 left no log") for line in lines), lines
    assert not any("10343" in line for line in lines)


def test_a_process_that_is_no_rank_is_named_by_pid():
    doc = job_from_parts([_proc(-1, True)], {"command": ["./a.out"]})
    assert "partial: process PID 10342 was stopped by a signal; its counters end there" in \
        job_lines(summary(doc)["job"])


def test_a_program_without_mpi_init_under_four_ranks_is_four_copies():
    doc = job_from_parts([_proc(-1, False) for _ in range(4)], {"command": ["./a.out"], "ranks": 4})
    assert ranks_said(doc, 4)[0].startswith("the program never called MPI_Init: 4 independent copies ran")
    assert job_lines(summary(doc)["job"])[1].startswith("the program never called MPI_Init: 4 independent copies")


def test_the_rank_that_called_mpi_abort_is_named_apart_from_those_stopped():
    aborter = _proc(0, True)
    aborter["process"].update(reason="mpi_abort", mpi_abort_code=5)
    doc = job_from_parts([aborter, _proc(1, True), _proc(2, True)], {"command": ["./a.out"], "ranks": 4})
    assert ranks_said(doc, 4) == ["rank 0 called MPI_Abort with error code 5: the MPI ended the job there",
                                  "rank 3 of 4 left no log (ended before MPI_Finalize and exit: MPI_Abort, a "
                                  "signal or a crash)"]
    lines = job_lines(summary(doc)["job"])
    assert "partial: ranks 1, 2 were stopped by a signal; their counters end there" in lines, lines
    assert "rank 0 called MPI_Abort with error code 5: the MPI ended the job there" in lines, lines
    alone = job_from_parts([aborter], {"command": ["./a.out"], "ranks": 1})
    assert not any(line.startswith("partial:") for line in job_lines(summary(alone)["job"]))
