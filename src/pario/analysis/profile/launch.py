"""What a job log says about the ranks pario launched (pario profile warns of it when the run
ends, pario profile show and the report say it again): its own module, so that `pario profile`
says it without loading the views (libviews, dataclasses: a third of its start; benchmarks/startup)."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from typing import Any


def launch_lines(job: dict[str, Any], ranks: int | None) -> list[str]:
    """What the log says about the ranks launched: a program that never called MPI_Init started on
    N ranks ran as N independent copies (each doing the whole work, each writing the same files);
    ranks that left no log (MPI_Abort, a signal) are named by rank; so is a rank that called
    MPI_Abort (its log is written then: reason mpi_abort, with the error code)."""
    said = aborted_lines(job)
    if not isinstance(ranks, int) or ranks < 2:
        return said
    logged = {(p.get("process") or {}).get("rank") for p in job.get("processes") or []} - {None, -1}
    if not logged:
        return [f"the program never called MPI_Init: {ranks} independent copies ran, each doing the whole work "
                "(launch it without -n, or make it an MPI program that divides the work)"]
    lost = sorted(set(range(ranks)) - logged)
    if lost:
        return said + [f"rank{'s' if len(lost) > 1 else ''} {', '.join(map(str, lost))} of {ranks} left no log "
                       "(ended before MPI_Finalize and exit: MPI_Abort, a signal or a crash)"]
    return said


def aborted(process: dict[str, Any]) -> bool:
    """The process's log was written in MPI_Abort (csrc/intercept/lifecycle_mpi.c)."""
    return (process.get("process") or {}).get("reason") == "mpi_abort"


def stopped(info: dict[str, Any]) -> bool:
    """A process (its log's "process" part) stopped by a signal: partial, and not one that called
    MPI_Abort (the only other partial end), which aborted_lines names."""
    return bool(info.get("partial")) and info.get("reason") != "mpi_abort"


def aborted_lines(job: dict[str, Any]) -> list[str]:
    """Who called MPI_Abort, by rank (by PID outside MPI), with the error code: the MPI then ends
    every rank, so the others' logs end where they were stopped."""
    out = []
    for p in job.get("processes") or []:
        if aborted(p):
            info = p.get("process") or {}
            rank = info.get("rank")
            who = f"rank {rank}" if isinstance(rank, int) and rank >= 0 else f"PID {info.get('pid')}"
            code = info.get("mpi_abort_code")
            out.append(f"{who} called MPI_Abort" + (f" with error code {code}" if isinstance(code, int) else "")
                       + ": the MPI ended the job there")
    return out
