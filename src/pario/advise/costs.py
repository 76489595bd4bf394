"""What an I/O pattern costs on this system, from engine runs: a Query names the cases a finding
needs measured (as `pario bench` options), Measured is what one case cost, the Model is the
per-call cost and bandwidth fitted from the calibration's sizes, and `estimate` turns a finding's
Cost spec into seconds at stake with the sentence that says how.

Pure: running and storing the measurements is calibrate.py's; this module reads result documents."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Any, Union

from pario.model.case import MD_OPS
from pario.model.units import exact, human, seconds

# ---- what to measure ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """Cases to run at `ranks` ranks; `key` identifies the question (stored with the runs); `pin`
    the pattern whatever size it is measured at (a system's calibration keeps its answer under it)."""
    key: str
    ranks: int
    cases: tuple[tuple[str, str], ...]   # (name, JSON of the `pario bench` case options)
    why: str = ""
    nodes: int | None = None             # the ranks over this many nodes (pario bench --nodes)
    pin: str = ""

    @staticmethod
    def of(key: str, ranks: int, cases: dict[str, dict[str, Any]], why: str = "", nodes: int | None = None,
           pin: str = "") -> Query:
        return Query(key, ranks, tuple((n, json.dumps(o, sort_keys=True)) for n, o in cases.items()), why, nodes,
                     pin or key)

    def options(self) -> dict[str, dict[str, Any]]:
        return {n: json.loads(o) for n, o in self.cases}


@dataclass
class Measured:
    """One case as the engine ran it: medians over repetitions of the first timed operation."""
    name: str
    op: str
    ranks: int
    bytes: int            # all ranks, one phase
    calls: int            # per rank, one phase
    time_s: float         # open to close, median
    xfer_s: float         # the ranks' mean time in transfer calls, median
    spread: float         # (max - min) / median of time_s over repetitions
    reps: int
    run_id: int | None = None
    kind: str = "calibration"
    lo: float = 0.0       # the fastest and slowest repetition's open-to-close time
    hi: float = 0.0
    load: float | None = None   # the 1-minute load average when it was measured (a busy machine's figure)
    # the ranks' spread in each repetition, (slowest - fastest) / mean of their transfer times: how
    # much ranks moving the same bytes differ on this system (measure.noise_bound judges a job's
    # spread against all of them)
    rank_spreads: list[float] | None = None

    @property
    def per_call_s(self) -> float:
        return self.xfer_s / self.calls if self.calls else 0.0

    @property
    def per_byte_s(self) -> float:
        return self.time_s / self.bytes if self.bytes else 0.0

    def where(self) -> str:
        out = f"{self.kind} run {self.run_id}" if self.run_id is not None else f"{self.kind} (not stored)"
        return out + (f", load {self.load:.1f}" if self.load is not None else "")


def _rank_spreads(phases: list[dict[str, Any]]) -> list[float] | None:
    out = []
    for p in phases:
        xfer = [float(x) for x in (p.get("ranks") or {}).get("xfer") or []]
        if len(xfer) > 1 and statistics.mean(xfer) > 0:
            out.append((max(xfer) - min(xfer)) / statistics.mean(xfer))
    return out or None


def measured_cases(result: dict[str, Any], names: list[str], run_id: int | None, kind: str) -> dict[str, Measured]:
    """Measured of each case of an engine result document, by the names given in case order: one
    per timed operation (the first data operation under the case's name, the others and every
    metadata phase as NAME:OP)."""
    out: dict[str, Measured] = {}
    for case, name in zip(result.get("cases") or [], names):
        phases = case.get("phases") or []
        ops = list(dict.fromkeys(p["op"] for p in phases))
        for i, op in enumerate(ops):
            mine = [p for p in phases if p["op"] == op]
            times = [p["open_to_close_s"] for p in mine if p.get("open_to_close_s")]
            if not times:
                continue
            xfers = [statistics.mean((p.get("ranks") or {}).get("xfer") or [p.get("xfer_s") or 0]) for p in mine]
            med = statistics.median(times)
            metadata = op in MD_OPS
            key = name if i == 0 and not metadata else f"{name}:{op}"
            out[key] = Measured(name=key, op=op, ranks=len((mine[0].get("ranks") or {}).get("xfer") or [1]),
                                bytes=int(mine[0].get("bytes") or 0),
                                calls=int(mine[0].get("ops") or 0) if metadata else int(case.get("ops_per_rank") or 0),
                                time_s=med, xfer_s=statistics.median(xfers),
                                spread=(max(times) - min(times)) / med if med else 0.0, reps=len(times),
                                run_id=run_id, kind=kind, lo=min(times), hi=max(times),
                                rank_spreads=_rank_spreads(mine))
    return out


# ---- the per-call model ------------------------------------------------------------------------

# The calibration's sizes: from well under a block to well over any stripe. Each case moves
# enough calls or bytes to take tens of milliseconds, so a repetition is above timer noise.
MODEL_SIZES = {"p512": (512, 16 << 20), "p8k": (8 << 10, 64 << 20), "p1m": (1 << 20, 64 << 20),
               "p8m": (8 << 20, 128 << 20)}
# the same sizes of call on fewer bytes: the calibration advise makes unasked (about 0.4 GiB
# written in all, a few seconds on a local disk; --calibrate measures MODEL_SIZES)
QUICK_SIZES = {"p512": (512, 2 << 20), "p8k": (8 << 10, 16 << 20), "p1m": (1 << 20, 32 << 20),
               "p8m": (8 << 20, 64 << 20)}


def model_query(ranks: int = 1, quick: bool = False) -> Query:
    cases: dict[str, dict[str, Any]] = {}
    sizes = QUICK_SIZES if quick else MODEL_SIZES
    for name, (xfer, block) in sizes.items():
        cases[f"w-{name}"] = {"backend": "posix", "strategy": "fpp", "transfer": xfer, "block": block,
                              "ops": ["write"], "reps": 3}
        cases[f"r-{name}"] = {"backend": "posix", "strategy": "fpp", "transfer": xfer, "block": block,
                              "ops": ["read"], "reps": 3}
    for name in ("p8k", "p1m"):
        xfer, block = sizes[name]
        block //= 2
        cases[f"m-{name}"] = {"backend": "mpiio", "strategy": "shared", "transfer": xfer, "block": block,
                              "ops": ["write"], "reps": 3}
    cases["md"] = {"workload": "metadata", "files_per_dir": 256, "file_size": 0, "reps": 3,
                   "ops": ["create", "stat", "open_close", "remove"]}
    return Query.of("model" if not quick else "model-quick", ranks, _with_sync_rounds(cases),
                    "the cost of one call and of one byte on this file system", pin="model")


# The cost of one fsync, in rounds spread over the whole calibration. One sync here costs ~0.3 ms or
# ~4 ms (a journal commit shared with other writers; 12% of 1,368 syncs 22 ms apart on this VM,
# hardly more often right after a slow one), and the old figure, a median of 5 syncs of a 64 KiB
# file back to back, drew one of the two (3.5, 0.41, 4.0 ms in three calibrations of one VM). A job
# that syncs n times pays n times the mean, so each round does what such a job does (SYNC_WRITES
# writes of 4 KiB, each followed by fsync, then the same writes unsynced: the difference per write is
# the round's cost of one sync) and the rounds are set one between each two of the other cases (the
# engine runs them in this order), over the whole calibration rather than within a few milliseconds.
FSYNC_ROUNDS = 12
SYNC_WRITES = 16
_SYNC = {"backend": "posix", "strategy": "fpp", "transfer": 4 << 10, "block": SYNC_WRITES * (4 << 10),
         "ops": ["write"], "reps": 1}


def _with_sync_rounds(cases: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The cases with FSYNC_ROUNDS rounds (fsync.K: writes each followed by fsync; nofsync.K: the
    same writes, right after) set evenly among them."""
    names = list(cases)
    out: dict[str, dict[str, Any]] = {}
    for k in range(1, FSYNC_ROUNDS + 1):
        for name in names[(k - 1) * len(names) // FSYNC_ROUNDS:k * len(names) // FSYNC_ROUNDS]:
            out[name] = cases[name]
        out[f"fsync.{k}"] = dict(_SYNC, fsync_per_write=True)
        out[f"nofsync.{k}"] = dict(_SYNC)
    return out


def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile from the normal one (Cornish-Fisher expansion, Abramowitz & Stegun
    26.7.5): within 0.01 of the tables at 5 degrees of freedom and more for p = 0.99."""
    z = statistics.NormalDist().inv_cdf(p)
    v = float(dof)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3))


