"""A tuning session of `pario tune`, as records: the tuner (tune/) makes them, the store keeps
them, the reporters (report/) render them. No I/O here."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Trial:
    number: int
    settings: dict[str, str]        # settings-model keys -> values; {} is the default configuration
    state: str                      # complete | pruned | failed | control (a re-run of the default)
    rates: list[float] = field(default_factory=list)   # MiB/s of each repetition
    median: float | None = None
    run_id: int | None = None       # the stored run behind it
    started: str = ""               # ISO time
    note: str = ""


@dataclass
class Dropped:
    """A knob left out of the search, and why (the effective settings showed it did not apply)."""
    key: str
    reason: str


@dataclass
class Winner:
    settings: dict[str, str]
    gain: float                     # winner median / default median
    interval: tuple[float, float]   # confidence interval of the gain
    method: str                     # how the interval was computed (bootstrap, rank test, ...)
    runs: list[int] = field(default_factory=list)
    rendered: dict[str, str] = field(default_factory=dict)     # dialect -> the settings in it


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
