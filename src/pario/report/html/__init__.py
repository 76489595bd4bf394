"""`pario report`: one self-contained HTML page with plots of stored bench runs, profile logs,
advise findings and tuning sessions. The data comes through the readers the terminal tables use
(analysis.summary, analysis.compare, analysis.profile), so page and terminal always agree; the
records of advise and tune are rendered as given (report/ does not import those packages)."""
from __future__ import annotations

import os
from typing import Any

from pario.model.findings import Finding
from pario.model.tuning import TuningSession
from pario.report.advice_text import jobs_of
from pario.report.html.page import Page, write

__all__ = ["Page", "build", "save", "write"]
DEFAULT_OUTPUT = "pario-report.html"


def build(runs: list[dict[str, Any]] | None = None, profiles: list[tuple[str, dict[str, Any]]] | None = None,
          findings: list[Finding] | list[dict[str, Any]] | None = None, sessions: list[TuningSession] | None = None,
          counter_docs: dict[str, str] | None = None) -> Page:
    """The page for stored runs (Store.get_run), profile logs ((name, analysis.profile.load(path))),
    pario advise's job documents (or findings without their job; None: not asked for), with the
    counters' descriptions, and tuning sessions."""
    from pario.analysis import summary
    from pario.analysis.profile import summary as profile_summary
    from pario.report.html import bench, compare, profile, tuning

    runs, profiles, sessions = runs or [], profiles or [], sessions or []
    shows: list[str] = []
    summarized = [(run, summary.summarize(run.get("result") or {}, run.get("env"))) for run in runs]
    for run, rows in summarized:
        shows.append(f"run {run['id']} ({run.get('kind', 'bench')}, {run.get('status', '?')}, "
                     f"{run.get('created', '?')}): {len(rows)} case{'s' if len(rows) != 1 else ''}; "
                     f"{run.get('command', '')}")
    for name, job in profiles:
        procs = len(job.get("processes") or [])
        shows.append(f"profile log {os.path.basename(name) or name}: {procs} process{'es' if procs != 1 else ''}")
    for s in sessions:
        shows.append(f"tuning session {s.id}: {s.counted()} trials, {s.status}")
    advice = jobs_of(findings or [])
    if findings is not None:
        n = sum(len(j["findings"]) + len(j["not_costed"]) for j in advice)
        shows.append(f"{n} finding{'s' if n != 1 else ''} of pario advise")
    title = "pario report"
    if len(runs) == 1 and not profiles and not sessions:
        title = f"pario report: run {runs[0]['id']}"
    elif len(runs) > 1 and not profiles and not sessions:
        title = "pario report: runs " + ", ".join(str(r["id"]) for r in runs) + " compared"
    elif profiles and not runs and not sessions and len(profiles) == 1:
        title = f"pario report: profile {os.path.basename(profiles[0][0]) or profiles[0][0]}"
    page = Page(title=title, shows=shows or ["nothing: no run, log or session was given"],
                advice=advice, counter_docs=dict(counter_docs or {}), findings_asked=findings is not None)
    if len(summarized) > 1:
        page.sections.append(compare.section(summarized))
    page.sections += [bench.section(run, rows) for run, rows in summarized]
    page.sections += [profile.section(i, name, job, profile_summary(job)) for i, (name, job) in enumerate(profiles, 1)]
    page.sections += [tuning.section(s) for s in sessions]
    return page


def save(output: str, runs: list[dict[str, Any]] | None = None,
         profiles: list[tuple[str, dict[str, Any]]] | None = None,
         findings: list[Finding] | list[dict[str, Any]] | None = None,
         sessions: list[TuningSession] | None = None, counter_docs: dict[str, str] | None = None) -> str:
    """Build the page and write it to output; returns the sentence that tells the user where it is."""
    from pario.model.errors import ParioError

    runs, profiles, sessions = runs or [], profiles or [], sessions or []
    if os.path.isdir(output):
        raise ParioError(f"-o {output} is a directory; give a file name such as {os.path.join(output, DEFAULT_OUTPUT)}")
    if os.path.exists(output) and any(os.path.exists(name) and os.path.samefile(name, output) for name, _ in profiles):
        raise ParioError(f"-o {output} is the profile log being read; give another name for the page")
    page = build(runs=runs, profiles=profiles, findings=findings, sessions=sessions, counter_docs=counter_docs)
    size = write(page, output)
    what = [f"run{'s' if len(runs) > 1 else ''} {', '.join(str(r['id']) for r in runs)}"] if runs else []
    what += [f"profile {name}" for name, _ in profiles]
    what += [f"tuning session {s.id}" for s in sessions]
    if findings is not None:
        n = len(page.findings)
        what.append(f"{n} finding{'s' if n != 1 else ''} of pario advise")
    return (f"pario: report of {'; '.join(what) or 'nothing'} written to {output} ({size / 1e6:.1f} MB); "
            "open it in any browser, no network needed")
