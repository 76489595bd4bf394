"""`pario advise`: what to change in a job's I/O, ranked by the time it costs.

    pario advise LOG...                     pario profile logs (or their directories) and Darshan logs
    pario advise LOG --verify               also run the job's pattern here as it is and with each fix
    pario advise LOG --stack DIR|STACK.json advise for that file system (default: the log's own paths)
    pario advise --calibrate [--dir DIR]    measure this file system's per-call costs again (seconds)

The conductor: logs -> job model (advise.read_pario, advise.darshan_log) -> facts -> costs (stored
runs, else a short calibration through plan/run/store) -> rules -> ranked findings -> --verify ->
report (80-column text or --json, schemas/advise.schema.json)."""
from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from typing import Any

from pario.cli.args import row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import RUN

HELP = __doc__.split("\n\n", 2)[1]
EPILOG = """\
Time at stake: seconds of the job that the fix would save, from the log's own time counters and
what the better pattern costs on this system (stored pario bench runs of the same case, else a
calibration pario runs once per file system and stores: runs of kind "calibration" in
`pario results`). Each figure says how it was obtained; --no-calibrate leaves them out.
--verify proves a `pario buffer` fix by running the logged program again (it rewrites its files),
unbuffered and buffered, alternated; where it cannot run here it replays the pattern with
pario bench and says why.
Without an MPI or the engine here, the findings come without measured costs (the report says why).
Exit codes: 0 advice given, 2 a log could not be read (the others are still advised)."""


def register(subparsers) -> None:
    p = subparsers.add_parser("advise", description=HELP, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="*", metavar="LOG", type=row("log", "path"),
                   help="pario profile log or directory, or Darshan log")
    p.add_argument("--stack", metavar="PATH", type=row("stack", "path"),
                   help="file system to advise for: a directory there, or the JSON of `pario stack --json` run "
                        "there (default: the log's own paths)")
    p.add_argument("--verify", action="store_true", help="run the job's pattern as it is and with each fix")
    p.add_argument("--scale", type=row("scale", "float", lo=1e-9, hi=1),
                   help="--verify: share of the job's size to run (0 < SCALE <= 1)")
    p.add_argument("--budget", type=typed(RUN["time"]), default=60.0,
                   help="--verify: run at most about this many seconds of the job's pattern per finding (60)")
    p.add_argument("--calibrate", action="store_true", help="measure this file system's costs again and store them")
    p.add_argument("--no-calibrate", action="store_true", help="run nothing: findings without measured costs")
    p.add_argument("-n", "--ranks", type=typed(RUN["ranks"]),
                   help="at most this many ranks for measurements (default: the job's, up to twice the cores here)")
    p.add_argument("--dir", type=typed(RUN["dir"]),
                   help="where to measure when the job's directories are not here (default $PARIO_SCRATCH, "
                        "else ./pario-scratch)")
    p.add_argument("--mpirun", type=typed(RUN["mpirun"]),
                   help="MPI launcher for measurements (default $PARIO_MPIRUN, else mpirun)")
    p.add_argument("--db", type=typed(RUN["db"]),
                   help="results store (default $PARIO_DB, else the user data directory)")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.scale is not None and not 0 < args.scale <= 1:
        raise ParioError(f"--scale {args.scale:g}: give a share of the job's size, 0 < SCALE <= 1")
    if args.calibrate and args.no_calibrate:
        raise ParioError("--calibrate and --no-calibrate contradict each other; give one")
    if args.ranks is not None and args.ranks < 1:
        raise ParioError(f"-n {args.ranks}: give at least 1 rank")
    if not args.logs and not args.calibrate:
        raise ParioError("give a log to advise on: pario advise LOG (a `pario profile` log or a .darshan file), "
                         "or measure this file system with pario advise --calibrate")
    if args.verify and args.no_calibrate:
        raise ParioError("--verify runs the job's pattern; it cannot go with --no-calibrate")
    if args.budget <= 0:
        raise ParioError(f"--budget {args.budget:g}: give the seconds of the job's pattern --verify may run")
    from pario.store import Store

    store = Store(args.db)   # a bad --db must not cost the work
    jobs, errors = _read_all(args.logs)
    for e in errors:
        print(f"pario: error: {e}", file=sys.stderr)
    if args.logs and not jobs:
        return 2
    session = Session(args, store)
    with session.guards:   # the directories it makes: removed when left empty, also after a SIGKILL
        return _advise(args, session, jobs, errors)


