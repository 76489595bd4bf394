"""What each I/O layer costs against raw MPI-IO collective on the same bytes (`pario bench --suite
layers` and any run with a library layer beside an mpiio collective case). Pure."""
from __future__ import annotations

from typing import Any

from pario.analysis import noise
from pario.model.case import RATE_OPS


def _median(row: dict[str, Any], op: str) -> float | None:
    stats = row.get(op) or {}
    return (stats.get("bw_mib") or {}).get("median")


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def _samples(row: dict[str, Any] | None, op: str) -> list[float]:
    return list(((row or {}).get(op) or {}).get("bw_mib", {}).get("samples") or [])


def against(base: dict[str, Any] | None, row: dict[str, Any], op: str) -> dict[str, Any] | None:
    """The layer's rates of op against the baseline's: ratio of medians, its 95% interval and the
    verdict of the noise test `pario results compare` uses (faster | slower | within noise | too few
    samples); None without a baseline or a rate."""
    if base is None or base is row or not _samples(row, op) or not _samples(base, op):
        return None
    v = noise.compare(_samples(base, op), _samples(row, op))
    return {"ratio": v.ratio, "low": v.low, "high": v.high, "verdict": v.verdict}


def _baseline(rows: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any] | None:
    """The mpiio collective row that moved the same bytes, if the run has one."""
    for cand in rows:
        if cand["backend"] == "mpiio" and cand["collective"] and cand.get("bytes") == row.get("bytes") \
                and cand.get("pattern") == row.get("pattern"):
            return cand
    return None


def compare(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per data row: write/read spreads, ratio of medians to mpiio collective on the same bytes with its
    interval and noise verdict (`{op}_vs`), and for pnetcdf non-blocking rows the ratio to pnetcdf
    blocking collective."""
    out = []
    for row in rows:
        if row.get("workload") == "metadata":
            continue
        base = _baseline(rows, row)
        entry = {"name": row["name"], "backend": row["backend"], "collective": row["collective"],
                 "mode": (row.get("lib") or {}).get("requested", {}).get("mode"), "lib": row.get("lib"),
                 "baseline": base["name"] if base else None, "verify": row.get("verify")}
        for op in RATE_OPS:
            entry[op] = (row.get(op) or {}).get("bw_mib")
            entry[f"{op}_ratio"] = _ratio(_median(row, op), _median(base, op)) if base and base is not row else None
            entry[f"{op}_vs"] = against(base, row, op)
        if row["backend"] == "pnetcdf" and entry["mode"] in ("iput", "bput"):
            blocking = next((r for r in rows if r["backend"] == "pnetcdf" and r["collective"] == row["collective"]
                             and (r.get("lib") or {}).get("requested", {}).get("mode", "blocking") == "blocking"
                             and r.get("bytes") == row.get("bytes")), None)
            if blocking:
                entry["vs_blocking"] = {op: _ratio(_median(row, op), _median(blocking, op)) for op in RATE_OPS}
                # with the interval and verdict of the same noise test as the ratio to raw MPI-IO
                entry["vs_blocking_noise"] = {op: against(blocking, row, op) for op in RATE_OPS}
        out.append(entry)
    return out


def is_layers_run(rows: list[dict[str, Any]]) -> bool:
    """A run worth the layers table: a library layer and an mpiio collective baseline."""
    return any(r.get("lib") for r in rows) and any(r["backend"] == "mpiio" and r["collective"] for r in rows)

