"""A configuration of the space as an engine run: the case with its strategy, calls and settings
changed (`apply`), run through run.bench.execute like `pario bench` runs it, stored as a run of kind
'tune', and read back as the objective's rates and the check of each setting (requested vs in effect).
`Measured` is all the search needs, so a recorded grid (replay.py) can stand in for the engine."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Protocol

from pario.analysis.summary import headline
from pario.model.case import Case
from pario.model.errors import ParioError
from pario.model.events import NullObserver, RunObserver
from pario.plan import validate
from pario.plan.cases import case_label, parse_strategy
from pario.plan.command import bench_command
from pario.platform.mpi import MPI
from pario.platform.scratch import Scratch
from pario.run.bench import RunRequest, execute
from pario.store import Store
from pario.tune.space import DEFAULT, Config, Space


@dataclass
class Measured:
    """What one launch of a configuration gave: the objective's rate per repetition (MiB/s)."""
    rates: list[float]
    status: str = "complete"                 # complete | partial | failed
    message: str | None = None
    run_id: int | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)   # settings.effective rows of the case
    other: dict[str, list[float]] = field(default_factory=dict)  # the other timed operations' rates


class Evaluator(Protocol):
    def run(self, config: Config, reps: int, role: str) -> Measured:
        """Run config with `reps` repetitions; role: trial | control | confirm (kept with the run)."""


def apply(space: Space, base: Case, config: Config, reps: int, both_ops: bool = False) -> tuple[Case, str | None,
                                                                                               dict[str, str]]:
    """(the engine case, the Open MPI io component, the MCA parameters) of a configuration.
    both_ops: a ROMIO collective-buffering or data-sieving value is set for reads and writes alike
    (a recorded grid measures both operations in one run)."""
    eff = space.effective(config)
    case = copy.deepcopy(base)
    name, _, agg = space.strategy(eff).partition("+")
    strategy, nfiles = parse_strategy(name)
    case["strategy"] = strategy
    case.pop("nfiles", None)
    if nfiles is not None:
        case["nfiles"] = nfiles
    case["aggregate"] = agg == "agg" or (bool(base.get("aggregate")) and "strategy" not in eff)
    case["collective"] = space.collective(eff)
    if case["aggregate"] or strategy == "serial":
        case["view"] = False
    if "odirect" in eff:
        case["odirect"] = eff["odirect"] == "true"
    settings = space.settings_of(eff)
    hints = {**(base.get("hints") or {}), **settings.hints}
    if both_ops:
        for key in list(hints):
            for a, b in (("_write", "_read"), ("_read", "_write")):
                if key.startswith(("romio_cb", "romio_ds")) and key.endswith(a):
                    hints.setdefault(key[: -len(a)] + b, hints[key])
    if hints:
        case["hints"] = hints
    lib = {**(base.get("lib") or {}), **settings.lib.get(case["backend"], {})}
    if lib:
        case["lib"] = lib
    if settings.layout:  # the layout the case's files are created with (CephFS), over the case's own
        case["_layout"] = [{**((base.get("_layout") or [{}])[0]), **settings.layout[0]}]
    case["reps"] = reps
    if base.get("name") == case_label(base):   # a name made from the case names the case that runs
        case["name"] = case_label(case)
    chosen = eff.get("mca.io", DEFAULT)
    io = space.ctx.io_fixed if chosen == DEFAULT else chosen
    return case, io, dict(settings.mca)


def rates_of(result: dict[str, Any], op: str) -> list[float]:
    cases = result.get("cases") or []
    if not cases:
        return []
    return [float(p["bw_mib"]) for p in cases[0].get("phases") or [] if p.get("op") == op and p.get("bw_mib")]


class EngineTrials:
    """The real evaluator: each call is one `pario-engine` launch of the case, stored as a run."""

    def __init__(self, *, space: Space, base: Case, ranks: int, engine: str, mpi: MPI, directory: str | None,
                 launcher: str, store: Store | None, timeout: float | None, ceiling: dict[str, Any] | None = None,
                 facts: dict[str, Any] | None = None, observer: RunObserver | None = None, both_ops: bool = False,
                 warmup: int = 1, nodes: int | None = None):
        self.space, self.base, self.ranks, self.engine, self.mpi = space, base, ranks, engine, mpi
        self.directory, self.launcher, self.store, self.timeout = directory, launcher, store, timeout
        self.ceiling, self.facts = ceiling, dict(facts or {})
        self.observer = observer or NullObserver()
        self.both_ops = both_ops
        self.nodes = nodes   # --nodes: every trial's ranks over this many nodes
        # The first repetition of a launch runs 2-10x slower here (new file, cold allocator and page
        # cache): it is run but not counted, so a one-repetition rung measures the steady rate.
        self.warmup = warmup

    def run(self, config: Config, reps: int, role: str) -> Measured:
        case, io, mca = apply(self.space, self.base, config, reps + self.warmup, self.both_ops)
        try:
            validate.check_all([case], self.ranks)
        except ParioError as exc:
            return Measured([], "failed", f"not runnable: {exc}")
        facts = {**self.facts, "role": role, "config": dict(config), "warmup": self.warmup}   # (results leaves it out)
        request = RunRequest(cases=[case], ranks=self.ranks, engine=self.engine, mpi=self.mpi,
                             scratch=Scratch(self.directory), timeout=self.timeout, io=io, launcher=self.launcher,
                             ceiling=self.ceiling, no_probe=self.ceiling is None, facts={"tune": facts}, mca=mca,
                             nodes=self.nodes)
        record = execute(request, self.observer)
        run_id = None
        if self.store is not None:
            session = self.facts.get("session")
            # the trial as the bench command that re-runs it (every trial of a session ran under one `pario
            # tune` command, which told `pario results` nothing of what each measured)
            command = bench_command(case, self.ranks, io, mca, nodes=self.nodes)
            head = f"tune {session} {role}: {headline(record.result)}" if session else headline(record.result)
            run_id = self.store.add_run(kind="tune", command=command, spec=record.spec, env=record.env,
                                        result=record.result, status=record.status, headline=head)
        cases = record.result.get("cases") or []
        checks = ((cases[0].get("hints") or {}).get("check") or []) if cases else []
        objective = self.space.ctx.objective
        other = {op: rates_of(record.result, op)[self.warmup:] for op in case["ops"] if op not in (objective, "verify")}
        rates = rates_of(record.result, objective)
        other["warmup"] = rates[: self.warmup]
        return Measured(rates[self.warmup:], record.status, record.message, run_id, checks, other)
