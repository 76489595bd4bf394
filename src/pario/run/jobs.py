"""Following a batch job: what Slurm says of it (scontrol while the controller keeps it, then
sacct where there is accounting), the lines it writes to its error file, and scancel.

Without accounting (`sacct`: "accounting storage is disabled") a job is known only until MinJobAge
(300 s by default) after its end; pario polls scontrol rather than `sbatch --wait`, whose growing
interval returned 10 s after a 5 s job here."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from typing import Callable

from pario.model.errors import ParioError
from pario.model.jobs import HOPELESS, JobObserver, JobState

_KEY = re.compile(r"(?:^|\s)([A-Za-z][\w/:.]*)=")


def parse_scontrol(line: str) -> dict[str, str]:
    """One `scontrol -o show job` line: Key=Value fields (a value may hold spaces, as
    'Reason=ReqNodeNotAvail, UnavailableNodes:vm' does)."""
    keys = list(_KEY.finditer(line))
    out = {}
    for i, m in enumerate(keys):
        end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
        out[m.group(1)] = line[m.end():end].strip()
    return out


def _run(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    tool = shutil.which(argv[0])
    if not tool:
        raise ParioError(f"{argv[0]} not found on PATH: Slurm's client commands are needed to follow the job",
                         exit_code=3)
    try:
        return subprocess.run([tool, *argv[1:]], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"{argv[0]} did not answer ({exc})", exit_code=3) from None


def _state_of(fields: dict[str, str], job_id: str, source: str) -> JobState:
    reason = fields.get("Reason", "")
    return JobState(job_id=job_id, state=(fields.get("JobState") or "UNKNOWN").split()[0].rstrip("+"),
                    reason="" if reason in ("None", "(null)") else reason, exit_code=fields.get("ExitCode", ""),
                    run_time=fields.get("RunTime", ""), time_limit=fields.get("TimeLimit", ""),
                    nodes="" if fields.get("NodeList") in (None, "(null)") else fields["NodeList"], source=source)


def _sacct(job_id: str) -> JobState | None:
    """The job from accounting (None where there is none or it does not know the job)."""
    if not shutil.which("sacct"):
        return None
    fields = "JobID,State,Reason,ExitCode,Elapsed,Timelimit,NodeList"
    out = _run(["sacct", "-n", "-P", "-X", "-j", job_id, "-o", fields])
    for line in out.stdout.splitlines() if out.returncode == 0 else []:
        parts = line.split("|")
        if len(parts) >= 7 and parts[0] == job_id:
            return _state_of({"JobState": parts[1], "Reason": parts[2], "ExitCode": parts[3], "RunTime": parts[4],
                              "TimeLimit": parts[5], "NodeList": parts[6]}, job_id, "sacct")
    return None


def query(job_id: str) -> JobState:
    """What Slurm says of the job now. Raises ParioError when Slurm cannot be asked at all."""
    out = _run(["scontrol", "-o", "show", "job", job_id])
    if out.returncode == 0 and out.stdout.strip():
        return _state_of(parse_scontrol(out.stdout.splitlines()[0]), job_id, "scontrol")
    text = (out.stderr or out.stdout).strip()
    if "Invalid job id" in text:
        return _sacct(job_id) or JobState(job_id=job_id, state="UNKNOWN", source="none")
    raise ParioError(f"scontrol show job {job_id} failed: {text.splitlines()[-1] if text else 'no message'}",
                     exit_code=3)


def cancel(job_id: str) -> None:
    out = _run(["scancel", job_id])
    if out.returncode != 0:
        raise ParioError(f"scancel {job_id} failed: {(out.stderr or out.stdout).strip() or 'no message'}")


class _Tail:
    """New whole lines of a file that another host may still be writing."""

    def __init__(self, path: str | None):
        self.path, self.pos, self.rest = path, 0, ""

    def lines(self, final: bool = False) -> list[str]:
        if not self.path:
            return []
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                fh.seek(self.pos)
                text = fh.read()
                self.pos = fh.tell()
        except OSError:
            return []
        text = self.rest + text
        parts = text.split("\n")
        self.rest = "" if final else parts.pop()
        return [p + "\n" for p in parts if p or not final]


def watch(job_id: str, observer: JobObserver, *, error_file: str | None = None, hopeless_after: float = 10.0,
          patience: float = 120.0, clock: Callable[[], float] = time.monotonic,
          sleep: Callable[[float], None] = time.sleep) -> JobState:
    """Poll the job until it ends (or cannot start: a pending reason in HOPELESS for
    `hopeless_after` seconds; the state is then returned unended). Polls every 0.5 s at first,
    slower (up to 5 s) while nothing changes. Slurm not answering for `patience` seconds ends
    the watch with that error."""
    if not shutil.which("scontrol"):   # not worth the patience below
        raise ParioError("scontrol not found on PATH: Slurm's client commands are needed to follow the job",
                         exit_code=3)
    tail = _Tail(error_file)
    last: tuple[str, str] | None = None
    interval, failing_since, hopeless_since = 0.5, None, None
    while True:
        try:
            job = query(job_id)
            failing_since = None
        except ParioError:
            failing_since = failing_since if failing_since is not None else clock()
            if clock() - failing_since > patience:
                raise
            sleep(min(interval, 5.0))
            continue
        for line in tail.lines(final=job.ended):   # what the job wrote before Slurm said this
            observer.output(line)
        if (job.state, job.reason) != last:
            last = (job.state, job.reason)
            observer.state(job)
            interval = 0.5
        if job.ended:
            return job
        if job.state == "PENDING" and job.reason in HOPELESS:
            hopeless_since = hopeless_since if hopeless_since is not None else clock()
            if clock() - hopeless_since >= hopeless_after:
                job.extra["hopeless"] = True
                return job
        else:
            hopeless_since = None
        sleep(interval)
        interval = min(interval * 1.25, 5.0)


def error_file_of(output_template: str, job_id: str) -> str:
    """The job's file from an --error template with %j (what this module writes into scripts)."""
    return os.path.abspath(output_template.replace("%j", job_id))
