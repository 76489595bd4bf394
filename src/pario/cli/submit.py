"""`--submit` and `--script-only` of pario bench (and tune): the same command as a Slurm batch job.

The job runs this pario, with the same arguments, from the directory it was submitted from; inside
its allocation pario launches through srun and stores its run itself (its environment names the
job). Here: write the script, sbatch it, record it (store.slurm_jobs), show its state and the lines
it writes while it waits and runs, then show the run it stored, or say how it ended in Slurm's
terms. A user who stops following (Ctrl-C, logging out) loses nothing: `pario results jobs` picks
the run up later."""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from pario.cli.args import row
from pario.model.errors import ParioError
from pario.model.jobs import JobState, ended_sentence

if TYPE_CHECKING:
    from pario.report.terminal import jobs as job_report
    from pario.store import Store

OUR_FLAGS = ("--submit", "--script-only", "--sbatch-args")


def add_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("Slurm batch job (from a login node)")
    g.add_argument("--submit", action="store_true",
                   help="run as a batch job: write the script, sbatch it, show its state, store and show the result")
    g.add_argument("--sbatch-args", metavar="ARGS", type=row("sbatch_args", "str", "sbatch options"),
                   help="sbatch options for the job, e.g. \"-p debug -t 30 -A proj\" (#SBATCH lines)")
    g.add_argument("--script-only", action="store_true",
                   help="print the batch script (for sites that need edits) and submit nothing")


def _ours(word: str) -> str | None:
    """The flag of ours a command-line word is (argparse takes unambiguous prefixes, --sub...)."""
    name = word.split("=", 1)[0]
    if len(name) < 4 or not name.startswith("--"):
        return None
    found = [f for f in OUR_FLAGS if f.startswith(name)]
    return found[0] if len(found) == 1 else None


def job_argv(argv: list[str]) -> list[str]:
    """The command line without --submit, --script-only and --sbatch-args (and its value)."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
            continue
        flag = _ours(word)
        if flag is None:
            out.append(word)
        elif flag == "--sbatch-args" and "=" not in word:
            skip = True
    return out


def exports_of(environ) -> dict[str, str]:
    """What the job needs of this environment: the PARIO_ variables (engine, MPI, preload...) and,
    when this pario is not the interpreter's own (a source tree on PYTHONPATH), where it is."""
    out = {k: v for k, v in environ.items() if k.startswith("PARIO_") and k != "PARIO_DB"}
    import pario
    package = os.path.dirname(os.path.dirname(os.path.abspath(pario.__file__)))
    if not os.path.abspath(pario.__file__).startswith(os.path.abspath(sys.prefix) + os.sep):
        out["PYTHONPATH"] = package
    return out


def _tasks(ranks: int | None, user: list[list[str]]) -> int | None:
    from pario.run import batch

    if ranks is not None and batch.asks_for_tasks(user):
        raise ParioError("give the rank count once: -n N, or --ntasks in --sbatch-args, not both")
    if ranks is None and not batch.asks_for_tasks(user) and not any(
            d[0] in ("-N", "--nodes", "--ntasks-per-node") or d[0].startswith(("--nodes=", "--ntasks-per-node="))
            for d in user):
        raise ParioError("--submit: say how many ranks the job runs: -n N (the job asks Slurm for N tasks), or "
                         "--sbatch-args \"--ntasks=N\" (or nodes and --ntasks-per-node)")
    if ranks is not None and ranks < 1:
        raise ParioError(f"-n {ranks}: ranks must be at least 1")
    return ranks


def _nodes(args: argparse.Namespace, ranks: int | None, user: list[list[str]]) -> int | None:
    """--nodes N as the job's allocation; given once (not also -N in --sbatch-args)."""
    nodes = getattr(args, "nodes", None)
    if nodes and any(d[0] in ("-N", "--nodes") or d[0].startswith("--nodes=") for d in user):
        raise ParioError("give the node count once: --nodes N, or -N in --sbatch-args, not both")
    if nodes and ranks is None:
        raise ParioError(f"--nodes {nodes} with --submit: give the ranks too, -n N (N per node x {nodes})")
    if nodes and ranks is not None and nodes > ranks:
        raise ParioError(f"--nodes {nodes} with -n {ranks}: every node runs at least one rank")
    return nodes