# How often a figure may be beaten by what it bounds: chosen before looking at any case (issue 25),
# for the ranks' noise (measure.noise_bound) and the cost of a job's syncs (sync_costs) alike.
FALSE_ALARM = 0.01


def sync_costs(measured: dict[str, Measured]) -> tuple[float | None, float | None, int]:
    """(mean cost of one fsync, upper bound of that mean, rounds) from the calibration's rounds:
    the mean is what a job's many syncs cost each (seconds at stake); the bound, the mean's one-sided
    upper confidence limit at 1 - FALSE_ALARM (Student's t over the rounds), is the most they can
    cost here: what a slow rank's extra time is set against before its syncs are ruled out as the
    cause. A calibration kept before the rounds (one "fsync" and one "nofsync" case) gives its one
    difference as both."""
    pairs = [(m, measured[f"no{k}"]) for k, m in measured.items()
             if k.startswith("fsync.") and k[6:].isdigit() and f"no{k}" in measured]
    each = [max(0.0, synced.time_s - plain.time_s) / max(1, synced.calls) for synced, plain in pairs]
    if len(each) >= 2:
        mean = statistics.fmean(each)
        return mean, mean + t_quantile(1 - FALSE_ALARM, len(each) - 1) * statistics.stdev(each) / len(each) ** 0.5, \
            len(each)
    if "fsync" in measured and "nofsync" in measured:
        one = max(0.0, measured["fsync"].time_s - measured["nofsync"].time_s)
        return one, one, 1
    return None, None, 0


