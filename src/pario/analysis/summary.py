"""What a result document says, as plain rows: medians and ranges over repetitions, the
fastest strategy, cache suspicions (how two runs compare: compare.py). Pure: no printing, no files.

Input is an engine result document (schemas/result.schema.json) and the environment dict
the front end stored beside it. Keys read from env, all optional:
  ceiling: {"write_mib": float, "read_mib": float}   O_DIRECT device ceiling of the directory
  mem_total: int                                    bytes of RAM on a node
  caches_dropped: bool (or dropped_caches)          caches were dropped before reads
  reuse: {"resident": {case index: fraction}}      --reuse: share of the kept files in page cache
"""
from __future__ import annotations

import statistics
from typing import Any

from pario.analysis import ior_notes, layers, nodes
from pario.model.case import MD_OPS, RATE_OPS

OPS = RATE_OPS  # the operations with a bandwidth: write and read
COLD_RESIDENT = 0.05  # --reuse: files with less of themselves in page cache are read cold


# What each flag means, for footers and --json readers.
FLAG_HELP = {
    "cache?": "a rate above the device ceiling measured with O_DIRECT: probably page cache, not the device",
    "warm": "data set under twice RAM and reads not cold: reads may come from page cache "
            "(use --odirect, a bigger --size, or drop caches)",
    "partial": "fewer phases than repetitions x operations: the run ended early",
    "verify-errors": "read-back found data that differs from what was written",
    "cold": "measured before every read (mincore): under 5% of the case's files in page cache, so the reads "
            "came from the device",
    "cached": "measured before the reads (mincore): part of the case's files sat in page cache (the shares are "
              "under the table)",
    "warm-up?": "the first repetition ran far slower than the others (under half their median): a warm-up "
                "effect; the median resists it, the range and the noise test include it (add -i repetitions)",
    **ior_notes.FLAG_HELP,
}
WARMUP_FACTOR = 2.0  # a first repetition this many times slower than the others' median is a warm-up outlier


def _spread(samples: list[float]) -> dict | None:
    if not samples:
        return None
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "n": len(samples), "samples": list(samples)}


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _warmup(samples: list[float]) -> dict | None:
    """The first repetition, when it is a warm-up outlier: slower than every other one and below
    1/WARMUP_FACTOR of their median (needs at least two others to know their level)."""
    if len(samples) < 3:
        return None
    first, others = samples[0], samples[1:]
    level = statistics.median(others)
    if first < min(others) and first * WARMUP_FACTOR < level:
        return {"first": first, "others_median": level, "factor": level / first if first > 0 else None}
    return None


def _op_stats(phases: list[dict], skip: int = 0) -> dict | None:
    """skip: the first repetitions a caller ran as warm-up and left out of its own figures (pario tune's
    trials): left out here too, so that `pario results` shows what tune measured."""
    phases = sorted(phases, key=lambda p: p.get("rep", 0))
    if skip and len(phases) > skip:
        phases = phases[skip:]
    if not phases:
        return None
    imbalance = [p["last_done_s"] / p["first_done_s"] for p in phases
                 if p.get("first_done_s") and p.get("last_done_s") is not None]
    warmup = _warmup([p["bw_mib"] for p in phases])
    stats: dict[str, Any] = {
        "n": len(phases),
        "bw_mib": _spread([p["bw_mib"] for p in phases]),
        "xfer_bw_mib": _spread([p["xfer_bw_mib"] for p in phases if p.get("xfer_bw_mib") is not None]),
        "iops": _median(p.get("iops") for p in phases),
        # the same figures per repetition, for plots of the spread (report/html)
        "iops_spread": _spread([p["iops"] for p in phases if p.get("iops") is not None]),
        "open_close_share": _median(p.get("open_close_share") for p in phases),
        "imbalance": _median(imbalance),
        "imbalance_spread": _spread(imbalance),
        "time_s": _median(p.get("open_to_close_s") for p in phases),
        "flags": ["warm-up?"] if warmup else [],
    }
    if warmup:
        stats["warmup"] = warmup
    caches = [p.get("cache") or {} for p in phases]
    if caches and all("resident" in c for c in caches):  # measured by the engine before each phase
        shares = [float(c["resident"]) for c in caches]
        stats["resident"] = {"samples": shares, "max": max(shares), "evicted": caches[0].get("evicted", "none")}
        if warmup and shares[0] < COLD_RESIDENT <= max(shares[1:]):  # not a warm-up: the others read page cache
            stats.pop("warmup")
            stats["flags"].remove("warm-up?")
    return stats