def _advise(args: argparse.Namespace, session: Session, jobs: list[Any], errors: list[str]) -> int:
    from pario.advise.document import document
    from pario.platform.engine import counter_docs

    docs = []
    if not jobs:   # --calibrate alone
        model, note = session.model(args.dir or _scratch_dir(), force=True)
        if model is None:
            raise ParioError(note, exit_code=3)
        print(f"pario: {note}", file=sys.stderr)
        return 0
    for job in jobs:
        docs.append(session.advise(job))
    doc = document(docs, errors, counter_docs())
    if args.json:
        from pario.report import json as json_report
        json_report.emit(doc, default=str)
    else:
        from pario.report.terminal.advise import show
        show(doc)
    return 2 if errors else 0


def _scratch_dir() -> str:
    from pario.platform.scratch import Scratch
    return Scratch().dir


def _read_all(paths: list[str]) -> tuple[list[Any], list[str]]:
    """Each log as a job (a directory of pario profile parts is one job); the ones that cannot
    be read as one line each, without losing the others."""
    from pario.advise import darshan_log, read_pario

    jobs, errors = [], []
    kinds = [(p, os.path.isfile(p) and darshan_log.is_darshan(p)) for p in paths]
    darshan = iter(darshan_log.read_many([p for p, d in kinds if d]))
    for path, is_darshan in kinds:
        try:
            if is_darshan:
                got = next(darshan)
                if isinstance(got, ParioError):
                    raise got
                job = got
            elif not os.path.exists(path):
                raise ParioError(f"{path}: no such file or directory; give a `pario profile` log or a .darshan file")
            else:
                job = read_pario.read(path)
            jobs.append(job)
        except ParioError as exc:
            errors.append(str(exc))
    return jobs, errors