@dataclass
class Line:
    """t(size) = c0 + size / bw for one call (seconds)."""
    c0: float
    bw: float          # bytes per second

    def call(self, size: float) -> float:
        return self.c0 + size / self.bw

    @property
    def break_even(self) -> float:
        """The size at which the fixed cost of a call is half its time."""
        return self.c0 * self.bw


def fit(points: list[tuple[int, float]]) -> Line | None:
    """Least squares of per-call times at several sizes, in relative error (each size weighs the
    same whether its calls take a microsecond or a second)."""
    pts = [(s, t) for s, t in points if t > 0]
    if len(pts) < 2:
        return None
    # minimise sum ((c0 + s*k - t) / t)^2 over c0 and k = 1/bw: 2x2 normal equations
    a11 = sum(1 / t ** 2 for s, t in pts)
    a12 = sum(s / t ** 2 for s, t in pts)
    a22 = sum(s * s / t ** 2 for s, t in pts)
    b1 = sum(1 / t for s, t in pts)
    b2 = sum(s / t for s, t in pts)
    det = a11 * a22 - a12 * a12
    if det <= 0:
        return None
    c0, k = (b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det
    if k <= 0:
        return None
    return Line(max(c0, 0.0), 1 / k)


@dataclass
class Model:
    """The calibration of one file system: a call's fixed cost and the bandwidth per interface."""
    write: Line | None = None
    read: Line | None = None
    mpiio_write: Line | None = None
    fsync_s: float | None = None       # one fsync, the mean over the calibration's rounds (sync_costs)
    fsync_hi: float | None = None      # the most that mean can be here (None: fsync_s)
    fsync_rounds: int = 0
    md: dict[str, float] = field(default_factory=dict)     # metadata op -> seconds per file
    runs: list[int] = field(default_factory=list)
    spread: float = 0.0
    where: str = ""
    load: float | None = None

    def line(self, module: str, op: str) -> Line | None:
        if module == "mpiio" and op == "write" and self.mpiio_write:
            return self.mpiio_write
        return self.write if op == "write" else self.read

    def describe(self) -> str:
        parts = []
        if self.write:
            parts.append(f"write(2): {self.write.c0 * 1e6:.2f} us per call + {self.write.bw / (1 << 20):.0f} MiB/s")
        if self.read:
            parts.append(f"read(2): {self.read.c0 * 1e6:.2f} us + {self.read.bw / (1 << 20):.0f} MiB/s")
        return "; ".join(parts)


def model_of(measured: dict[str, Measured]) -> Model:
    out = Model(runs=sorted({m.run_id for m in measured.values() if m.run_id is not None}))
    for op, attr in (("w", "write"), ("r", "read"), ("m", "mpiio_write")):
        pts = [(MODEL_SIZES[n][0], measured[f"{op}-{n}"].per_call_s) for n in MODEL_SIZES
               if f"{op}-{n}" in measured]
        setattr(out, attr, fit(pts))
    out.fsync_s, out.fsync_hi, out.fsync_rounds = sync_costs(measured)
    for op in MD_OPS:
        m = measured.get(f"md:{op}")
        if m and m.calls:
            out.md[op] = m.time_s / m.calls
    spreads = [m.spread for m in measured.values()]
    out.spread = statistics.median(spreads) if spreads else 0.0
    loads = [m.load for m in measured.values() if m.load is not None]
    out.load = max(loads) if loads else None
    return out


# ---- estimating seconds at stake ---------------------------------------------------------------


@dataclass
class FromLog:
    """Seconds the log itself shows the fix would save (no measurement needed)."""
    seconds: float
    how: str


@dataclass
class Coalesce:
    """`calls` requests moving `nbytes` took `log_s` in the job; the better pattern moves the same
    bytes in requests of `target` bytes, at the cost the model gives for `module`/`op`."""
    log_s: float
    calls: int
    nbytes: int
    size: int                  # the job's typical request size
    target: int
    module: str
    op: str


@dataclass
class Ratio:
    """The job's `log_s` scaled by what the fix costs against the job's own pattern, both measured
    here on the same bytes (the candidate's plan: cases "before" and "after")."""
    log_s: float
    what: str                  # e.g. "collective writes instead of independent ones"


@dataclass
class PerOp:
    """`count` operations the fix removes, at the model's cost of one (`md` per-file, or fsync)."""
    count: int
    op: str                    # fsync, or a metadata phase: create | stat | open_close | remove
    cap_s: float               # never more than the time the job spent where those ops happen
    what: str


@dataclass
class NotCosted:
    why: str


Cost = Union[FromLog, Coalesce, Ratio, PerOp, NotCosted]


_s = seconds


def estimate(cost: Cost, model: Model | None, pair: dict[str, Measured] | None = None) -> tuple[float | None, str]:
    """(seconds at stake or None, how that figure was obtained)."""
    if isinstance(cost, NotCosted):
        return None, f"not costed: {cost.why}"
    if isinstance(cost, FromLog):
        return max(0.0, cost.seconds), cost.how
    if isinstance(cost, Coalesce):
        calls_after = max(1, -(-cost.nbytes // cost.target))
        after = (pair or {}).get("after")
        if after is not None and after.bytes:
            # the better pattern measured here at its own size: no extrapolation
            better = cost.nbytes * after.time_s / after.bytes
            saving = max(0.0, cost.log_s - better)
            before = (pair or {}).get("before")
            here = f"; the job's own {cost.op}s took {_s(cost.nbytes * before.time_s / before.bytes)} here" \
                if before is not None and before.bytes else ""
            return saving, (f"the log: {_s(cost.log_s)} in {cost.calls:,} {cost.op}s of ~{human(cost.size)}; "
                            f"the same {human(cost.nbytes)} in {calls_after:,} {cost.op}s of "
                            f"{exact(cost.target, 'GMk')} take {_s(better)} here ({after.where()}, "
                            f"{human(after.bytes)} measured{here})")
        line = model.line(cost.module, cost.op) if model else None
        if line is None:
            return None, "not costed: no calibration of this file system (pario advise --calibrate)"
        better = calls_after * line.call(cost.target)
        saving = max(0.0, cost.log_s - better)
        return saving, (f"the log: {_s(cost.log_s)} in {cost.calls:,} {cost.op}s of ~{human(cost.size)}; "
                        f"the same {human(cost.nbytes)} in {calls_after:,} {cost.op}s of {exact(cost.target, 'GMk')} "
                        f"cost {_s(better)} here by the calibration's fit ({model.where if model else ''}: "
                        f"{line.c0 * 1e6:.2f} us per call + {line.bw / (1 << 20):.0f} MiB/s)")
    if isinstance(cost, PerOp):
        unit = (model.fsync_s if cost.op == "fsync" else (model.md or {}).get(cost.op)) if model else None
        if unit is None:
            return None, "not costed: no calibration of this file system (pario advise --calibrate)"
        saving = min(cost.cap_s, cost.count * unit)
        return saving, (f"{cost.count:,} {cost.what} at {_s(unit)} each here ({model.where if model else ''}), "
                        f"capped at the {_s(cost.cap_s)} the log shows")
    if isinstance(cost, Ratio):
        before, after = (pair or {}).get("before"), (pair or {}).get("after")
        if not before or not after:
            return None, (f"not costed: {cost.what} was not measured here (pario advise measures it unless "
                          "--no-calibrate)")
        ratio = after.time_s / before.time_s if before.time_s else 1.0
        saving = max(0.0, cost.log_s * (1 - ratio))
        return saving, (f"the log: {_s(cost.log_s)}; {cost.what} took {ratio:.2f}x the time of the job's "
                        f"pattern on the same bytes here ({_s(after.time_s)} vs {_s(before.time_s)}, "
                        f"{after.ranks} rank{'s' if after.ranks > 1 else ''}, {before.where()})")
    return None, "not costed"
