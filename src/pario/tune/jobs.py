"""`pario tune --submit`: a session's trials as Slurm batch jobs.

The search stays here (on the login node); each round it asks optuna for a batch of
configurations and submits them as one job array (`--array=0-K%N`: at most N tasks run at once,
by default one, so that a trial never shares the file system with another). Each task runs one
launch of one configuration inside its own allocation (srun) and stores it like any trial, then
leaves its measurement beside the batch file. With --submit a trial runs its full repetitions in
one job: a second queue wait per trial (the short first run of successive halving) would cost more
than the pruning saves.

The session names every trial's job before it waits for them, so when pario stops following
(Ctrl-C, the user logging out) the jobs go on, and `pario tune --resume` picks up what they
measured before it submits more."""
from __future__ import annotations

import json
import os
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from optuna.trial import TrialState

from pario.analysis import noise
from pario.model.jobs import JobObserver, ended_sentence
from pario.model.tuning import Trial, TuningSession
from pario.run import batch, jobs
from pario.store import Store
from pario.tune import knobs
from pario.tune.search import REPEATS_BEFORE_NUDGE, Search
from pario.tune.space import Config, Context, Space
from pario.tune.trials import Measured, rates_of

ROLES = ("trial", "control", "confirm")


@dataclass
class SubmitPlan:
    """How a session's jobs are made (kept in session.context['submit'] for --resume)."""
    workdir: str
    db: str
    directives: list[list[str]] = field(default_factory=list)   # the user's --sbatch-args
    max_jobs: int = 1            # array tasks running at once
    batch: int = 4               # configurations per job array
    no_probe: bool = False
    timeout: float | None = None
    exports: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> SubmitPlan:
        return cls(**{k: v for k, v in doc.items() if k in cls.__dataclass_fields__})


def rebuild(session: TuningSession) -> Space:
    """The session's space as it is now (knobs a measurement dropped are out), from its context."""
    ctx_doc = session.context or {}
    space = knobs.build(Context.from_dict(ctx_doc.get("space") or {}), ctx_doc.get("only"),
                        ctx_doc.get("values") or {})
    for d in session.dropped:
        knob = space.knob(d.key)
        if d.evidence and knob is not None:   # dropped by a measurement during the session
            space.knobs.remove(knob)
    return space


Item = tuple[Trial, Config, int, str]   # the trial, its configuration, repetitions, role


