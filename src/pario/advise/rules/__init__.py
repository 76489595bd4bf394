"""The rules: pure functions over the job model (rules.base has what they share), one module per
family of findings; `detect` runs them all, in no particular order (the advisor ranks by time at
stake)."""
from __future__ import annotations

from pario.advise.rules import (
    access,
    balance,
    collective,
    layout,
    lib_layout,
    libraries,
    metadata,
    nodes,
    small,
    striping,
)
from pario.advise.rules.base import Candidate, Ctx, Plan

__all__ = ["Candidate", "Ctx", "Plan", "detect", "RULES"]

RULES = [*small.RULES, *layout.RULES, *striping.RULES, *access.RULES, *metadata.RULES, *balance.RULES,
         *collective.RULES, *libraries.RULES, *lib_layout.RULES, *nodes.RULES]


def detect(ctx: Ctx) -> list[Candidate]:
    out: list[Candidate] = []
    for rule in RULES:
        out.extend(rule(ctx))
    return out
