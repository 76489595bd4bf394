"""JSON on stdout: the documents of --json, each one object."""
from __future__ import annotations

import json
import sys
from typing import Any

from pario.analysis.verdicts import winner
from pario.model.case import RATE_OPS
from pario.model.result import RunRecord, SummaryRow


def emit(doc: Any, indent: int = 1, default: Any = None) -> None:
    """One JSON document on stdout, ending with a newline."""
    json.dump(doc, sys.stdout, indent=indent, default=default)
    sys.stdout.write("\n")


def bench_document(record: RunRecord, rows: list[SummaryRow], run_id: int | None) -> dict[str, Any]:
    """What `pario bench --json` prints: the stored run's id, the verdict, the fastest cases, the
    summary rows and the engine's result document."""
    found = {op: winner(rows, op) for op in RATE_OPS}
    # "fastest" names a case only when the noise test supports it; "verdicts" says why (not)
    best = {op: w["best"] if w and w["clear"] else None for op, w in found.items()}
    return {"schema": "pario.bench/1", "run": run_id, "engine_run_id": record.result.get("run_id"),
            "status": record.status, "error": record.message, "sizes": record.note, "dir": record.directory,
            "fastest": best, "verdicts": found, "summary": rows, "result": record.result}
