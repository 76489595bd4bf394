"""Advice for a log from a system pario has a model of but no calibration: its costs predicted by
`pario predict` (pario.predict.for_pattern) instead of measured here. The system is a pario predict
system file (examples/systems/, or one `pario predict --calibrate` wrote there), given with
`--system FILE.toml` or $PARIO_SYSTEM. Nothing is measured on this machine: a figure of this
machine never costs a fix for another system (advise/systems.py).

`Predicted` answers what advise asks of advise.measure.Measurer: the per-call model (a call's
fixed cost and one process's rate, the metadata cost per file, all from the system file) and each
pattern of a finding's plan, predicted at the job's own scale (its ranks over the system's nodes)
as a Measured of kind "predicted", with the model's interval as its fastest and slowest time."""
from __future__ import annotations

import math
import os
from typing import Any

from pario.advise.calibrate import Measurements, cases_of
from pario.advise.costs import Line, Measured, Model, Query
from pario.advise.job import Job
from pario.model.case import MD_OPS
from pario.model.errors import ParioError

ENV = "PARIO_SYSTEM"


def is_system_file(path: str) -> bool:
    """A pario predict system file (TOML, or a shipped system's name) rather than a calibration."""
    if path.endswith(".toml"):
        return True
    if os.sep in path or os.path.exists(path):
        return False
    from pario.predict.system import system_file
    try:
        system_file(path)
        return True
    except FileNotFoundError:
        return False


def from_environment(job: Job) -> tuple[Predicted | None, str]:
    """The model of the log's system from $PARIO_SYSTEM, or (None, why)."""
    path = os.environ.get(ENV)
    if not path:
        return None, f"no model of it is given either (--system SYSTEM.toml, a pario predict system file, or ${ENV})"
    return Predicted(path, job, f"${ENV}"), ""


class Predicted:
    """advise's measurer for a system pario has a model of: predictions, never measurements."""

    def __init__(self, path: str, job: Job, given: str = "--system"):
        from pario.predict import system
        self.system = system.load(path)
        self.path, self.given = path, given
        self.cal = None
        self.can_measure = False
        self.cap = None                  # predicted at the job's own size: nothing runs
        self.notes: list[str] = []
        self.model_: Model | None = None
        self.max_ranks = max(1, job.nprocs)
        cores = self.system.params.get("cores")
        hosts = len(set(job.hosts))
        self.nodes = hosts or (math.ceil(self.max_ranks / cores.value) if cores is not None else 1)
        if not hosts:
            self.notes.append(f"the log does not say its nodes: {self.max_ranks} ranks taken as {self.nodes} "
                              f"node{'s' if self.nodes > 1 else ''} of {self.system.name}"
                              + (f" ({cores.value} cores each)" if cores is not None else ""))
        self.why_not = (f"{given} {path} is pario predict's model of {self.system.name}: the costs are its "
                        "predictions for that system; nothing is measured here")

    def describe(self) -> str:
        return f"system model of {self.system.name} ({self.path}, pario predict)"

    def model(self) -> tuple[Model | None, str]:
        """The per-call model from the system's figures (one process's call cost and rate)."""
        s = self.system
        latency = float(s["call_latency"])
        m = Model(write=Line(latency, float(s["process_bw"])), read=Line(latency, float(s["process_read_bw"])),
                  mpiio_write=Line(latency, float(s["process_bw"])),
                  md={op: float(s["file_cost"]) for op in MD_OPS}, where=self.describe())
        self.model_ = m
        basis = sorted({p.status for n, p in s.params.items() if n in ("call_latency", "process_bw", "file_cost")})
        return m, (f"costed by the {self.describe()}, not measured: its figures are {', '.join(basis)} "
                   "(pario predict --system FILE shows each with its source)")

    def measure(self, queries: list[Query]) -> Measurements:
        """Each query's cases predicted on the system, at the query's ranks over the job's nodes."""
        out = Measurements()
        for q in queries:
            try:
                out[q.key] = self._predict(q)
            except ParioError as exc:
                out.why[q.key] = f"the model cannot predict it: {exc}"
        return out

    def _predict(self, q: Query) -> dict[str, Measured]:
        from pario.predict import for_pattern
        from pario.predict.pattern import from_case, geometry
        nodes = max(1, min(q.nodes or self.nodes, q.ranks))
        if q.ranks % nodes:
            nodes = math.gcd(q.ranks, nodes)
        run = {"nodes": nodes, "ranks_per_node": q.ranks // nodes}
        got: dict[str, Measured] = {}
        kind = f"predicted by the {self.describe()}"
        for name, case in zip(q.options(), cases_of(q)):
            ops = [o for o in case.get("ops", []) if o in ("write", "read")] or \
                [o for o in case.get("ops", []) if o in MD_OPS]
            for i, op in enumerate(ops):
                metadata = op in MD_OPS
                pat = from_case(case, run, None if metadata else op)
                pred = for_pattern(self.system, pat)
                geo = geometry(pat)
                key = name if i == 0 and not metadata else f"{name}:{op}"
                got[key] = Measured(name=key, op=op, ranks=q.ranks, bytes=int(pred.total),
                                    calls=int(round(geo.calls_per_rank)), time_s=pred.seconds,
                                    xfer_s=pred.seconds, spread=(pred.high - pred.low) / pred.seconds
                                    if pred.seconds else 0.0, reps=1, kind=kind, lo=pred.low, hi=pred.high)
        return got

    def rank_noise(self, ranks: int) -> tuple[float | None, str]:
        return None, f"not known: the job ran on {self.system.name}, which pario models but does not measure"


def document(pred: Any) -> dict[str, Any]:
    """What the advice document says of the model it was costed with."""
    return {"model": pred.path, "model_of": pred.system.name} if isinstance(pred, Predicted) else {}
