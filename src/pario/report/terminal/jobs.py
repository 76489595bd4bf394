"""Batch jobs in the terminal: one line per change of a followed job's state (on stderr, with the
lines the job writes, marked with its id), and the table of `pario results jobs`."""
from __future__ import annotations

import sys

from rich.console import Console

from pario.model.jobs import JobState
from pario.report.terminal.fit import Col, print_fit


class JobProgress:
    """The terminal's JobObserver (model.jobs)."""

    def __init__(self, plain: bool = False):
        self.plain = plain
        self.started_at: str | None = None

    def submitted(self, job_id: str, script: str, err_file: str) -> None:
        print(f"pario: submitted Slurm job {job_id} ({script}); its messages go to {err_file}", file=sys.stderr,
              flush=True)

    def state(self, job: JobState) -> None:
        text = f"pario: Slurm job {job.job_id}: {job.state}"
        if job.reason:
            text += f" ({job.reason})"
        if job.state == "RUNNING" and job.nodes:
            text += f" on {job.nodes}"
        if job.time_limit and job.state in ("PENDING", "RUNNING"):
            text += f", time limit {job.time_limit}"
        if job.ended and job.run_time:
            text += f" after {job.run_time}" + (f", exit code {job.exit_code}" if job.exit_code else "")
        print(text, file=sys.stderr, flush=True)

    def output(self, line: str) -> None:
        sys.stderr.write(line if self.plain else f"  {line}")
        sys.stderr.flush()


def print_jobs(console: Console, rows: list[dict]) -> None:
    if not rows:
        console.print("no batch jobs submitted yet; `pario bench ... --submit` submits one")
        return
    cols = [Col("id", "num", "right"), Col("created (UTC)", "num"), Col("kind", "id"), Col("job", "id"),
            Col("state", "text"), Col("run", "id"), Col("command", "id")]
    cells = []
    for rec in rows:
        state = rec["state"] + (f" ({rec['reason']})" if rec.get("reason") else "")
        if rec.get("exit_code") and rec["exit_code"] != "0:0":
            state += f" exit {rec['exit_code']}"
        # the whole command, wrapped at its spaces (fit.py): it was cut at 40 characters with "..."
        command = rec["command"].split(" -m pario ", 1)[-1]
        run = str(rec["run_id"]) if rec.get("run_id") is not None else "-"
        if rec.get("session_id") is not None:
            run += f" (tune {rec['session_id']})"
        cells.append([str(rec["id"]), rec["created"].replace("T", " ")[:16], rec["kind"],
                      (rec["cluster"] + ":" if rec.get("cluster") else "") + rec["job_id"], state, run, command])
    print_fit(console, cols, cells)
    console.print("`pario results show RUN` for a job's run; a job that has not ended is asked about again each "
                  "time this list is shown.")