class Session:
    """What one `pario advise` call shares between its jobs: the store, the MPI, the models."""

    def __init__(self, args: argparse.Namespace, store: Any):
        self.args, self.store = args, store
        self._mpi: Any = None
        self._mpi_error: str | None = None
        self._local: dict[str, Any] | None = None
        self.guards = contextlib.ExitStack()   # the directories made for measurements (where)
        from pario.report.terminal.progress import Progress
        self.observer = Progress(plain=True)

    def mpi(self) -> Any:
        """The MPI measurements run with, or None (and why) when there is no MPI or no engine
        here: the advice is then given without measured costs instead of not at all."""
        if self._mpi is None and self._mpi_error is None:
            from pario.advise import calibrate
            from pario.platform.engine import engine_path
            try:
                engine_path()
                self._mpi = calibrate.local_mpi(self.args.mpirun)
            except ParioError as exc:
                self._mpi_error = str(exc)
        return self._mpi

    def nodes_here(self) -> int:
        """Nodes a measurement here can spread its ranks over: a Slurm allocation's, else the hosts
        of mpirun's hostfile (the local cluster's), else this one."""
        from pario.run.launchers import nodes as placement

        mpi = self.mpi()
        return placement.reachable(mpi) if mpi is not None else 1

    def local_facts(self) -> dict[str, Any]:
        if self._local is None:
            from pario.platform.stack import mpi_facts
            self._local = mpi_facts(self.args.mpirun, None)
        return self._local

    def where(self, directory: str) -> Any:
        from pario.advise import calibrate
        from pario.platform.scratch import Scratch
        from pario.run.scratch_guard import guarded

        # every level it makes, from the top: each held by a guard from before it exists (a SIGKILL
        # leaves nothing) and removed at the end if left empty, the deepest first (run/scratch_guard.py);
        # the guard's sentinel removes only the one directory it was told of, so each level needs its own
        missing = []
        level = os.path.abspath(directory)
        while not os.path.isdir(level) and os.path.dirname(level) != level:
            missing.append(level)
            level = os.path.dirname(level)
        for k in range(len(missing) - 1, -1, -1):
            scratch = Scratch(missing[k])
            inner = os.path.basename(missing[k - 1]) if k else None   # the next level, waited for
            self.guards.enter_context(guarded(scratch, tidy=True, holds=inner))
            scratch.prepare()
        return calibrate.Where.of(directory, self.mpi())

    def measure(self, directory: str, kind: str = "calibration"):
        """A Measure for the advisor: stored measurements first, the missing ones run here."""
        from pario.advise import calibrate

        def go(queries):
            if not queries:
                return {}
            where = self.where(directory)
            found = {} if (self.args.calibrate or kind != "calibration") else calibrate.lookup(queries, self.store,
                                                                                                 where)
            missing = [q for q in queries if q.key not in found]
            if missing and not self.args.no_calibrate and self.mpi() is not None:
                found.update(calibrate.run(missing, where, self.store, self.observer, mpi=self.mpi(), kind=kind,
                                           command="pario " + shlex.join(sys.argv[1:])))
            return found
        return go

    def model(self, directory: str, force: bool = False):
        """The calibration of the file system at `directory`: stored, else measured now."""
        from pario.advise import costs

        if self.mpi() is None:
            return None, f"no calibration: {self._mpi_error}"
        if self.args.no_calibrate:
            return None, "no calibration (--no-calibrate): small-request sizes are judged by the file system's unit"
        query = costs.model_query()
        where = self.where(directory)
        from pario.advise import calibrate
        got = None if (force or self.args.calibrate) else calibrate.lookup([query], self.store, where).get("model")
        how = "stored"
        if not got:
            got = calibrate.run([query], where, self.store, self.observer, mpi=self.mpi(),
                                command="pario " + shlex.join(sys.argv[1:])).get("model")
            how = "measured now"
        if not got:
            return None, "the calibration gave no figures"
        model = costs.model_of(got)
        runs = ", ".join(str(r) for r in model.runs) or "not stored"
        model.where = f"calibration run {runs} in {where.directory}" + \
            (f", load average {model.load:.1f} on {os.cpu_count()} cores" if model.load is not None else "")
        return model, f"{how}: {model.describe()} ({model.where}, {where.fs} at {where.mount})"

    def advise(self, job: Any) -> dict[str, Any]:
        return self.assess(job)[1]

    def assess(self, job: Any) -> tuple[Any, dict[str, Any]]:
        """The job's ranked findings (advisor.Ranked, the records) and its advice document."""
        from pario.advise import advisor, facts, rules, verify
        from pario.advise.document import io_seconds, job_document
        from pario.platform import host

        local = self.local_facts() if any(r.module == "mpiio" for r in job.records) else None
        stack = facts.gather(job, self.args.stack, local)
        directory = stack.measure_dir or self.args.dir or _scratch_dir()
        model, cal_note = self.model(directory)
        max_ranks = self.args.ranks or max(1, 2 * host.cpus())
        ctx = rules.Ctx(job=job, stack=stack, model=model, max_ranks=max_ranks, nodes_here=self.nodes_here())
        cands = rules.detect(ctx)
        measure = None if self.args.no_calibrate or self.mpi() is None else self.measure(directory)
        ranked = advisor.rank(cands, model, measure, job.run_time, io_seconds(job))
        notes = [] if model else [cal_note]
        if model and model.load is not None and model.load > (os.cpu_count() or 1):
            notes.append(f"this system's costs were measured with a load average of {model.load:.1f} on "
                         f"{os.cpu_count()} cores: figures from a busy machine; pario advise --calibrate "
                         "measures them again")
        if self.args.verify and self.mpi() is None:
            notes.append(f"--verify ran nothing: {self._mpi_error}")
        elif self.args.verify:
            targets = ranked.findings + ranked.not_costed
            notes += verify.verify(targets, ranked.plans, self.measure(directory, kind="advise-verify"),
                                   self.args.scale, self.args.budget, host.disk_free(directory), job)
        return ranked, job_document(job, stack, model, ranked, notes, cal_note, directory)
