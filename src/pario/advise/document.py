"""The advice as one plain document (schemas/advise.schema.json): what --json prints, what the
terminal reporter (report/terminal/advise.py) and the HTML report render. Findings are the model's
records (model/findings.py), as dicts."""
from __future__ import annotations

from typing import Any

from pario.advise.advisor import Ranked
from pario.advise.costs import Model
from pario.advise.facts import StackFacts
from pario.advise.job import Job, rank_shares

SCHEMA = "pario.advise/1"


def _line(line: Any) -> dict[str, float] | None:
    return {"call_us": line.c0 * 1e6, "mib_s": line.bw / (1 << 20)} if line else None


def stack_summary(job: Job, stack: StackFacts, measured_in: str | None = None,
                  system: dict[str, Any] | None = None) -> dict[str, Any]:
    kinds: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for rec in job.records:
        if rec.name in seen or not rec.bytes:
            continue   # files with data: directories the MPI library opens are not what is advised on
        seen.add(rec.name)
        f = stack.of(rec)
        key = f.fs or "?"
        row = kinds.setdefault(key, {"fs": f.fs, "unit": f.unit, "unit_source": f.unit_source, "files": 0,
                                     "stripe_count": f.stripe_count, "ost_count": f.ost_count, "source": f.source,
                                     "paths": []})
        row["files"] += 1
        if len(row["paths"]) < 3:   # what the files are, for a reader of a file system without a name
            row["paths"].append(rec.name)
    return {"impl": stack.impl, "impl_source": stack.impl_source, "file_systems": list(kinds.values()),
            "measured_in": measured_in, "measured_why": stack.measure_why, "system": system or {}}


def job_document(job: Job, stack: StackFacts, model: Model | None, ranked: Ranked, notes: list[str],
                 calibration_note: str = "", measured_in: str | None = None,
                 system: dict[str, Any] | None = None, at_stake: dict[str, Any] | None = None) -> dict[str, Any]:
    io_time = io_seconds(job)
    return {
        "source": job.source, "format": job.format, "command": job.command, "nprocs": job.nprocs,
        "run_time": job.run_time, "io_time": io_time, "partial": list(job.partial), "ignored_files": list(job.ignored),
        "apart_files": {group: list(paths) for group, paths in job.apart.items()},
        "at_stake": at_stake,
        "copies": job.copies, "no_mpi": job.no_mpi, "launched": job.launched, "missing_ranks": list(job.missing_ranks),
        "stack": stack_summary(job, stack, measured_in, system),
        "calibration": None if model is None else {
            "runs": model.runs, "where": model.where, "write": _line(model.write), "read": _line(model.read),
            "mpiio_write": _line(model.mpiio_write), "fsync_s": model.fsync_s,
            "fsync_hi_s": model.fsync_hi, "fsync_rounds": model.fsync_rounds, "metadata_s": dict(model.md),
            "load": model.load,
            "note": calibration_note},
        "findings": [f.to_dict() for f in ranked.findings],
        "not_costed": [f.to_dict() for f in ranked.not_costed],
        "minor": [f.to_dict() for f in ranked.minor],
        "no_gain": list(ranked.no_gain),
        "notes": list(notes),
    }


def io_seconds(job: Job) -> float:
    """The busiest rank's time in I/O calls (reduced records count their per-rank mean: job.rank_shares)."""
    through = {r.path for r in job.records if r.module == "mpiio"}   # MPI-IO's time holds its POSIX calls
    per, shared = rank_shares((r for r in job.records if not (r.module == "posix" and r.path in through)),
                              lambda r: r.io_time)
    return (max(per.values()) if per else 0.0) + shared


def document(jobs: list[dict[str, Any]], errors: list[str], docs: dict[str, str]) -> dict[str, Any]:
    used: set[str] = set()
    for j in jobs:
        for group in ("findings", "not_costed", "minor"):
            for f in j[group]:
                used.update(f["evidence"]["counters"])
    return {"schema": SCHEMA, "jobs": jobs, "errors": errors,
            "counter_docs": {k: docs[k] for k in sorted(used) if k in docs}}