def _strategy(spec: dict) -> str:
    strategy = spec.get("strategy", "?")
    if strategy == "nfiles" and spec.get("nfiles"):
        strategy = f"nfiles:{spec['nfiles']}"
    if spec.get("aggregate") and strategy != "serial":
        strategy += "+agg"
    return strategy


def _reads_cold(case: dict, spec: dict, env: dict, hosts: list) -> bool:
    if spec.get("odirect") or env.get("caches_dropped") or env.get("dropped_caches"):
        return True
    # --reuse after a cache drop: cold files, but a second repetition reads what the first cached
    resident = ((env.get("reuse") or {}).get("resident") or {}).get(str(case.get("index")))
    if resident is not None and resident < COLD_RESIDENT and (spec.get("reps") or 1) == 1:
        return True
    # Reading another rank's data only misses the page cache when that rank sat on another
    # host: with ranks placed by blocks, a shift of at least one host's worth does that.
    shift = case.get("reorder_shift", spec.get("reorder", 0)) or 0
    if len(hosts) > 1 and shift:
        per_host = min((h.get("ranks") or 1) for h in hosts)
        return shift == -1 or abs(shift) >= per_host
    return False


def ceiling_check(op: str, samples: list[float], ceiling: dict | None, odirect: bool = False,
                  resident_max: float | None = None, fsync: bool = False) -> dict | None:
    """How rates of `op` (MiB/s) stand against the O_DIRECT device ceiling: the one rule of bench's
    tables and of `pario tune`'s trials and winner. None when there is no ceiling for op or no rate
    above it; else {"op", "limit", "above" (how many), "n", "kind", "resident"}, kind being
      "cache?"  nothing known of the page cache: probably page cache, not the device
      "direct"  O_DIRECT moves no data through the page cache: the probe was low, not the rate
      "flushed" writes flushed inside the timed phase (fsync, -e): not write-back either; the probe was
                low or the device caches writes
      "device"  the engine measured under COLD_RESIDENT of the files in page cache: the device beats
                the probe
      "cached"  the engine measured part of the files in page cache: its "cached" flag says so
    What is known (O_DIRECT, measured residency) wins over what is suspected."""
    limit = (ceiling or {}).get(f"{op}_mib")
    if not limit:
        return None
    above = [s for s in samples if s > limit]
    if not above:
        return None
    if odirect:
        kind = "direct"
    elif fsync and op == "write":
        kind = "flushed"
    elif resident_max is None:
        kind = "cache?"
    else:
        kind = "device" if resident_max < COLD_RESIDENT else "cached"
    return {"op": op, "limit": float(limit), "above": len(above), "n": len(samples), "kind": kind,
            "resident": resident_max}


def _flags(case: dict, spec: dict, stats: dict, verify: dict | None, env: dict, hosts: list) -> tuple[list, list]:
    """Case flags and cache details; each op's own flags go into stats[op]["flags"].

    What is known wins over what is suspected: O_DIRECT moves no data through the page cache, so
    its figures are never "cache?" (a rate above the probe then says the probe was low); a read
    whose residency the engine measured says "cold" or "cached", not "cache?" or "warm"."""
    flags = []
    ceiling = env.get("ceiling") or {}
    details, direct = [], []
    for op in OPS:
        if not stats.get(op):
            continue
        resident = stats[op].get("resident")
        check = ceiling_check(op, stats[op]["bw_mib"]["samples"], ceiling, odirect=bool(spec.get("odirect")),
                              resident_max=resident["max"] if resident is not None else None,
                              fsync=bool(spec.get("fsync") or spec.get("fsync_per_write")))
        if check is None:
            continue
        count, limit = f"{op} {check['above']}/{check['n']}", check["limit"]
        if check["kind"] == "direct":
            direct.append(count)
        elif check["kind"] == "flushed":
            details.append(f"{count} above {limit:.0f} MiB/s with fsync inside the timed phase: not write-back, "
                           "so the probe was low or the device caches writes")
        elif check["kind"] == "device":
            details.append(f"{count} above {limit:.0f} MiB/s with {check['resident']:.0%} resident: "
                           "the device beats the probe")
        elif check["kind"] == "cache?":
            details.append(f"{count} above {limit:.0f} MiB/s")
            stats[op]["flags"].append("cache?")
    if any("cache?" in (stats.get(op) or {}).get("flags", []) for op in OPS):
        flags.append("cache?")
    if direct:
        streams = ceiling.get("streams") or 1
        details.append(f"O_DIRECT: {', '.join(direct)} above the {streams}-stream probe (not page cache)")
    for op in OPS:
        resident = (stats.get(op) or {}).get("resident")
        if resident is not None:
            flag = "cold" if resident["max"] < COLD_RESIDENT else "cached"
            stats[op]["flags"].append(flag)
            if flag not in flags:
                flags.append(flag)
    mem = env.get("mem_total")
    reads = stats.get("read") or verify
    measured = (stats.get("read") or {}).get("resident") is not None
    if not stats.get("read") and verify:   # write + verify (-W): its verify reads' residency, measured as reads'
        checked = [p.get("cache") or {} for p in case.get("phases", []) if p["op"] == "verify"]
        if checked and all("resident" in c for c in checked):
            measured = True
            flag = "cold" if max(float(c["resident"]) for c in checked) < COLD_RESIDENT else "cached"
            if flag not in flags:
                flags.append(flag)
    if reads and mem and case.get("total_bytes", 0) < 2 * mem and not measured \
            and not _reads_cold(case, spec, env, hosts):
        flags.append("warm")
        if stats.get("read"):
            stats["read"]["flags"].append("warm")
    ops = spec.get("ops")
    if ops and spec.get("reps") and len(case.get("phases", [])) < spec["reps"] * len(ops):
        flags.append("partial")
    if verify and verify["errors"]:
        flags.append("verify-errors")
    if any("warm-up?" in (stats.get(op) or {}).get("flags", []) for op in OPS):
        flags.append("warm-up?")
    return flags, details


