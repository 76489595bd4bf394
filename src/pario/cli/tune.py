"""`pario tune`: the best settings for one case in few runs, proven better than the default beyond
the noise. The conductor: argparse -> one case (plan) -> the space on this stack (tune.knobs) ->
the search (tune.search, every trial a stored run) -> the verdict -> report (lines or JSON); the
last three run in cli/tune_search.py, the trials as Slurm jobs in cli/tune_submit.py."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from pario.cli import case_flags, submit, tune_submit
from pario.cli.args import checked, row, typed
from pario.cli.bench import default_ranks
from pario.cli.case_flags import add_case_flags, add_launch_flags
from pario.cli.tune_search import dry_run, run_search
from pario.model.errors import ParioError
from pario.model.units import parse_duration
from pario.plan.inputs import CASE, INT_MAX, RUN
from pario.tune import racing

if TYPE_CHECKING:
    from pario.model.case import Case
    from pario.model.requests import BenchRequest
    from pario.store import Store

EPILOG = """\
One case to tune, given like `pario bench` gives it (IOR flags), or one [[case]] of a job file
(--config FILE --case NAME). The default space is what exists and takes effect for that case on this
stack: the MPI-IO layer (Open MPI's ompio or romio321), collective or independent calls, ROMIO's
collective buffering and aggregators (cb_config_list), OMPIO's fcoll and cb_nodes, cb_buffer_size,
Lustre striping (on Lustre only), the file strategy (shared, fpp, nfiles:2, aggregated) and the
library layers' knobs; `--dry-run` shows it, with the knobs left out and why.

Every trial is a stored run (`pario results`); the guesses run 3 counted repetitions (after a warm-up),
optuna's trials start with one and get more if successive halving keeps them; close ones race (up to
15). The default is a control at the start, every 8 trials and at the end; the winner re-runs by it.
A winner is named only when it beats the default beyond the noise (95% bootstrap interval of the ratio
of medians above 1).

  pario tune -a mpiio -c -t 1m -b 64m -n 4 -w --trials 30
  pario tune -a mpiio -c -t 4k -b 1m -n 4 -r --space mca.io,collective,romio_cb_read
  pario tune --from-log app.log --trials 20   # the case the job's log shows (pario profile or Darshan)
  pario tune --list                      # the stored sessions
  pario tune --resume 3                  # go on with an interrupted session
