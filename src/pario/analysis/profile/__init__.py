"""Reading profile logs and their pure views (per file, per job).

The names below are loaded when first used (`from pario.analysis.profile import load`), so that
`pario profile`, which merges the logs of its run with logread alone, does not load the views."""
from __future__ import annotations

from pario.model.lazy import exports

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from pario.analysis.profile.logread import load
    from pario.analysis.profile.views import file_view, job_view, summary

_HOME = {"load": "pario.analysis.profile.logread", **dict.fromkeys(["file_view", "job_view", "summary"],
                                                                    "pario.analysis.profile.views")}

__all__ = ["file_view", "job_view", "load", "summary"]

__getattr__ = exports(__name__, _HOME)
