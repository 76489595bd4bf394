"""A Slurm batch job as pario follows it: what Slurm said of it last (scontrol's JobState, Reason,
ExitCode), and the sentence that says how it ended. Records only; asking Slurm is run/jobs.py."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

# Slurm's job states (squeue(1) "JOB STATE CODES"), grouped by what they mean for a waiting user.
WAITING = ("PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SUSPENDED",
           "STOPPED", "RESIZING", "SIGNALING", "SUBMITTED")
RUNNING = ("RUNNING", "COMPLETING", "STAGE_OUT")
ENDED = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
         "PREEMPTED", "SPECIAL_EXIT", "REVOKED")
# Pending reasons under which a job will not start as it was asked (more CPUs, nodes, memory or time
# than the partition has, an account or QOS it may not use): waiting longer changes nothing.
HOPELESS = ("PartitionConfig", "BadConstraints", "PartitionNodeLimit", "PartitionTimeLimit", "InvalidAccount",
            "InvalidQOS", "QOSMaxWallDurationPerJobLimit", "AssocMaxWallDurationPerJobLimit",
            "ReqNodeNotAvail, UnavailableNodes", "DependencyNeverSatisfied", "MaxCpuPerAccount")


@dataclass
class JobState:
    job_id: str
    state: str                       # scontrol's JobState (UNKNOWN: Slurm no longer knows the job)
    reason: str = ""                 # Reason=... ("None" dropped)
    exit_code: str = ""              # ExitCode=code:signal of the batch script
    run_time: str = ""               # RunTime=HH:MM:SS
    time_limit: str = ""             # TimeLimit=HH:MM:SS
    nodes: str = ""                  # NodeList
    source: str = "scontrol"         # scontrol | squeue | sacct | none
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        return self.state in ENDED or self.state == "UNKNOWN"

    @property
    def started(self) -> bool:
        return self.state in RUNNING or (self.ended and self.run_time not in ("", "00:00:00", "0:00"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def exit_status(exit_code: str) -> tuple[int | None, int | None]:
    """'7:0' -> (7, 0): the batch script's exit code and the signal that ended it."""
    code, _, sig = (exit_code or "").partition(":")
    try:
        return int(code), int(sig or 0)
    except ValueError:
        return None, None


def ended_sentence(job: JobState) -> str | None:
    """How a job that did not complete ended, in Slurm's terms; None for COMPLETED."""
    jid = f"Slurm job {job.job_id}"
    ran = f" after {job.run_time}" if job.run_time and job.run_time != "00:00:00" else ""
    code, sig = exit_status(job.exit_code)
    why = f" ({job.reason})" if job.reason else ""
    if job.state == "COMPLETED":
        return None
    if job.state == "TIMEOUT":
        return f"{jid} reached its time limit ({job.time_limit or '?'}) and was stopped{ran}"
    if job.state == "CANCELLED":
        if not job.started:
            return f"{jid} was cancelled before it started{why}"
        return f"{jid} was cancelled (scancel or an administrator){ran}"
    if job.state == "FAILED":
        how = (f"its batch script exited with code {code}" if code else
               f"its batch script was killed by signal {sig}" if sig else "it failed")
        if not job.started:
            return f"{jid} failed to start{why}: {how}"
        return f"{jid} failed{ran}: {how}"
    if job.state == "UNKNOWN":
        return (f"Slurm no longer knows job {job.job_id} (it ended longer ago than the controller keeps jobs, "
                "MinJobAge, and there is no accounting to ask)")
    names = {"NODE_FAIL": "a node it ran on failed", "OUT_OF_MEMORY": "it ran out of memory",
             "BOOT_FAIL": "its node failed to boot", "DEADLINE": "it missed its deadline",
             "PREEMPTED": "it was preempted by another job", "REVOKED": "it was revoked (federation)"}
    return f"{jid} ended {job.state}{why}: {names.get(job.state, 'see scontrol show job')}{ran}"


class JobObserver(Protocol):
    def state(self, job: JobState) -> None:
        """Slurm said something new of the job (its state or reason changed)."""

    def output(self, line: str) -> None:
        """A line the job wrote to its error file (the job's pario: progress, notes)."""
