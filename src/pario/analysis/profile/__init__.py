"""Reading profile logs and their pure views (per file, per job).

The names below are loaded when first used (`from pario.analysis.profile import load`), so that
`pario profile`, which merges the logs of its run with logread alone, does not load the views."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pario.analysis.profile.logread import load
    from pario.analysis.profile.views import file_view, job_view, summary

_HOME = {"load": "pario.analysis.profile.logread", **dict.fromkeys(["file_view", "job_view", "summary"],
                                                                    "pario.analysis.profile.views")}

__all__ = ["file_view", "job_view", "load", "summary"]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value
    return value