def _verify(case: dict, spec: dict, phases: list[dict]) -> dict | None:
    """What the checked phases found (timed reads, verify, read_small), phase by phase: a phase's
    count is of the words it read, so counts of different phases are never added together.
    errors: the most bad words one phase found; first_error: the first failing phase's first."""
    checks = [p for p in phases if p["op"] == "verify" or p.get("verify")]
    if not checks:
        return None
    per_phase = [{"op": p["op"], "rep": p.get("rep"), "errors": (p.get("verify") or {}).get("errors", 0),
                  "checked_bytes": (p.get("verify") or {}).get("checked_bytes", 0),
                  "first_error": (p.get("verify") or {}).get("first_error")} for p in checks]
    failing = [p for p in per_phase if p["errors"]]
    return {"phases": len(checks),
            "errors": max((p["errors"] for p in per_phase), default=0),
            "failing_phases": len(failing),
            "checked_bytes": sum(p["checked_bytes"] for p in per_phase),
            "first_error": failing[0]["first_error"] if failing else None,
            "by_phase": per_phase,
            # the data repeats every ring (buffer_max bytes, at least one call) per rank:
            # misplacement by a multiple goes unseen
            "repeats_every": None if case.get("verify_exact", True) else _ring(spec, case)}


def _ring(spec: dict, case: dict) -> int | None:
    buffer, call = spec.get("buffer_max"), case.get("xfer")
    if not buffer or not call:
        return buffer
    return max(1, buffer // call) * call


def _metadata(case: dict, spec: dict) -> dict:
    """Files per second of each metadata phase over the repetitions, and the exact counts."""
    phases = case.get("phases", [])
    per_op = {}
    for op in MD_OPS:
        mine = [p for p in phases if p["op"] == op]
        if mine:
            per_op[op] = {"n": len(mine), "files_per_s": _spread([p["iops"] for p in mine if p.get("iops")]),
                          "files": _median(p.get("ops") for p in mine),
                          "time_s": _median(p.get("xfer_s") for p in mine)}
    counts = case.get("metadata") or {}
    return {**{k: spec.get(k) for k in ("files_per_dir", "file_size", "depth", "branching", "shared_dir")},
            **{k: counts.get(k) for k in ("files_per_rep", "dirs_per_rep", "created", "removed", "left_behind")},
            "phases": per_op}


def summarize(result: dict, env: dict | None = None) -> list[dict]:
    """One row per case of a result document."""
    env = env or {}
    mpi = result.get("mpi") or {}
    hosts = mpi.get("hosts") or []
    rows: list[dict] = []
    for case in result.get("cases", []):
        spec = case.get("spec") or {}
        phases = case.get("phases", [])
        metadata = spec.get("workload") == "metadata" or "metadata" in case
        skip = int((env.get("tune") or {}).get("warmup") or 0)   # pario tune's warm-up repetitions
        stats = {op: None if metadata else _op_stats([p for p in phases if p["op"] == op], skip) for op in OPS}
        verify = _verify(case, spec, phases)
        if metadata:
            flags, cache_details = _flags(case, spec, {}, verify, {}, hosts)  # no device or cache judgement
            flags = [f for f in flags if f != "warm"]
        else:
            flags, cache_details = _flags(case, spec, stats, verify, env, hosts)
        more, ior_lines = ior_notes.notes(case)  # IOR's -D, -Y, -T
        flags = [f for f in flags if not (f == "partial" and "max-time" in more)] + more
        row = {
            "index": case.get("index", len(rows)),
            "name": case["name"],
            "workload": "metadata" if metadata else "data",
            "backend": spec.get("backend", "posix" if metadata else "?"),
            "strategy": (("md-shared" if spec.get("shared_dir", True) else "md-per-rank") if metadata
                         else _strategy(spec)),
            "pattern": "tree" if metadata else spec.get("pattern", "?"),
            "collective": bool(spec.get("collective")),
            "xfer": case.get("xfer", spec.get("xfer")),
            # what else sets the case apart, so that its label can say it (report/terminal/tables.py)
            "config": {"segments": spec.get("segments", 1), "view": bool(spec.get("view")),
                       "fsync": bool(spec.get("fsync")), "fsync_per_write": bool(spec.get("fsync_per_write")),
                       "odirect": bool(spec.get("odirect")), "reorder": spec.get("reorder", 0)},
            "ranks": mpi.get("ranks"),
            "files": case.get("files"),
            "bytes": case.get("total_bytes"),
            "write": stats["write"],
            "read": stats["read"],
            "verify": verify,
            "flags": flags,
            "cache_details": cache_details,
            "ior_notes": [] if metadata else ior_lines,
        }
        if (env.get("ceiling") or {}).get("write_mib") and not metadata:
            row["ceiling"] = {"streams": env["ceiling"].get("streams") or 1,
                              "ranks_per_host": max([h.get("ranks") or 1 for h in hosts] or [mpi.get("ranks") or 1])}
        if metadata:
            row["metadata"] = _metadata(case, spec)
        else:   # the aggregators in effect, and each node's share when the ranks ran on several
            row.update(nodes.figures(case, result))
        if case.get("lib"):
            row["lib"] = {k: case["lib"].get(k) for k in ("name", "version", "requested", "effective", "source")}
        rows.append(row)
    if layers.is_layers_run(rows):  # each layer's cost against raw MPI-IO, for --json readers too
        for entry in layers.compare(rows):
            row = next(r for r in rows if r["name"] == entry["name"])
            row["vs_mpiio"] = {"baseline": entry["baseline"], "write": entry["write_ratio"],
                               "read": entry["read_ratio"]}
            if entry.get("vs_blocking"):
                row["vs_blocking"] = entry["vs_blocking"]
                row["vs_blocking_noise"] = entry["vs_blocking_noise"]   # interval and verdict per op
    return rows


def fastest(rows: list[dict], op: str = "write") -> dict | None:
    """The row with the highest median open-to-close rate for op, or None."""
    candidates = [r for r in rows if r.get(op)]
    if not candidates:
        return None
    return max(candidates, key=lambda r: r[op]["bw_mib"]["median"])


def strategy_label(row: dict) -> str:
    return f"{row['strategy']}/{row['backend']}"


def headline(result: dict) -> str:
    """A one-line description of a result for run listings (cases named in full: analysis.labels)."""
    from pario.analysis.labels import case_label  # labels is pure; imported here as verdicts is
    cases = result.get("cases") or []
    ranks = (result.get("mpi") or {}).get("ranks")
    head = f"{len(cases)} case{'s' if len(cases) != 1 else ''}" + (f", {ranks} ranks" if ranks else "")
    try:
        rows = summarize(result)
    except (KeyError, TypeError, ZeroDivisionError):
        return head
    if rows and all(r["workload"] == "metadata" for r in rows):
        md = rows[0]["metadata"]["phases"]
        figures = [f"{op} {md[op]['files_per_s']['median']:.0f}" for op in MD_OPS
                   if (md.get(op) or {}).get("files_per_s")]
        return f"{head}: {rows[0]['name']} {', '.join(figures[:3])} files/s" if figures else head
    if len(rows) == 1:
        figures = [f"{op} {rows[0][op]['bw_mib']['median']:.0f}" for op in OPS if rows[0].get(op)]
        return f"{head}: {case_label(rows[0])} {', '.join(figures)} MiB/s" if figures else head
    from pario.analysis.verdicts import winner  # same layer; verdicts imports noise, not summary
    figures = []
    for op in OPS:
        w, top = winner(rows, op), fastest(rows, op)
        if top is None:
            continue
        # the unit with each figure: "(top shared/pnetcdf 544) MiB/s" put it after the parenthesis
        label = f"{case_label(top)} {top[op]['bw_mib']['median']:.0f} MiB/s"
        figures.append(f"best {op} {label}" if w is None or w["clear"] else f"no clear {op} winner (top {label})")
    return f"{head}; {', '.join(figures)}" if figures else head
