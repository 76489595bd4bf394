"""Settings to try, ranked by predicted time: the knobs that act on this pattern on this system
(Lustre stripe count and size, aggregators as cb_config_list or Cray's multiplier, Cray lockahead,
romio_cb_write/read, file-domain alignment, collective or independent calls, shared file or file
per process), each candidate predicted by the model and spoken in the user's dialect through the
settings model (settings.dialects: a ROMIO hints file, MPICH_MPIIO_HINTS, Open MPI --mca flags,
lfs setstripe)."""
from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from pario.predict.model import MPIIO_APIS, Prediction, predict
from pario.predict.pattern import Pattern, layout
from pario.predict.system import System

MAX_CANDIDATES = 2000
SAME = 1.02
DIALECT = {"cray": "cray", "romio": "romio", "ompio": "ompi"}


@dataclass
class Candidate:
    hints: dict[str, str] = field(default_factory=dict)
    case: dict[str, Any] = field(default_factory=dict)     # changes to the bench case (strategy, collective)
    stripe_count: int | None = None
    stripe_size: int | None = None
    prediction: Prediction | None = None

    def key(self) -> tuple:
        return (tuple(sorted(self.hints.items())), tuple(sorted(self.case.items())), self.stripe_count,
                self.stripe_size)


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


def _knobs(system: System, pat: Pattern) -> dict[str, list[Any]]:
    """The values each knob may take here (the pattern's own value among them)."""
    kind, impl = system["kind"], system["impl"]
    count, size = layout(pat, system["stripe_count"], system["stripe_size"], system["servers"])
    knobs: dict[str, list[Any]] = {}
    if pat.metadata:
        if kind == "lustre":
            knobs["stripe_count"] = ["default"] + sorted({1, system["servers"]} - {count})
        return knobs
    api, shared = pat.case["backend"], pat.case["strategy"] in ("shared", "fpp")
    if shared and pat.ranks > 1 and api in ("posix", "mpiio"):
        knobs["strategy"] = ["shared", "fpp"]
    if kind == "lustre":
        knobs["stripe_count"] = ["default"] + sorted({c for c in _powers(system["servers"])} | {system["servers"]}
                                                     - {count})
        knobs["stripe_size"] = ["default"] + sorted({1 << 20, 4 << 20} - {size})
    if api in MPIIO_APIS and pat.case["strategy"] == "shared":
        knobs["collective"] = [True, False]
        op = pat.op
        if impl != "cray":  # Cray MPICH buffers collective calls unless told not to: -c or not says it
            knobs[f"romio_cb_{op}"] = ["default", "enable", "disable"]
        if impl == "cray":
            knobs["cray_cb_nodes_multiplier"] = ["default"] + [m for m in (1, 2, 4, 8, 16, 32) if m <= pat.ranks]
            if system["lockahead"] and op == "write":
                knobs["cray_cb_write_lock_mode"] = ["default", "0", "2"]
        else:
            knobs["cb_config_list"] = ["default"] + [f"*:{k}" for k in (1, 2, 4, 8) if k <= pat.ranks_per_node]
            if system["driver"] == "generic" and kind in ("lustre", "gpfs", "beegfs", "cephfs"):
                knobs["striping_unit"] = ["default", "stripe"]
    return knobs