def run(kind: str, args: argparse.Namespace, ranks: int | None) -> int:
    """`pario KIND ... --submit | --script-only`; `ranks`: -n as given (None: not given)."""
    from pario.report import json as json_report
    from pario.report.terminal import jobs as job_report
    from pario.run import batch, jobs
    from pario.store import Store

    if args.submit and args.script_only:
        raise ParioError("--submit or --script-only, not both (--script-only prints the script, --submit submits it)")
    user = batch.directives(args.sbatch_args)
    ntasks = _tasks(ranks, user)
    nodes = _nodes(args, ranks, user)
    workdir = os.getcwd()
    store = Store(args.db)  # a bad --db must fail here, not in the job
    command = [sys.executable, "-m", "pario", *job_argv(sys.argv[1:]), "--db", store.path]
    note = f"pario {kind}, as a batch job: pario {shlex.join(job_argv(sys.argv[1:]))}"
    exports = exports_of(os.environ)
    if args.script_only:
        out = os.path.join(workdir, f"pario-{kind}-%j")
        text = batch.script(command, name=f"pario-{kind}", ntasks=ntasks, user=user, output=out + ".out",
                            error=out + ".err", workdir=workdir, note=note, exports=exports, nodes=nodes)
        if getattr(args, "json", False):
            json_report.emit({"schema": "pario.job-script/1", "kind": kind, "script": text})
        else:
            print(text, end="")
        return 0
    batch.check_client()
    jobdir = os.path.join(workdir, "pario-jobs")
    made_dir = not os.path.isdir(jobdir)
    os.makedirs(jobdir, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    path = os.path.join(jobdir, f"{kind}-{stamp}.sh")
    out = os.path.join(jobdir, f"{kind}-{stamp}-%j")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(batch.script(command, name=f"pario-{kind}", ntasks=ntasks, user=user, output=out + ".out",
                              error=out + ".err", workdir=workdir, note=note, exports=exports, nodes=nodes))
    job_id, cluster = batch.submit_written(path, workdir, [path] + ([jobdir] if made_dir else []))
    err_file = jobs.error_file_of(out + ".err", job_id)
    row = store.add_job(kind=kind, job_id=job_id, cluster=cluster, command=shlex.join(command), script=path,
                        output=err_file)
    view = job_report.JobProgress(plain=args.json)
    view.submitted(job_id, path, err_file)
    return follow(store, row, job_id, cluster, err_file, view, as_json=args.json)


class _Stop(Exception):
    def __init__(self, signum: int):
        self.signum = signum


def _raise(signum, frame):
    raise _Stop(signum)


def follow(store: Store, row: int, job_id: str, cluster: str, err_file: str | None, view: job_report.JobProgress,
           as_json: bool = False) -> int:
    """Follow the job to its end, then show what it stored; the exit code: 0 when it completed
    and every run it stored did, 1 otherwise; 128+N when following was stopped by signal N."""
    from pario.run import jobs

    old = {s: signal.signal(s, _raise) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        job = jobs.watch(job_id, view, error_file=err_file)
    except (KeyboardInterrupt, _Stop) as exc:
        signum = exc.signum if isinstance(exc, _Stop) else signal.SIGINT
        print(f"pario: stopped following Slurm job {job_id}; it goes on: `pario results jobs` shows it and picks up "
              f"its run when it ends (`scancel {job_id}` stops it)", file=sys.stderr)
        return 128 + signum
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if job.extra.get("hopeless"):
        jobs.cancel(job_id)
        store.update_job(row, state="CANCELLED", reason=job.reason)
        raise ParioError(f"Slurm job {job_id} cannot start as asked: it waits for {job.reason} (more tasks, nodes, "
                         "memory or time than the partition gives, or an account it may not use); check -n and "
                         "--sbatch-args. pario cancelled it", exit_code=2)  # what was asked cannot be had
    return collect(store, row, job, cluster, err_file, as_json)


def collect(store: Store, row: int, job: JobState, cluster: str, err_file: str | None, as_json: bool) -> int:
    """The job ended: record how, find the runs it stored, show them and say what went wrong."""
    from rich.console import Console

    from pario.analysis.summary import summarize
    from pario.report import json as json_report
    from pario.report.terminal import runs as run_tables

    run_ids = store.runs_of_job(job.job_id, cluster)
    store.update_job(row, state=job.state, reason=job.reason, exit_code=job.exit_code,
                     run_id=run_ids[-1] if run_ids else None)
    runs = [store.get_run(r) for r in run_ids]
    # one line: how the job ended in Slurm's terms, then what became of its runs
    parts = [ended_sentence(job) or ""]
    for run in runs:
        if run["status"] != "complete":
            err = (run["result"].get("error") or {}).get("message") or "see pario results show"
            kept = "what it measured is kept as" if run["status"] == "partial" else "stored as"
            parts.append(f"{kept} {run['status']} run {run['id']} ({err})")
    if not runs:
        parts.append("no run was stored"
                     + (f"; the job's messages are in {err_file}" if err_file else ""))
    problems = ["; ".join(p for p in parts if p)] if any(parts[1:]) or parts[0] else []
    if as_json:
        json_report.emit({"schema": "pario.job/1", "job": job.to_dict(), "db": store.path,
                          "runs": [{**r, "summary": summarize(r["result"], r["env"])} for r in runs],
                          "problems": problems}, default=str)
    else:
        console = Console()
        for run in runs:
            run_tables.print_run(console, run)
            console.print(f"Stored as run {run['id']} ({run['status']}) by Slurm job {job.job_id}: "
                          f"pario results show {run['id']}", highlight=False)
    for line in problems:
        print(f"pario: error: {line}", file=sys.stderr)
    return 0 if job.state == "COMPLETED" and runs and all(r["status"] == "complete" for r in runs) else 1


def refresh(store: Store, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ask Slurm about the recorded jobs that had not ended, and link the runs of those that have."""
    from pario.run import jobs

    out = []
    for rec in rows:
        if rec["state"] not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "UNKNOWN") or rec["run_id"] is None:
            try:
                job = jobs.query(rec["job_id"]) if rec["state"] != "UNKNOWN" else None
            except ParioError:
                job = None
            fields: dict[str, Any] = {}
            if job is not None and (job.state, job.reason, job.exit_code) != (rec["state"], rec["reason"],
                                                                              rec["exit_code"]):
                fields.update(state=job.state, reason=job.reason, exit_code=job.exit_code)
            found = store.runs_of_job(rec["job_id"], rec["cluster"])
            if found and found[-1] != rec["run_id"]:
                fields["run_id"] = found[-1]
            if fields:
                store.update_job(rec["id"], **fields)
                rec = {**rec, **fields}
        out.append(rec)
    return out
