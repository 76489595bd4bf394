"""What `pario advise` finds, as records every layer can hold: the advisor (advise/) makes them,
the terminal and HTML reporters (report/) render them, --json prints them as they are
(schemas/advise.schema.json). No I/O here."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Evidence:
    """What was seen: the counters behind the finding, with the files and ranks they come from."""
    text: str                                            # in words, with the figures
    counters: dict[str, float] = field(default_factory=dict)   # counter name -> value
    files: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)


@dataclass
class Fix:
    """The fix as something to run, or in words when nothing can be run."""
    kind: str                       # settings | layout | buffer | code
    text: str                       # what to do and why it helps, one or two sentences
    command: str | None = None      # e.g. `lfs setstripe -c 8 -S 4M DIR`, `pario buffer -- ./app`
    settings: dict[str, str] = field(default_factory=dict)     # settings-model keys (kind settings/layout)
    rendered: dict[str, str] = field(default_factory=dict)     # dialect -> the settings in it


@dataclass
class Verification:
    """`--verify`: the job's pattern run as it is and with the fix, on this system."""
    before_s: float                 # measured seconds of the pattern as the job does it
    after_s: float                  # the same bytes with the fix
    runs: list[int] = field(default_factory=list)    # stored run ids behind the figures
    note: str = ""
    method: str = "bench"           # bench: pario bench's replay of the pattern; program: the job's program run again
    verdict: str | None = None      # the noise test's (analysis/noise.py), where it was applied

    @property
    def gain(self) -> float | None:
        return self.before_s / self.after_s if self.after_s > 0 else None


@dataclass
class Finding:
    rule: str                       # stable id, e.g. "posix-small-writes"
    title: str                      # one line
    evidence: Evidence
    fix: Fix
    seconds_at_stake: float | None = None   # seconds of this job the fix would save; None: not costed
    estimate: str = ""              # how that figure was obtained
    confidence: str = "medium"      # high | medium | low
    verification: Verification | None = None
    plot: str | None = None         # anchor of the report plot that shows it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