class SlurmTrials:
    """The evaluator of a submitted session: launches become tasks of job arrays."""

    def __init__(self, *, session: TuningSession, store: Store, plan: SubmitPlan, observer: JobObserver,
                 saved: Callable[[], None], warmup: int = 1):
        self.session, self.store, self.plan, self.observer, self.saved = session, store, plan, observer, saved
        self.warmup = warmup
        self.jobdir = os.path.join(plan.workdir, "pario-jobs")

    # -- Evaluator (one launch: the final control and the confirmation) ---------------------------

    def run(self, config: Config, reps: int, role: str) -> Measured:
        trial = self.session.trials[-1]   # Search._control/_finish append the trial first
        return self.run_batch([(trial, config, reps, role)])[0]

    # -- a batch -------------------------------------------------------------------------------

    def run_batch(self, items: list[Item]) -> list[Measured]:
        sid = self.session.id
        os.makedirs(self.jobdir, exist_ok=True)
        stem = os.path.join(self.jobdir, f"tune-{sid}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        path = stem + ".json"
        doc = {"session": sid, "no_probe": self.plan.no_probe, "timeout": self.plan.timeout, "warmup": self.warmup,
               "tasks": [{"config": dict(c), "reps": r, "role": role, "trial": t.number} for t, c, r, role in items]}
        _write_json(path, doc)
        command = [sys.executable, "-m", "pario", "tune", "--run-trials", path, "--db", self.plan.db]
        array = ["--array", f"0-{len(items) - 1}%{max(1, self.plan.max_jobs)}"]
        script = batch.script(command, name=f"pario-tune-{sid}", ntasks=self.session.ranks,
                              user=[*self.plan.directives, array], output=stem + "-%A_%a.out",
                              error=stem + "-%A_%a.err", workdir=self.plan.workdir, exports=self.plan.exports,
                              note=f"pario tune session {sid}: {len(items)} launch(es), one per array task")
        with open(stem + ".sh", "w", encoding="utf-8") as fh:
            fh.write(script)
        array_id, cluster = batch.submit(stem + ".sh", self.plan.workdir)
        for i, (trial, _config, _reps, role) in enumerate(items):
            trial.job = f"{array_id}_{i}"
            self.store.add_job(kind="tune", job_id=trial.job, cluster=cluster, command=shlex.join(command),
                               script=stem + ".sh", output=f"{stem}-{array_id}_{i}.err", session_id=sid,
                               doc={"batch": path, "task": i, "role": role, "trial": trial.number})
        self.saved()   # the session names its jobs before waiting: a resume finds them
        return [self.collect(trial.job) for trial, *_ in items]

    def collect(self, job_id: str) -> Measured:
        """Wait for one task, then what it measured: its result file, else its stored run."""
        rec = next((r for r in self.store.list_jobs(session_id=self.session.id, limit=100000)
                    if r["job_id"] == job_id), None)
        if rec is None:
            return Measured([], "failed", f"no record of Slurm job {job_id} in this store")
        job = jobs.watch(job_id, self.observer, error_file=rec["output"])
        if job.extra.get("hopeless"):
            jobs.cancel(job_id.split("_")[0])
            job.state = "CANCELLED"
            measured = Measured([], "failed", f"Slurm job {job_id} cannot start as asked (it waits for {job.reason}); "
                                              "pario cancelled its array: check -n and --sbatch-args")
        else:
            measured = self._measured(job_id, rec, ended_sentence(job))
        self.store.update_job(rec["id"], state=job.state, reason=job.reason, exit_code=job.exit_code,
                              run_id=measured.run_id)
        return measured

    def _measured(self, job_id: str, rec: dict[str, Any], ended: str | None) -> Measured:
        done = f"{rec['doc'].get('batch')}.task-{rec['doc'].get('task')}.json"
        try:
            with open(done, encoding="utf-8") as fh:
                m = Measured(**json.load(fh))
            if ended and m.status == "complete":   # measured, then the job ended badly: keep it, say so
                m.message = ended
            return m
        except (OSError, ValueError, TypeError):
            pass
        runs = self.store.runs_of_job(job_id)
        if runs:   # stopped before it wrote its file (time limit, scancel): the run it stored
            run = self.store.get_run(runs[-1])
            rates = rates_of(run["result"], self.session.objective)[self.warmup:]
            why = (run["result"].get("error") or {}).get("message") or run["status"]
            return Measured(rates if run["status"] == "complete" else [], "failed" if run["status"] != "complete"
                            else "complete", f"{ended or 'the job ended'}: {why}", run["id"])
        return Measured([], "failed", f"{ended or f'Slurm job {job_id} ended'}; it stored no run "
                                      f"(its messages: {rec['output']})")


def _write_json(path: str, doc: Any) -> None:
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
    os.replace(tmp, path)


class BatchedSearch(Search):
    """Search.run with the launches of a round submitted together (SlurmTrials.run_batch); the
    default control, the knowledge-based guesses, the noise test and the confirmation as in Search."""

    ev: SlurmTrials

    def __init__(self, *args, batch_size: int = 4, **kw):
        super().__init__(*args, **kw)
        self.batch_size = max(1, batch_size)

    def run(self, guesses: list[tuple[Config, str]]) -> TuningSession:
        self.session.budget = self.budget.to_dict()
        for config, _why in guesses:
            if self.space.canonical(config) not in self.cache:
                self.study.enqueue_trial({k: v for k, v in config.items() if self.space.knob(k)},
                                         skip_if_exists=True)
        self._pickup()
        exhausted = False
        while self._room(reserve=2) and not exhausted:
            items: list[tuple[Item, Any]] = []
            if not any(t.state == "control" for t in self.session.trials) or \
                    self._since_control() >= self.budget.control_every:
                items.append(((self._new({}, "running"), self.default, self.budget.rungs[-1], "control"), None))
            repeats = 0
            while len(items) < self.batch_size and self._room(reserve=2):   # _new counts each item already
                ot = self.study.ask()
                config = self.space.suggest(ot)
                known = self.cache.get(self.space.canonical(config))
                if known is not None:
                    if known.state in ("pruned", "running") or known.median is None:
                        self.study.tell(ot, state=TrialState.PRUNED)
                    else:
                        self.study.tell(ot, known.median)
                    repeats += 1
                    if repeats % REPEATS_BEFORE_NUDGE == 0 and not self._nudge():
                        self.session.notes.append("every configuration of the space was measured")
                        exhausted = True
                        break
                    continue
                trial = self._new(self._diff(config), "running")
                self.cache[self.space.canonical(config)] = trial
                items.append(((trial, config, self.budget.rungs[-1], "trial"), ot))
            if not items:
                break
            self.listener(self.session, None)
            t0 = self.clock()
            measured = self.ev.run_batch([item for item, _ot in items])
            self.durations += [(self.clock() - t0) / len(items)] * len(items)
            for ((trial, config, _reps, role), ot), m in sorted(zip(items, measured),
                                                                key=lambda x: x[0][0][3] != "control"):
                self._settle(trial, config, role, m, ot)
        self._finish()
        self.session.status = "done"
        self.listener(self.session, None)
        return self.session

    def _settle(self, trial: Trial, config: Config, role: str, m: Measured, ot: Any) -> None:
        """A launch's measurement into its trial, and the trial's verdict (as Search._control and
        Search._one decide it); `ot`: its optuna trial, None after a resume (then told afresh)."""
        self._record(trial, config, m)
        if role == "control":
            if trial.state != "failed":
                trial.state = "control"
                if not self.cache.get(self.space.canonical(self.default)):
                    self.cache[self.space.canonical(self.default)] = trial
                    self._told(self.default, trial)
        elif role == "confirm":
            if trial.state != "failed":
                trial.state = "confirm"
        elif trial.state == "failed":
            if ot is not None:
                self.study.tell(ot, state=TrialState.FAIL)
        else:
            trial.state = "complete"
            if ot is not None:
                self.study.tell(ot, float(trial.median or 0.0))
            else:
                self._told(config, trial)
            self.cache[self.space.canonical(config)] = trial
            cmp = noise.compare(self.incumbent_rates(), trial.rates)
            if cmp.faster:
                self.session.incumbent = trial.number
                trial.note = f"new incumbent: {cmp.ratio:.2f}x [{cmp.low:.2f}-{cmp.high:.2f}] the last one"
        self.listener(self.session, trial)

    def _pickup(self) -> None:
        """--resume: what the jobs of trials in flight measured while no pario followed them
        (waiting for those still queued or running)."""
        roles = {r["job_id"]: r["doc"].get("role", "trial")
                 for r in self.ev.store.list_jobs(session_id=self.session.id, limit=100000)}
        waiting = [t for t in self.session.trials if t.state in ("interrupted", "running") and t.job in roles]
        # controls first: a trial's ratio is taken against the controls so far
        for trial in sorted(waiting, key=lambda t: roles[t.job] != "control"):
            trial.state = "running"
            m = self.ev.collect(trial.job)
            config = self.default if roles[trial.job] == "control" else self.config_of(trial)
            if m.status == "complete" and m.rates:
                m.message = None
            self._settle(trial, config, roles[trial.job], m, None)
            if trial.state == "failed" and not trial.note.startswith("picked up"):
                trial.note = f"picked up after --resume: {trial.note}"[:300]


def run_task(path: str, index: int, store: Store, evaluator_of: Callable[[TuningSession, Space, dict[str, Any]], Any]
             ) -> int:
    """Inside an array task: one launch of the batch file's task `index`, stored as a trial run of
    its session, and its measurement written beside the batch file for the search to read.
    `evaluator_of(session, space, batch doc)` makes the tune.trials.EngineTrials that runs it."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    task = doc["tasks"][index]
    row = store.get_session(int(doc["session"]))
    session = TuningSession.from_dict(row["doc"])
    session.id = row["id"]
    space = rebuild(session)
    m = evaluator_of(session, space, doc).run(task["config"], int(task["reps"]), task["role"])
    _write_json(f"{path}.task-{index}.json", asdict(m))
    return 0 if m.status == "complete" else 1
