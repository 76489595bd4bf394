"""What a run produced, as records: the engine's result document stays a dict (it is the JSON
document of schemas/result.schema.json, stored as is), wrapped in a typed record with what the
front end judged about it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The engine's result document (schemas/result.schema.json) and the run's environment facts:
# dicts, because they are the JSON documents the store keeps and --json prints.
ResultDoc = dict[str, Any]
EnvDoc = dict[str, Any]
SpecDoc = dict[str, Any]
# One row of pario.analysis.summary.summarize: what --json prints under "summary".
SummaryRow = dict[str, Any]


@dataclass
class RunRecord:
    """One engine run after it ended: what was asked (spec), where (env), what came back (result),
    and the verdict: status complete | partial | failed, with a one-line reason when not complete."""
    spec: SpecDoc
    env: EnvDoc
    result: ResultDoc
    status: str
    message: str | None = None
    directory: str = ""          # the scratch directory and the run's file prefix in it
    prefix: str = ""
    note: str = ""               # the sentence about the cases' sizes
    stopped: int | None = None   # the signal that stopped the run (model.errors.Stopped), if one did

    @property
    def complete(self) -> bool:
        return self.status == "complete"


# What made a stored run, as `pario results --kind` names it (store.sqlite.family_of reads it from a run).
FAMILIES = ("bench", "preset", "tune", "advise", "ior")
