"""A tuning session of `pario tune`, as records: the tuner (tune/) makes them, the store keeps
them, the reporters (report/) render them. No I/O here.

Fields added by `pario tune` itself (issue 12) beyond the first sketch: a trial may take several
launches (a short run first, more repetitions if it is not pruned), so it lists all its `runs`;
`ratio` is its median over the default's; `confirm` is the winner re-run beside the last control;
the session keeps what a resume needs (`context`, `budget`, `seed`, `command`) and what the report
states (`incumbent`, `notes`, `importance_method`); the winner says how it differs from the case as
given (`case_changes`, as bench flags) besides its settings, and its `verdict` beyond the noise."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Trial:
    number: int
    settings: dict[str, str]        # settings-model keys -> values; {} is the default configuration
    state: str                      # complete | pruned | failed | control (a re-run of the default) | confirm
    rates: list[float] = field(default_factory=list)   # MiB/s of each repetition
    median: float | None = None
    run_id: int | None = None       # the stored run behind it (the first, when there are several)
    started: str = ""               # ISO time
    note: str = ""
    runs: list[int] = field(default_factory=list)      # every stored run of this trial, in order
    ratio: float | None = None      # median / the default's median (controls so far)
    job: str = ""                   # `pario tune --submit`: the Slurm job (ARRAY_TASK) of its last launch, so
                                    # that --resume finds what it measured while no pario was there
    role: str = ""                  # what the search began it as: guess | proposal | control | confirm, so
                                    # that --resume takes up a trial interrupted while it ran ("": unknown)


@dataclass
class Dropped:
    """A knob left out of the search, and why (the effective settings showed it did not apply)."""
    key: str
    reason: str
    evidence: str = ""              # the run that showed it (a measured drop), or "" (predicted)


@dataclass
class Winner:
    settings: dict[str, str]
    gain: float                     # winner median / default median
    interval: tuple[float, float]   # confidence interval of the gain
    method: str                     # how the interval was computed (bootstrap, rank test, ...)
    runs: list[int] = field(default_factory=list)
    rendered: dict[str, str] = field(default_factory=dict)     # dialect -> the settings in it
    verdict: str = ""               # faster | within noise | slower | too few samples (analysis.noise) | default kept
    trial: int | None = None        # the trial it came from
    median: float | None = None     # MiB/s of the winner and of the default, over the runs behind the gain
    default_median: float | None = None
    case_changes: dict[str, str] = field(default_factory=dict)  # strategy/collective/... changed from the case
    bench_flags: str = ""           # the whole winner as `pario bench` flags
    untranslated: dict[str, list[str]] = field(default_factory=dict)  # dialect -> settings it cannot say
    # trials measured as well (3+ repetitions) that the noise test cannot tell from the winner, best first:
    # [{"trial": N, "median": MiB/s, "reps": R, "settings": {...}}]; any of them is as good a choice
    alike: list[dict[str, Any]] = field(default_factory=list)
    # the winner's and the default's medians against the session's device ceiling (analysis.tune_cache.judge):
    # {"judged", "ceiling_mib", "streams", "source", "above": ["winner", "default"], "line"}; {} before it existed
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        """What to use: a trial faster than the default beyond the noise, or the default kept (nothing
        beat it). A best candidate within the noise of the default, or slower, is not a winner."""
        return self.verdict == "faster" or self.trial is None


@dataclass
class TuningSession:
    id: int | None
    case: dict[str, Any]            # the engine case being tuned (schemas/spec.schema.json)
    objective: str                  # write | read
    ranks: int
    space: dict[str, list[str]]     # knob -> the values searched
    trials: list[Trial] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    importance: dict[str, float] = field(default_factory=dict)
    winner: Winner | None = None
    status: str = "running"         # running | done | interrupted
    incumbent: int | None = None    # the trial that holds the best place so far
    challenger: int | None = None   # a trial racing the incumbent right now: --resume finishes that race
    budget: dict[str, Any] = field(default_factory=dict)   # trials, seconds, reps of each rung
    seed: int = 0
    command: str = ""
    context: dict[str, Any] = field(default_factory=dict)  # the facts the space was built from (resume)
    notes: list[str] = field(default_factory=list)          # drift of the controls, an exhausted space, ...
    importance_method: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def note(self, text: str) -> None:
        """A note said once: a resumed session that reaches the same end again does not repeat it."""
        if text not in self.notes:
            self.notes.append(text)

    def counted(self) -> int:
        """Trials as the budget counts them: every record but an interrupted one that no search took up
        (--resume goes on with it, or leaves it and says why): a configuration's trial is charged once."""
        return sum(1 for t in self.trials if t.state != "interrupted")

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> TuningSession:
        """A stored session back (unknown keys, e.g. of a newer pario, are left out)."""
        def known(kind, d):
            return {k: v for k, v in d.items() if k in kind.__dataclass_fields__}
        out = cls(**{k: v for k, v in known(cls, doc).items() if k not in ("trials", "dropped", "winner")})
        out.trials = [Trial(**known(Trial, t)) for t in doc.get("trials") or []]
        out.dropped = [Dropped(**known(Dropped, d)) for d in doc.get("dropped") or []]
        w = doc.get("winner")
        if w:
            w = known(Winner, w)
            w["interval"] = tuple(w.get("interval") or (0.0, 0.0))
            out.winner = Winner(**w)
        return out
