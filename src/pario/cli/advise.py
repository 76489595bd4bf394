"""`pario advise`: what to change in a job's I/O, ranked by the time it costs.

    pario advise LOG...                     pario profile logs (or their directories) and Darshan logs
    pario advise LOG --verify               also run the job's pattern here as it is and with each fix
    pario advise LOG --stack DIR|STACK.json advise for that file system (default: the log's own paths)
    pario advise LOG --system FILE          cost it with the calibration of the system it ran on
    pario advise LOG --system SYSTEM.toml   cost it with pario predict's model of that system
    pario advise --calibrate [--dir DIR]    measure this system and write its calibration file

The conductor: logs -> job model (advise.read_pario, advise.darshan_log) -> the system it ran on
and its calibration (advise.systems) -> facts -> costs (advise.measure: kept measurements, else
measured here when the job ran here, within a budget) -> rules -> ranked findings -> --verify ->
report (80-column text or --json, schemas/advise.schema.json)."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from pario.cli.args import row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import RUN

HELP = __doc__.split("\n\n", 2)[1]
EPILOG = """\
Time at stake: seconds of the job that the fix would save, from the log's own time counters and
what the better pattern costs on the system the job ran on: its calibration (a file, written by
`pario advise --calibrate` run there, given with --system FILE, kept beside the results store),
measured here only when the job ran here. Unasked, advice measures at most about 10 s and 1 GiB
written per log, says what before it starts, and keeps what it measured: the same log gets the same
findings. A log from a system with no calibration is costed by pario predict's model of that
system when one is given (--system SYSTEM.toml, or $PARIO_SYSTEM; examples/systems/ has five),
else advised uncosted, with the reason.
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
    p.add_argument("--calibrate", action="store_true",
                   help="measure this system's costs (and each LOG's patterns) in full, and write its calibration")
    p.add_argument("--system", metavar="FILE", type=row("system", "path"),
                   help="the calibration of the system the job ran on (written there by pario advise --calibrate), "
                        "or a pario predict system file (.toml, or a shipped name: archer2) to cost it by the model")
    p.add_argument("--no-calibrate", action="store_true",
                   help="measure nothing (what the system's calibration keeps still costs the findings)")
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
        model, note = session.calibrate_here(args.dir or _scratch_dir())
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
        for name, default in (("calibrate", False), ("no_calibrate", False), ("system", None), ("stack", None),
                              ("verify", False), ("ranks", None), ("dir", None)):
            if not hasattr(args, name):   # a caller's own Namespace (pario report, tests): advise's defaults
                setattr(args, name, default)
        self._mpi: Any = None
        self._mpi_error: str | None = None
        self._local: dict[str, Any] | None = None
        self.guards = contextlib.ExitStack()   # the directories made for measurements (where)
        self._given: Any = None          # --system's calibration
        from pario.advise import systems
        if store is not None:
            systems.keep_beside(store.path)
        self._loaded: dict[str, Any] = {}
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

    def reachable_hosts(self) -> set[str]:
        """The hosts this MPI's launches reach from here (its hostfile's): a log made on them was made
        on this system."""
        from pario.run.launchers import nodes as placement

        mpi = self.mpi()
        found = placement.hostfile(mpi) if mpi is not None else None
        if found is None:
            return set()
        try:
            return set(placement.hosts_in(found[1]))
        except ParioError:
            return set()

    def nodes_here(self) -> int:
        """Nodes a measurement here can spread its ranks over: a Slurm allocation's, else the hosts
        of mpirun's hostfile (the local cluster's), else this one."""
        from pario.run.launchers import nodes as placement

        mpi = self.mpi()
        return placement.reachable(mpi) if mpi is not None else 1

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

    def measurer(self, job: Any, directory: str, kind: str = "calibration") -> Any:
        """What this job's advice may measure and where its measurements are kept (advise.measure):
        the calibration of the system the job ran on, measured here only if it ran here."""
        from pario.advise import measure

        cal, here, why = self.system_of(job)
        from pario.advise.predicted import Predicted
        if isinstance(cal, Predicted):   # a system pario has a model of: its costs predicted, nothing run here
            return cal
        can = here and not self.args.no_calibrate and self.mpi() is not None
        if here and self.args.no_calibrate:
            why = "--no-calibrate: nothing is measured"
        elif here and self.mpi() is None:
            why = f"nothing can be measured here: {self._mpi_error}"
        if kind != "calibration":   # --verify: its own budget (--budget), full-size runs, not kept as the calibration
            return measure.Measurer(cal, can, why, store=self.store, mpi=self.mpi, where=lambda: self.where(directory),
                                    observer=self.observer, budget=measure.Budget(None, None), force=True,
                                    kind=kind, cap=None)
        # unasked measuring, per job: which of its patterns fit is decided by that job's patterns
        # alone (the kept ones counted too), so a log's findings do not depend on the other logs of
        # the call; --calibrate and --verify measure what they need
        budget = measure.Budget(None, None) if self.args.calibrate or self.args.verify else \
            measure.Budget(measure.AUTO_SECONDS, measure.AUTO_BYTES)
        return measure.Measurer(cal, can, why, store=self.store, mpi=self.mpi, where=lambda: self.where(directory),
                                observer=self.observer, budget=budget, force=self.args.calibrate,
                                cap=None if self.args.calibrate else measure.AUTO_CAP,
                                timeout=None if self.args.calibrate else 60.0)

    def system_of(self, job: Any) -> tuple[Any, bool, str]:
        """(the calibration of the system the job ran on or None, whether it ran here, why nothing
        is measured here). A system pario has a model of (--system FILE.toml, or $PARIO_SYSTEM for a
        log from elsewhere without a calibration) gives advise.predicted.Predicted instead."""
        from pario.advise import predicted, systems

        if self.args.system and predicted.is_system_file(self.args.system):
            return predicted.Predicted(self.args.system, job), False, ""
        if self.args.system:
            if self._given is None:
                self._given = systems.load(self.args.system)
            cal = self._given
            me = systems.here_identity()
            mine = me["hosts"][0] in (cal.system.get("hosts") or []) or \
                (bool(me.get("cluster")) and me.get("cluster") == cal.system.get("cluster"))
            return cal, mine, ("" if mine else f"--system {self.args.system} is the calibration of {cal.name}, "
                                               "not of this machine: nothing is measured here")
        if self.args.stack and os.path.isfile(self.args.stack):
            return None, False, (f"--stack {self.args.stack} describes a file system recorded elsewhere: this "
                                 "machine's measurements are not of it (give --system FILE, the calibration "
                                 "written there)")
        here, how = (True, f"--stack {self.args.stack} is a directory here") if self.args.stack else \
            systems.made_here(job, self.reachable_hosts())
        if here:
            path = systems.default_path(systems.here_identity()["name"])
            cal = self._loaded.get(str(path))
            if cal is None and path.is_file():
                try:
                    cal = self._loaded[str(path)] = systems.load(path)
                except ParioError as exc:
                    self.observer.note(f"the kept calibration is unreadable and is measured again: {exc}")
            return cal, True, ""
        for cal in systems.stored():
            if systems.matches(cal, job):
                return cal, False, f"the job ran on {cal.name} ({how}): nothing is measured here"
        model, why_no_model = systems.predicted_model(job, None)
        if model is not None:
            return model, False, ""
        return None, False, (f"the log is from another system ({how}) and no calibration of it is kept here: "
                             "run `pario advise --calibrate` there and give the file it writes with --system FILE; "
                             + why_no_model)

    def calibrate_here(self, directory: str) -> tuple[Any, str]:
        """--calibrate alone: measure this system in full and write its calibration file."""
        from pario.advise import measure, systems

        if self.mpi() is None:
            return None, f"no calibration: {self._mpi_error}"
        path = systems.default_path(systems.here_identity()["name"])
        cal = systems.load(path) if path.is_file() else None
        m = measure.Measurer(cal, True, "", store=self.store, mpi=self.mpi, where=lambda: self.where(directory),
                             observer=self.observer, budget=measure.Budget(None, None), force=True, cap=None)
        model, note = m.model()
        return model, note + (f"; written to {m.cal.path}" if m.cal is not None and m.cal.path else "")

    def advise(self, job: Any) -> dict[str, Any]:
        return self.assess(job)[1]

    def assess(self, job: Any) -> tuple[Any, dict[str, Any]]:
        """The job's ranked findings (advisor.Ranked, the records) and its advice document."""
        from pario.advise import advisor, facts, predicted, rules, verify
        from pario.advise.document import io_seconds, job_document
        from pario.platform import host

        _, here, _ = self.system_of(job)
        stack = facts.gather(job, self.args.stack, here=here)
        directory = stack.measure_dir or self.args.dir or _scratch_dir()
        measurer = self.measurer(job, directory)
        model, cal_note = measurer.model()
        # a modelled system is predicted at the job's own ranks and nodes (advise/predicted.py)
        max_ranks = self.args.ranks or getattr(measurer, "max_ranks", None) or max(1, 2 * host.cpus())
        ctx = rules.Ctx(job=job, stack=stack, model=model, max_ranks=max_ranks,
                        nodes_here=getattr(measurer, "nodes", None) or self.nodes_here())
        if job.nprocs > 1 and not job.copies:
            ctx.rank_noise, ctx.rank_noise_why = measurer.rank_noise(ctx.ranks_here(job.nprocs))
        cands = rules.detect(ctx)
        ranked = advisor.rank(cands, model, measurer.measure, job.run_time, io_seconds(job), cap=measurer.cap)
        notes = ([] if model or measurer.why_not else [cal_note]) + ctx.notes + measurer.notes
        if model and model.load is not None and model.load > (os.cpu_count() or 1):
            notes.append(f"this system's costs were measured with a load average of {model.load:.1f} on "
                         f"{os.cpu_count()} cores: figures from a busy machine; pario advise --calibrate "
                         "measures them again")
        if self.args.verify and self.mpi() is None:
            notes.append(f"--verify ran nothing: {self._mpi_error}")
        elif self.args.verify and not here:
            notes.append("--verify ran nothing: the job ran on another system, and a run here would say nothing "
                         "of it (run pario advise --verify there)")
        elif self.args.verify:
            # and the minor ones whose replay here was inconclusive: --verify settles them too
            targets = ranked.findings + ranked.not_costed + [f for f in ranked.minor if id(f) in ranked.unproven]
            notes += verify.verify(targets, ranked.plans, self.measurer(job, directory, kind="advise-verify").measure,
                                   self.args.scale, self.args.budget, host.disk_free(directory), job)
            verify.not_faster(ranked)
        from pario.advise import overlap
        at_stake = overlap.settle(ranked, job)
        system = {"calibration": str(measurer.cal.path) if measurer.cal is not None and measurer.cal.path else None,
                  "name": measurer.cal.name if measurer.cal is not None else None, "here": here,
                  "measured_here": measurer.can_measure, "why": measurer.why_not, **predicted.document(measurer)}
        return ranked, job_document(job, stack, model, ranked, notes, cal_note, directory if here else None, system,
                                    at_stake)
