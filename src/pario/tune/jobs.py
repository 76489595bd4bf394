"""`pario tune --submit`: a session's trials as Slurm batch jobs.

The search stays here (on the login node) and takes the decisions of `pario tune` (tune.search);
each round of launches it decides (the first control with the first guess batch, each guess batch
of one file layout, each race round, TPE's proposals --batch at a time, the final control with the
confirmation) is submitted as one job array (`--array=0-K%N`: at most N tasks run at once, by
default one, so that a trial never shares the file system with another). Each task runs one launch
of one configuration inside its own allocation (srun) and stores it like any trial, then leaves its
measurement beside the batch file. With --submit a proposal runs its full repetitions in one job:
a second queue wait per trial (the short first run of successive halving) would cost more than the
pruning saves.

The session names every launch's job before it waits for them, so when pario stops following
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

from pario.model.jobs import JobObserver, ended_sentence
from pario.model.tuning import TuningSession
from pario.run import batch, jobs
from pario.store import Store
from pario.tune import knobs
from pario.tune.ledger import Launch
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
    nodes: int | None = None     # --nodes: each task's allocation, its ranks in blocks over them

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


class SlurmTrials:
    """The evaluator of a submitted session: launches become tasks of job arrays."""

    def __init__(self, *, session: TuningSession, store: Store, plan: SubmitPlan, observer: JobObserver,
                 saved: Callable[[], None], warmup: int = 1):
        self.session, self.store, self.plan, self.observer, self.saved = session, store, plan, observer, saved
        self.warmup = warmup
        self.jobdir = os.path.join(plan.workdir, "pario-jobs")
        self.arrays = 0   # submitted by this pario: race rounds can follow each other within a second

    # -- Evaluator (one launch: the final control and the confirmation) ---------------------------

    def run(self, config: Config, reps: int, role: str) -> Measured:
        trial = self.session.trials[-1]   # the search appends the trial first
        return self.run_batch([(trial, config, reps, role)], role)[0]

    # -- a batch -------------------------------------------------------------------------------

    def run_batch(self, items: list[Launch], stage: str) -> list[Measured]:
        """One job array, a task per launch (stage: what the round is for, kept in each job's record)."""
        sid = self.session.id
        os.makedirs(self.jobdir, exist_ok=True)
        self.arrays += 1
        stem = os.path.join(self.jobdir, f"tune-{sid}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{self.arrays}")
        path = stem + ".json"
        doc = {"session": sid, "stage": stage, "no_probe": self.plan.no_probe, "timeout": self.plan.timeout,
               "warmup": self.warmup,
               "tasks": [{"config": dict(c), "reps": r, "role": role, "trial": t.number} for t, c, r, role in items]}
        _write_json(path, doc)
        command = [sys.executable, "-m", "pario", "tune", "--run-trials", path, "--db", self.plan.db]
        array = ["--array", f"0-{len(items) - 1}%{max(1, self.plan.max_jobs)}"]
        script = batch.script(command, name=f"pario-tune-{sid}", ntasks=self.session.ranks,
                              user=[*self.plan.directives, array], output=stem + "-%A_%a.out",
                              error=stem + "-%A_%a.err", workdir=self.plan.workdir, exports=self.plan.exports,
                              nodes=self.plan.nodes,
                              note=f"pario tune session {sid}, {stage}: {len(items)} launch(es), one per array task")
        with open(stem + ".sh", "w", encoding="utf-8") as fh:
            fh.write(script)
        array_id, cluster = batch.submit_written(stem + ".sh", self.plan.workdir, [stem + ".sh", path])
        for i, (trial, _config, _reps, role) in enumerate(items):
            trial.job = f"{array_id}_{i}"
            self.store.add_job(kind="tune", job_id=trial.job, cluster=cluster, command=shlex.join(command),
                               script=stem + ".sh", output=f"{stem}-{array_id}_{i}.err", session_id=sid,
                               doc={"batch": path, "task": i, "role": role, "trial": trial.number, "stage": stage})
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

    def taken(self, job_ids: list[str]) -> None:
        """These jobs' measurements are in the saved session: a resume does not take them again."""
        for rec in self.store.list_jobs(session_id=self.session.id, limit=100000):
            if rec["job_id"] in job_ids and not rec["doc"].get("collected"):
                self.store.update_job(rec["id"], doc={**rec["doc"], "collected": True})

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
    """Search with each round's launches submitted together as one job array (SlurmTrials.run_batch):
    the same decisions in the same order (the first control with the first guess batch, each guess
    batch, each race round, the challenge races, the final control with the confirmation); only
    TPE's proposals differ: `batch_size` of them per array, each its full rung (no pruning: a second
    queue wait per trial would cost more than pruning saves), the control in the same array when due."""

    ev: SlurmTrials

    def __init__(self, *args, batch_size: int = 4, **kw):
        super().__init__(*args, **kw)
        self.batch_size = max(1, batch_size)
        self.in_flight: list[str] = []   # the jobs of the array waited for when pario was interrupted

    def _launch_many(self, launches: list[Launch], stage: str) -> list[Measured]:
        if not launches:
            return []
        t0 = self.clock()
        try:
            measured = self.ev.run_batch(launches, stage)
        except KeyboardInterrupt:   # the jobs go on: --resume picks up what they measure
            self.in_flight = [trial.job for trial, *_ in launches if trial.job]
            raise
        self.durations += [(self.clock() - t0) / len(launches)] * len(launches)
        out = [self._record(trial, config, m, role) for (trial, config, _reps, role), m in zip(launches, measured)]
        self.ev.taken([trial.job for trial, *_ in launches if trial.job])   # recorded (and saved: the listener)
        return out

    def _explore(self) -> None:
        exhausted = False
        while self._room(reserve=2) and not exhausted:
            launches: list[Launch] = []
            asked: dict[int, Any] = {}   # trial number -> its optuna trial
            if self._since_control() >= self.budget.control_every and self._room(reserve=3):   # as Search
                launches.append((self._begin({}, "control"), self.default, self.budget.rungs[-1], "control"))
            repeats = 0
            while len(launches) < self.batch_size and self._room(reserve=2, ahead=len(launches)):
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
                        self.session.note("every configuration of the space was measured")
                        exhausted = True
                        break
                    continue
                trial = self._new(self._diff(config), "running", role="proposal")
                self.cache[self.space.canonical(config)] = trial
                asked[trial.number] = ot
                launches.append((trial, config, self.budget.rungs[-1], "trial"))
            if not launches:
                break
            self._launch_many(launches, "proposals" if any(role == "trial" for *_, role in launches) else "control")
            for trial, _config, _reps, role in launches:
                if role == "control":
                    self._as_control(trial)
                    continue
                ot = asked[trial.number]
                if trial.state == "failed":
                    self.study.tell(ot, state=TrialState.FAIL)
                else:   # as Search._one with the full rung at once
                    ot.report(float(trial.median or 0.0), step=len(trial.rates))
                    trial.state = "complete"
                    self.study.tell(ot, float(trial.median or 0.0))
                    self._challenge(trial)
                self.listener(self.session, trial)

    def _pickup(self) -> None:
        """--resume: what this session's jobs measured while no pario followed them (waiting for those
        still queued or running), controls first (a trial's ratio is taken against the controls so far):
        - a trial's first launch: a control or confirmation takes its state; a trial is "screened", taken
          up like a screened guess (Search.pending: its guess batch races it, or it is judged after the
          guesses);
        - a race round's launch: its repetitions are added to its trial (the race goes on after)."""
        recs = [r for r in self.ev.store.list_jobs(session_id=self.session.id, limit=100000)
                if not r["doc"].get("collected")]
        work = []
        for rec in recs:
            trial = self.trial(rec["doc"].get("trial"))
            if trial is None:
                continue
            fresh = trial.state in ("interrupted", "running") and trial.job == rec["job_id"]
            extra = (rec["doc"].get("stage") in ("race", "challenge") and trial.state in ("screened", "complete")
                     and not set(self.ev.store.runs_of_job(rec["job_id"])) & set(trial.runs))   # not in it yet
            if fresh or extra:
                work.append((rec["doc"].get("role", "trial") != "control", rec["id"], rec, trial, fresh))
        for _, _, rec, trial, fresh in sorted(work, key=lambda w: w[:2]):
            role = rec["doc"].get("role", "trial")
            config = self.default if role == "control" else self.config_of(trial)
            state = trial.state
            if fresh:
                trial.state = "running"
            m = self.ev.collect(rec["job_id"])
            if m.status == "complete" and m.rates:
                m.message = None
            self._record(trial, config, m, role)
            if not fresh:   # more repetitions: a failure keeps what the trial had
                if trial.state == "failed":
                    trial.state = state
                    trial.note = f"picked up after --resume: a further launch failed: {m.message or 'no rate'}"[:300]
            elif trial.state == "failed":
                trial.note = f"picked up after --resume: {trial.note}"[:300]
                if role == "trial":
                    self._told(config, trial)
            elif role == "control":
                self._as_control(trial)
            elif role == "trial":
                trial.state = "screened"
                key = self.space.canonical(config)
                self.pending[key] = trial
                self.cache[key] = trial
            self.listener(self.session, trial)
            self.ev.taken([rec["job_id"]])


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
