"""A recorded grid as an evaluator: every configuration of a space measured beforehand
(benchmarks/tune/measure_grid.py), and each evaluation draws recorded repetitions at random, so the
search meets the machine's real noise without running anything. The sample-efficiency benchmark
(benchmarks/tune/replay.py) and the search's tests use it."""
from __future__ import annotations

import random
import statistics
from typing import Any

from pario.model.errors import ParioError
from pario.tune.space import Config, Space
from pario.tune.trials import Measured

_OTHER = {"write": "read", "read": "write"}


def _as_objective(config: Config, objective: str) -> Config:
    """A grid measures writes and reads with one ROMIO value for both: name it after the objective."""
    other = _OTHER[objective]
    return {(k[: -len(other)] + objective if k.startswith(("romio_cb_", "romio_ds_")) and k.endswith(other) else k): v
            for k, v in config.items()}


def samples_of(entry: dict[str, Any], op: str, warmup: bool = True) -> list[float]:
    """The counted repetitions of a grid entry: each launch's first one is its warm-up."""
    return [r for launch in entry.get("launches") or [] if launch.get("status") == "complete"
            for r in (launch.get(op) or [])[1 if warmup else 0:]]


class GridReplay:
    def __init__(self, grid: dict[str, Any], space: Space, seed: int = 0):
        self.space, self.rng = space, random.Random(seed)
        op = space.ctx.objective
        self.samples: dict[str, list[float]] = {}
        for entry in grid.get("configs") or []:
            rates = samples_of(entry, op)
            if rates:
                self.samples[space.canonical(_as_objective(entry["config"], op))] = rates
        if not self.samples:
            raise ParioError(f"the grid has no {op} rates")
        missing = [c for c in space.grid() if space.canonical(c) not in self.samples]
        if missing:
            raise ParioError(f"the grid lacks {len(missing)} configuration(s) of this space, e.g. {missing[0]}; "
                             "measure it again with benchmarks/tune/measure_grid.py")

    def median(self, config: Config) -> float:
        return statistics.median(self.samples[self.space.canonical(config)])

    def best(self) -> float:
        return max(statistics.median(s) for s in self.samples.values())

    def run(self, config: Config, reps: int, role: str) -> Measured:
        pool = self.samples[self.space.canonical(config)]
        return Measured([self.rng.choice(pool) for _ in range(reps)])


class _NoJobs:
    def list_jobs(self, **_kw: Any) -> list[dict[str, Any]]:
        return []

    def runs_of_job(self, job_id: str) -> list[int]:
        return []


class GridArrays(GridReplay):
    """A recorded grid as `pario tune --submit`'s evaluator (tune.jobs.BatchedSearch): a round's
    launches drawn in order, as a job array with --max-jobs 1 runs them; `rounds` keeps each round
    (stage, [(trial, repetitions, role)]); no job records, so a resume has nothing to pick up."""

    def __init__(self, grid: dict[str, Any], space: Space, seed: int = 0):
        super().__init__(grid, space, seed)
        self.store = _NoJobs()
        self.rounds: list[tuple[str, list[tuple[int, int, str]]]] = []

    def run_batch(self, launches: list[tuple[Any, Config, int, str]], stage: str = "") -> list[Measured]:
        self.rounds.append((stage, [(t.number, reps, role) for t, _c, reps, role in launches]))
        return [self.run(config, reps, role) for _t, config, reps, role in launches]

    def taken(self, job_ids: list[str]) -> None:
        """(no job records to mark)"""