def _apply(pat: Pattern, choice: dict[str, Any], size: int) -> tuple[Pattern, Candidate]:
    case = copy.deepcopy(pat.case)
    hints = dict(case.get("hints") or {})
    cand = Candidate()
    for knob, value in choice.items():
        if knob == "strategy":
            if value != case["strategy"]:
                case["strategy"] = value
                cand.case["strategy"] = value
                if value == "fpp":
                    case["collective"] = False
        elif knob == "collective":
            if choice.get("strategy") == "fpp":
                continue  # a file per process: pario's -F writes each file on its own
            if bool(case.get("collective")) != value:
                case["collective"] = value
                cand.case["collective"] = value
        elif value == "default":
            continue  # as the pattern has it
        elif knob == "stripe_count":
            cand.stripe_count = value
        elif knob == "stripe_size":
            cand.stripe_size = value
        else:
            v = str(cand.stripe_size or size) if value == "stripe" else str(value)
            if hints.get(knob) != v:
                cand.hints[knob] = v
            hints[knob] = v
    if hints:
        case["hints"] = hints
    new = copy.copy(pat)
    new.case = case
    new.stripe_count = cand.stripe_count if cand.stripe_count is not None else pat.stripe_count
    new.stripe_size = cand.stripe_size if cand.stripe_size is not None else pat.stripe_size
    return new, cand


def ranked(system: System, pat: Pattern, top: int = 10) -> tuple[Prediction, list[Candidate]]:
    """(the pattern's own prediction, the `top` candidates by predicted time, fastest first).
    Candidates that only differ in knobs that do not act here predict the same time; the one with
    the fewest changes is kept."""
    base = predict(system, pat)
    knobs = _knobs(system, pat)
    _, size = layout(pat, system["stripe_count"], system["stripe_size"], system["servers"])
    names = list(knobs)
    combos = itertools.product(*(knobs[n] for n in names))
    seen: dict[tuple, Candidate] = {}
    for values in combos:
        if len(seen) >= MAX_CANDIDATES:
            break
        choice = dict(zip(names, values))
        if choice.get("collective") is False or choice.get("strategy") == "fpp":
            # independent calls: the aggregation knobs do not act; keep one of them
            if any(choice.get(k) not in (None, "default") for k in
                   ("cb_config_list", "cray_cb_nodes_multiplier", "cray_cb_write_lock_mode", "striping_unit",
                    f"romio_cb_{pat.op}")):
                continue
        new, cand = _apply(pat, choice, size)
        if cand.key() in seen:
            continue
        cand.prediction = predict(system, new)
        seen[cand.key()] = cand
    out = sorted(seen.values(), key=lambda c: (round(_secs(c), 9), _changes(c)))
    kept: list[Candidate] = []
    for c in out:
        # within 2% of a candidate already kept that changes no more: the same advice, said longer
        if any(_secs(c) <= _secs(k) * SAME and _changes(k) <= _changes(c) for k in kept):
            continue
        kept.append(c)
        if len(kept) >= top:
            break
    return base, kept


def _secs(c: Candidate) -> float:
    return c.prediction.seconds if c.prediction else float("inf")


def _changes(c: Candidate) -> int:
    return len(c.hints) + len(c.case) + (c.stripe_count is not None) + (c.stripe_size is not None)


def spoken(system: System, pat: Pattern, cand: Candidate) -> list[str]:
    """The candidate in the user's dialects: the MPI-IO hints in the system's MPI's own dialect,
    the layout as lfs setstripe, case changes as bench flags."""
    from pario.settings import dialects
    from pario.settings.model import Settings
    out: list[str] = []
    if cand.case.get("strategy"):
        out.append({"fpp": "a file per process (-F)", "shared": "one shared file"}.get(cand.case["strategy"],
                                                                                       cand.case["strategy"]))
    if "collective" in cand.case:
        out.append("collective calls (-c)" if cand.case["collective"] else "independent calls (no -c)")
    if cand.hints:
        text = dialects.render(Settings(hints=dict(cand.hints)), DIALECT.get(system["impl"], "romio"))
        out += [line for line in text.splitlines() if line and not line.startswith("#")]
    layout_ = {}
    if cand.stripe_count is not None:
        layout_["stripe_count"] = str(cand.stripe_count)
    if cand.stripe_size is not None:
        layout_["stripe_size"] = str(cand.stripe_size)
    if layout_:
        out.append(dialects.render_lfs(Settings(layout=[layout_]), "DIR").strip())
    return out or ["(as given)"]
