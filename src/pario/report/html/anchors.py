"""The element ids of the report's plots and tables: a finding (model.findings.Finding.plot) links
to one of these, so the advisor names the plot that shows what it found. Stable: pages written by
one pario and findings made by another still meet.

    run{ID}-facts | -bandwidth | -iops | -imbalance | -settings | -metadata | -metadata-counts
                                                    one stored bench run
    run{ID}-timeline-{CASE}                         per-rank open/transfer/close of case index CASE
    compare-bandwidth | compare-table               two or more runs on the same axes
    profile{N}-job | -interfaces | -files | -sizes | -time | -spread | -hints | -trace
                                                    the N-th profile log given (1, 2, ...)
    tune{ID}-trials | -importance | -winner | -settings | -dropped     a tuning session
    ...-section                                     each section itself (run{ID}-section, ...)
"""
from __future__ import annotations


def run(run_id: int | str, what: str, case: int | None = None) -> str:
    return f"run{run_id}-{what}" + (f"-{case}" if case is not None else "")


def profile(n: int, what: str) -> str:
    return f"profile{n}-{what}"


def tune(session: int | str | None, what: str) -> str:
    return f"tune{session if session is not None else ''}-{what}"


def compare(what: str) -> str:
    return f"compare-{what}"
