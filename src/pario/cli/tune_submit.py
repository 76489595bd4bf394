"""`pario tune --submit`: the session's trials as Slurm job arrays (tune/jobs.py), and the array
task's side (`--run-trials`, internal: what each task runs). `--script-only` instead prints one
batch script that runs the whole session inside one allocation (cli/submit.py)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from pario.cli import submit
from pario.cli.args import row
from pario.model.errors import ParioError
from pario.plan.inputs import INTEGER_MAX

if TYPE_CHECKING:
    from pario.model.tuning import TuningSession
    from pario.store import Store
    from pario.tune.jobs import SlurmTrials, SubmitPlan
    from pario.tune.space import Space
    from pario.tune.trials import EngineTrials


def add_flags(p: argparse.ArgumentParser) -> None:
    submit.add_flags(p)
    g = p.add_argument_group("trials as Slurm jobs (--submit)")
    g.add_argument("--max-jobs", type=row("max_jobs", "int", "array tasks at once", lo=1, hi=INTEGER_MAX),
                   default=1, metavar="N",
                   help="array tasks that run at once (1: every trial alone on the file system, as the noise "
                        "test assumes; more finish sooner but trials then compete for the file system)")
    g.add_argument("--batch", type=row("batch", "int", "configurations per job array", lo=1, hi=INTEGER_MAX),
                   default=4, metavar="K",
                   help="TPE's proposals submitted together, as one job array (4); the guesses go one file "
                        "layout to an array, a race round to an array")
    # inside an array task only
    p.add_argument("--run-trials", metavar="FILE", type=row("run_trials", "path"), help=argparse.SUPPRESS)


def plan_of(args: argparse.Namespace, store: Store, ranks: int | None) -> SubmitPlan:
    """--submit: checked before anything is measured or stored."""
    from pario.run import batch
    from pario.tune.jobs import SubmitPlan

    if args.script_only:
        raise ParioError("--submit or --script-only, not both (--script-only prints one script for the whole "
                         "session; --submit submits its trials as jobs)")
    if args.ranks is None:
        raise ParioError("--submit: say how many ranks each trial runs: -n N (each trial's job asks Slurm for N "
                         "tasks)")
    if args.max_jobs < 1 or args.batch < 1:
        raise ParioError(f"--max-jobs {args.max_jobs} --batch {args.batch}: both must be at least 1")
    directives = batch.directives(args.sbatch_args)
    if batch.asks_for_tasks(directives) or any(d[0].startswith("--array") or d[0] == "-a" for d in directives):
        raise ParioError("--sbatch-args: leave out the task count and --array; pario sets them (-n, --max-jobs)")
    submit._nodes(args, args.ranks, directives)
    batch.check_client()
    return SubmitPlan(workdir=os.getcwd(), db=store.path, directives=directives, max_jobs=args.max_jobs,
                      batch=args.batch, no_probe=args.no_probe, timeout=args.timeout,
                      exports=submit.exports_of(os.environ), nodes=args.nodes)


def evaluator(session: TuningSession, store: Store, plan: SubmitPlan, as_json: bool) -> SlurmTrials:
    from pario.report.terminal.jobs import JobProgress
    from pario.tune.jobs import SlurmTrials

    def saved() -> None:
        store.update_session(session.id or 0, doc=session.to_dict(), status=session.status)
    return SlurmTrials(session=session, store=store, plan=plan, observer=JobProgress(plain=as_json), saved=saved)


def adopt_ceiling(session: TuningSession, store: Store) -> None:
    """A submitted session's device ceiling: the O_DIRECT probe its trials' jobs ran inside their
    allocation (on the nodes the trials used), read from the trials' stored runs, so that its figures are
    judged against it like a session run here (it said 'no device ceiling ... run without --no-probe'
    when --no-probe was never given)."""
    if (session.context.get("ceiling") or {}).get("write_mib"):
        return
    why = ""
    for run_id in [r for t in session.trials for r in t.runs]:
        try:
            probe = (store.get_run(run_id).get("env") or {}).get("ceiling") or {}
        except ParioError:   # a run removed since: the next one
            continue
        if probe.get("write_mib") or probe.get("read_mib"):
            session.context["ceiling"] = {**probe, "source": f"probed inside the job's allocation (run {run_id})"}
            return
        why = why or str(probe.get("source") or "")
    if why:
        session.context["ceiling"] = {"source": f"none in the job's allocation: {why}"}


def run_trials(args: argparse.Namespace, store: Store) -> int:
    """The array task: SLURM_ARRAY_TASK_ID picks the launch of the batch file."""
    from pario.platform.ceiling import device_ceiling, streams_per_host
    from pario.platform.engine import engine_path
    from pario.platform.mpi import detect, find_mpirun
    from pario.platform.scratch import Scratch
    from pario.run import launchers
    from pario.tune.jobs import run_task
    from pario.tune.trials import EngineTrials

    index = os.environ.get("SLURM_ARRAY_TASK_ID")
    if index is None or not index.isdigit():
        raise ParioError("--run-trials is what pario tune --submit's job arrays run; it needs SLURM_ARRAY_TASK_ID")
    engine = engine_path()
    mpi = detect(find_mpirun(args.mpirun))
    launcher = launchers.resolve(None)
    launchers.check_launcher(launcher, mpi)

    def make(session: TuningSession, space: Space, doc: dict[str, Any]) -> EngineTrials:
        directory = (session.context or {}).get("dir")
        scratch = Scratch(directory)
        scratch.prepare()
        case = dict(session.case)
        return EngineTrials(space=space, base=case, ranks=session.ranks, engine=engine, mpi=mpi, directory=directory,
                            launcher=launcher, store=store, facts={"session": session.id},
                            ceiling=device_ceiling(engine, scratch.dir, skip=bool(doc.get("no_probe")),
                                                   streams=streams_per_host(session.ranks)),   # as bench probes
                            timeout=doc.get("timeout"),  # None: the watchdog measures its limit
                            warmup=int(doc.get("warmup", 1)), nodes=(session.context or {}).get("nodes"))
    try:
        return run_task(args.run_trials, int(index), store, make)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        print(f"pario: error: --run-trials {args.run_trials} task {index}: {exc}", file=sys.stderr)
        return 2
