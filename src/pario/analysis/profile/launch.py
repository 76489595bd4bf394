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
    ranks that left no log (MPI_Abort, a signal) are named by rank."""
    if not isinstance(ranks, int) or ranks < 2:
        return []
    logged = {(p.get("process") or {}).get("rank") for p in job.get("processes") or []} - {None, -1}
    if not logged:
        return [f"the program never called MPI_Init: {ranks} independent copies ran, each doing the whole work "
                "(launch it without -n, or make it an MPI program that divides the work)"]
    lost = sorted(set(range(ranks)) - logged)
    if lost:
        return [f"rank{'s' if len(lost) > 1 else ''} {', '.join(map(str, lost))} of {ranks} left no log (ended "
                "before MPI_Finalize and exit: MPI_Abort, a signal or a crash)"]
    return []