Exit codes: 0 a session ended (winner or default kept), 1 no trial ran, 2 bad input, 3 engine or MPI
missing, 130/143 interrupted (the finished trials are kept; --resume goes on)."""


def register(subparsers) -> None:
    p = subparsers.add_parser("tune",
                              description="Search the settings that exist on this stack for one case with few "
                                          "runs, and name a winner only when it beats the default beyond the noise.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_case_flags(p)
    t = p.add_argument_group("the session")
    t.add_argument("--trials", type=row("trials", "int", lo=1, hi=INT_MAX),
                   help="budget in trials, not repetitions: the configurations measured, the default's "
                        f"controls and the final confirmation included; a trial runs 1 to {racing.CAP} counted "
                        f"repetitions (1 if pruned, -i (3) when complete, up to {racing.CAP} in a race) (30)")
    t.add_argument("--time", dest="budget_time", metavar="DURATION", type=checked(_duration_text),
                   help="budget: wall time, e.g. 20m, 1h, 900s (alone: no 30-trial cap; with --trials: whichever "
                        "comes first)")
    t.add_argument("--space", type=row("space", "str"),
                   help="knobs to search, comma-separated (default: all of this case on this stack)")
    t.add_argument("--space-file", type=typed(RUN["config"]),
                   help="TOML file with a [space] table: KNOB = [\"value\", ...]")
    t.add_argument("--objective", type=row("objective", "choice", choices=("write", "read")),
                   help="the rate to raise (default: the case's first op)")
    t.add_argument("--sampler-seed", type=row("sampler_seed", "int", lo=0, hi=(1 << 32) - 1), default=0,
                   help="the optuna sampler's seed (0)")
    t.add_argument("--from-log", metavar="LOG", type=row("from_log", "path"),
                   help="tune the case of the file a job spent most I/O time on, from its pario profile or "
                        "Darshan log (its interface, sizes, ranks, sharing, collective or not; bench flags "
                        "given beside it override what the log says)")
    t.add_argument("--resume", type=typed(RUN["reuse"]), metavar="SESSION", help="continue an interrupted session")
    t.add_argument("--list", action="store_true", help="list the stored tuning sessions")
    t.add_argument("--dry-run", action="store_true", help="show the space and the first guesses; run nothing")
    t.add_argument("--system", metavar="FILE", type=row("system", "path", "a system file (pario predict)"),
                   help="a system file (pario predict): the first guesses ordered by its predicted time, those "
                        "predicted >3x slower than the default left out (default: $PARIO_SYSTEM)")
    r = p.add_argument_group("run")
    r.add_argument("-n", "-N", "--ranks", type=typed(RUN["ranks"]),
                   help="MPI ranks (default: the Slurm allocation's tasks, else the cores available)")
    r.add_argument("--nodes", type=typed(RUN["nodes"]), metavar="N",
                   help="every trial's ranks on N nodes, in blocks (srun -N N inside Slurm, else the first N hosts "
                        "of mpirun's hostfile); per-node knobs are searched for N nodes")
    r.add_argument("-o", "--dir", type=typed(RUN["dir"]),
                   help="scratch directory (default $PARIO_SCRATCH, else ./pario-scratch)")
    r.add_argument("--config", type=typed(RUN["config"]),
                   help="job file (TOML); with several cases, pick one with --case")
    r.add_argument("--case", dest="case_name", metavar="NAME", type=typed(CASE["name"]),
                   help="the [[case]] of --config to tune")
    r.add_argument("--io", type=typed(RUN["io"]),
                   help="fix Open MPI's io component (ompio | romio321): the layer is then not searched")
    add_launch_flags(r)
    r.add_argument("--db", type=typed(RUN["db"]),
                   help="results store (default $PARIO_DB, else the user data directory)")
    r.add_argument("--json", action="store_true", help="one JSON document on stdout (progress on stderr)")
    tune_submit.add_flags(p)
    p.set_defaults(run=run, flag_of=case_flags.flags_of(p))   # --resume names the flags it refuses


def _duration_text(text: str) -> str:
    parse_duration(text, "--time")  # checked here; run() converts it
    return text


def run(args: argparse.Namespace) -> int:
    from pario.report import json as json_report
    from pario.report.terminal import tune as show
    from pario.run import launchers, watchdog
    from pario.store import Store

    watchdog.check_timeout(args.timeout)  # nan, inf, <= 0: refused (nan turned the watchdog off)
    if args.list:
        listed = Store(args.db, existing=True)   # read only: never created
        rows = listed.list_sessions()
        if args.json:
            json_report.emit({"schema": "pario.tune-list/1", "db": listed.path, "sessions": rows})
        else:
            show.sessions(rows)
        return 0
    if args.run_trials:
        return tune_submit.run_trials(args, Store(args.db))
    if args.sbatch_args and not (args.submit or args.script_only):
        raise ParioError("--sbatch-args goes with --submit (trials as jobs) or --script-only")
    if args.script_only:
        return submit.run("tune", args, args.ranks)   # the whole session as one batch job
    args.launcher = launchers.resolve(args.launcher)
    if args.trials is not None and args.trials < 4:
        raise ParioError(f"--trials {args.trials}: give at least 4 (the default, a trial, the last control and "
                         "the confirmation)")
    if args.dry_run:
        if args.resume is not None:
            raise ParioError("--dry-run shows a new session's space and first guesses; drop it to --resume")
        return _new_session(args, None)   # nothing created: no store, no scratch directory
    if args.resume is not None:
        case_flags.refuse_on_resume(args)
    store = Store(args.db)   # opened before anything runs: a bad --db must not cost a run
    if args.resume is not None:
        return _resume(args, store, _seconds(args))
    return _new_session(args, store)


def _seconds(args: argparse.Namespace) -> float | None:
    return parse_duration(args.budget_time, "--time") if args.budget_time else None


def _new_session(args: argparse.Namespace, store: Store | None) -> int:
    """A new session; store None: the dry run, which creates nothing (no store, no scratch
    directory, no file) and launches nothing."""
    from pario.cli.tune_log_case import case_from_log
    from pario.model.requests import BenchRequest
    from pario.model.tuning import TuningSession
    from pario.plan import validate
    from pario.platform import stack
    from pario.platform.engine import engine_listing, engine_path
    from pario.platform.host import nearest_existing
    from pario.platform.mpi import detect, find_mpirun
    from pario.platform.scratch import Scratch
    from pario.run import engine_mpi, launchers
    from pario.run.scratch_guard import guarded
    from pario.tune import knobs, prior, verdict
    from pario.tune.probe import session_ceiling
    from pario.tune.search import Budget
    from pario.tune.trials import EngineTrials

    seconds = _seconds(args)
    if args.from_log:
        case_from_log(args)
    request = BenchRequest.from_namespace(args)
    request.time, request.reps = 60.0, None   # --time is tune's budget; -i sets the rungs below
    case, ranks = _one_case(args, request)
    submitting = tune_submit.plan_of(args, store, ranks) if args.submit and store is not None else None
    reps = args.reps if args.reps is not None else 3
    if reps < 2:
        raise ParioError(f"-i {reps}: a complete trial needs at least 2 counted repetitions (3 by default)")
    engine = engine_path()
    mpi = detect(find_mpirun(args.mpirun))
    if submitting is None:
        launchers.check_launcher(args.launcher, mpi)
        from pario.run.launchers import nodes as placement
        placement.check(mpi, args.launcher, ranks, args.nodes)
    launchers.command(mpi, ranks, [], io=args.io, launcher="mpirun" if submitting else args.launcher)  # bad --io
    if submitting is None and store is not None:   # before the session is stored (each trial's launch checks too)
        engine_mpi.check(engine, mpi, args.launcher)
    listing = engine_listing(engine)
    validate.check_backends([case], listing)
    scratch = Scratch(args.dir)
    with guarded(scratch, active=store is not None, tidy=True):  # made and probed before the trials: see
        if store is not None:                                       # run/scratch_guard.py
            scratch.prepare()
        facts = stack.collect(nearest_existing(scratch.dir), engine=engine, mpirun=mpi.path, io=args.io)
        row: dict[str, Any] = next((b for b in (listing or {}).get("backends", []) if b["name"] == case["backend"]), {})
        objective = args.objective or next((op for op in case["ops"] if op in ("write", "read")), None)
        if objective is None or objective not in case["ops"]:
            flag = {"read": "-r", "write": "-w"}.get(objective or "", "-w or -r")   # -w given: 'add -w' misled
            raise ParioError(f"--objective {objective}: the case does not {objective or 'write or read'}; add {flag}")
        ctx = knobs.context(case, ranks, facts, row.get("caps") or [], objective, args.io, nodes=args.nodes)
        only, values = _space_request(args)
        space = knobs.build(ctx, only, values)
        if not space.knobs:   # the default alone: it ran twice and was named the winner, though nothing was compared
            named = set(only or []) | set(values)
            why = "; ".join(f"{d.key}: {d.reason}" for d in space.dropped if not named or d.key.split("=")[0] in named)
            raise ParioError(f"nothing to search: every knob of {'--space' if only or values else 'the space'} is "
                             f"left out for this case on this stack ({why or 'none exists here'})")
        # pario's own keys stay out of the stored case, but the layout its files are created with
        stored = {k: v for k, v in case.items() if not k.startswith("_") or k == "_layout"}
        session = TuningSession(id=None, case=stored,
                                objective=objective, ranks=ranks, space=space.values(), dropped=list(space.dropped),
                                seed=args.sampler_seed, command="pario " + shlex.join(sys.argv[1:]),
                                context={"space": ctx.to_dict(), "only": only, "values": values, "dir": scratch.dir,
                                         "io": args.io, "launcher": args.launcher,
                                         **({"nodes": args.nodes} if args.nodes else {}),
                                         **({"submit": submitting.to_dict()} if submitting else {})})
        # --time alone is the budget: the trial cap is then only a bound (the search ends anyway once every
        # configuration was measured); 30 trials stopped a `--time 20m` session after a few minutes
        budget = Budget(trials=args.trials or (max(30, 2 * len(space.grid()) + 3) if seconds else 30),
                        seconds=seconds, rungs=(1, reps))
        session.budget = budget.to_dict()
        guesses = prior.guesses(space)
        system_file = args.system or os.environ.get("PARIO_SYSTEM")
        if system_file:
            from pario.tune.predicted import order_guesses
            guesses, note = order_guesses(system_file, space, case, guesses)
            session.context["predict"] = note
            print(f"pario: {note}", file=sys.stderr)
        if store is None:
            return dry_run(args, session, space, guesses)
        if submitting is None:   # probed before the session is stored, so that it is stored with it
            ceiling = session_ceiling(session, engine, scratch.dir, args.no_probe)
        else:   # the trials run in their jobs' allocations, which probe their own device
            session.context["ceiling"] = {"source": "none: the trials ran as Slurm jobs, on their own nodes"}
        session.id = store.add_session(command=session.command, doc=session.to_dict(), status="running",
                                       headline=verdict.summary_line(session))
        if submitting is not None:
            return run_search(args, store, session, space, tune_submit.evaluator(session, store, submitting, args.json),
                           budget, guesses, case, batch=submitting.batch)
        evaluator = EngineTrials(space=space, base=case, ranks=ranks, engine=engine, mpi=mpi, directory=args.dir,
                                 launcher=args.launcher, store=store, ceiling=ceiling, facts={"session": session.id},
                                 timeout=args.timeout, nodes=args.nodes)
        return run_search(args, store, session, space, evaluator, budget, guesses, case)


def _one_case(args: argparse.Namespace, request: BenchRequest) -> tuple[Case, int]:
    from pario.plan import validate
    from pario.plan.bench import CASE_DESTS, plan

    ranks = args.ranks if args.ranks is not None else default_ranks()
    if ranks < 1:
        raise ParioError(f"-n {ranks}: ranks must be at least 1")
    if not request.config and not request.given(CASE_DESTS):
        raise ParioError("give the one case to tune: bench flags (e.g. -a mpiio -c -t 1m -b 64m -n 4 -w) "
                         "or --config FILE --case NAME")
    if args.case_name and not request.config:
        raise ParioError(f"--case {args.case_name} picks a [[case]] of a job file; give the file with --config FILE")
    cases, _ = plan(request, ranks, None, 0)
    if args.case_name:
        chosen = [c for c in cases if c["name"] == args.case_name]
        if not chosen:
            raise ParioError(f"--case {args.case_name}: no such case in {args.config}; it has: "
                             + ", ".join(c["name"] for c in cases))
        cases = chosen
    if len(cases) != 1:
        raise ParioError(f"{args.config} has {len(cases)} cases; pick one with --case NAME ("
                         + ", ".join(c["name"] for c in cases) + ")")
    case = cases[0]
    if case.get("workload") == "metadata":
        raise ParioError("pario tune tunes data cases (bandwidth); the metadata workload has no settings to tune")
    validate.check_all([case], ranks)
    return case, ranks


def _space_request(args: argparse.Namespace) -> tuple[list[str] | None, dict[str, list[str]]]:
    from pario.plan.jobfile import load_toml

    only = [k.strip() for k in args.space.split(",") if k.strip()] if args.space else None
    if args.space is not None and not only:
        raise ParioError("--space: name at least one knob, e.g. --space mca.io,collective")
    values: dict[str, list[str]] = {}
    if args.space_file:
        doc = load_toml(args.space_file, "--space-file")
        table = doc.get("space")
        if not isinstance(table, dict) or not table:
            raise ParioError(f"{args.space_file}: needs a [space] table of KNOB = [\"value\", ...]")
        for key, vals in table.items():
            if not isinstance(vals, list) or not all(isinstance(v, (str, int, bool)) for v in vals):
                raise ParioError(f"{args.space_file}: space.{key} must be a list of values, e.g. [\"1\", \"2\"]")
            values[str(key)] = [str(v).lower() if isinstance(v, bool) else str(v) for v in vals]
    return only, values


def _resume(args: argparse.Namespace, store: Store, seconds: float | None) -> int:
    from pario.model.tuning import TuningSession
    from pario.platform.engine import engine_path
    from pario.platform.mpi import detect, find_mpirun
    from pario.platform.scratch import Scratch
    from pario.run import engine_mpi, launchers
    from pario.run.scratch_guard import guarded
    from pario.tune import prior
    from pario.tune.jobs import SubmitPlan, rebuild
    from pario.tune.probe import session_ceiling
    from pario.tune.search import Budget
    from pario.tune.trials import EngineTrials

    row = store.get_session(args.resume)
    session = TuningSession.from_dict(row["doc"])
    session.id = row["id"]
    ctx_doc = session.context or {}
    if (args.submit or args.sbatch_args) and not ctx_doc.get("submit"):
        raise ParioError(f"session {session.id} ran its trials here, not as Slurm jobs; --resume goes on the same "
                         "way (drop --submit), or start a new session with --submit")
    if session.status == "done" and (args.trials is None or args.trials <= session.counted()):
        raise ParioError(f"session {session.id} is done ({session.counted()} trials); give --trials N above that "
                         "to search on, or start a new session")
    space = rebuild(session)   # as a submitted session's array tasks rebuild it
    case: Case = dict(session.case)
    engine = engine_path()
    mpi = detect(find_mpirun(args.mpirun))
    launcher = launchers.resolve(ctx_doc.get("launcher") or args.launcher)
    directory = args.dir or ctx_doc.get("dir")
    if directory and not os.path.isdir(os.path.dirname(os.path.abspath(directory))):  # pario made it, removed it
        directory = None
    old = session.budget or {}
    budget = Budget(trials=args.trials or int(old.get("trials") or 30),
                    seconds=seconds if seconds is not None else old.get("seconds"),
                    rungs=tuple(old.get("rungs") or (1, 3)), control_every=int(old.get("control_every") or 8))
    if not ctx_doc.get("submit"):   # before the scratch is probed (each trial's launch checks too)
        engine_mpi.check(engine, mpi, launcher)
    session.status = "running"
    session.budget = budget.to_dict()   # the header says the budget of this launch
    if ctx_doc.get("submit"):   # submitted trials: pick up what the jobs measured, submit the rest
        submitted = SubmitPlan.from_dict(ctx_doc["submit"])
        return run_search(args, store, session, space, tune_submit.evaluator(session, store, submitted, args.json),
                       budget, prior.guesses(space), case, batch=submitted.batch)
    scratch = Scratch(directory)
    with guarded(scratch, tidy=True):  # made and probed before the trials: see run/scratch_guard.py
        scratch.prepare()
        evaluator = EngineTrials(space=space, base=case, ranks=session.ranks, engine=engine, mpi=mpi,
                                 directory=directory, launcher=launcher, store=store, facts={"session": session.id},
                                 ceiling=session_ceiling(session, engine, scratch.dir, args.no_probe),
                                 timeout=args.timeout, nodes=ctx_doc.get("nodes"))
        return run_search(args, store, session, space, evaluator, budget, prior.guesses(space), case)
