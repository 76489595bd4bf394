"""IOR 4's JSON summary (`ior -O summaryFormat=JSON [-O summaryFile=F]`) turned into a pario
result document, so that an IOR run sits in the store beside pario's and compares with them.

IOR's JSON (src/ior-output.c) has, per test, "Parameters" (ints), "Options" (human strings)
and "Results": one object per access and iteration (access, bwMiB, iops, openTime, wrRdTime,
closeTime, totalTime; older IOR nests them in one array per iteration), and a top-level
"summary" with IOR's own max/min/mean. IOR has no per-rank first/last-done times, so the
converted phases lack them; pario's imbalance column stays empty for IOR runs. Pure.
"""
from __future__ import annotations

import json
import re

from pario.model.case import RATE_OPS
from pario.model.errors import ParioError
from pario.model.formats import MAX_DEPTH, depth
from pario.platform import documents

MIB = 1 << 20
LIMIT = 64 * MIB  # bytes of an IOR summary: a few KiB per test
_HOW = "expected the output of `ior -O summaryFormat=JSON -O summaryFile=FILE`"


def parse_text(text: str, where: str = "file") -> dict:
    """IOR's JSON text as a dict. IOR writes %f of inf/nan as bare words and may mix log
    lines into stdout (hpc/ior#102, #503), so both are tolerated."""
    text = re.sub(r"(:\s*)-?(nan|inf)\b", r"\1null", text, flags=re.IGNORECASE)
    start = text.find("{")
    if start < 0:
        raise ParioError(f"{where} holds no JSON object; {_HOW}")
    try:
        doc, _ = json.JSONDecoder(parse_constant=_no_constant).raw_decode(text[start:])
    except RecursionError:
        raise ParioError(f"{where} nests deeper than any IOR output; {_HOW}") from None
    except json.JSONDecodeError as exc:
        raise ParioError(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno}); {_HOW}") from None
    except ValueError as exc:
        raise ParioError(f"{where} is not valid JSON ({exc}); {_HOW}") from None
    if not isinstance(doc, dict) or "tests" not in doc:
        raise ParioError(f"{where} is JSON but not IOR's summary (no \"tests\"); {_HOW}")
    if depth(doc) > MAX_DEPTH:
        raise ParioError(f"{where} nests deeper than any IOR output; {_HOW}")
    documents.validate(doc, "ior-summary", where)  # types and signs of what convert() reads
    return doc


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _iterations(results: list) -> list[tuple[int, dict]]:
    """(iteration, entry) for write and read entries, whether IOR nested them per iteration
    or listed them flat (then the k-th write is iteration k)."""
    out: list[tuple[int, dict]] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(results or []):
        entries = item if isinstance(item, list) else [item]
        for entry in entries:
            access = entry.get("access") if isinstance(entry, dict) else None
            if access not in RATE_OPS:
                continue  # "remove" timings and anything newer
            if isinstance(entry.get("iter"), int):  # some IOR versions number iterations
                rep = entry["iter"]
            elif isinstance(item, list):
                rep = i
            else:
                rep = seen.get(access, 0)
                seen[access] = rep + 1
            out.append((rep, entry))
    return out


def _int(d: dict, *keys, default=None):
    for key in keys:
        if isinstance(d.get(key), (int, float)):
            return int(d[key])
    return default


def _phase(entry: dict, rep: int, nbytes: int, xfer: int) -> dict:
    total = float(entry.get("totalTime") or 0.0)
    wrrd = float(entry.get("wrRdTime") or 0.0)
    bw = entry.get("bwMiB")
    if bw is None:
        bw = nbytes / MIB / total if total else 0.0
    ops = nbytes // xfer if xfer else 0
    phase = {
        "op": entry["access"], "rep": rep, "bytes": nbytes, "ops": ops,
        "open_to_close_s": total, "xfer_s": wrrd, "bw_mib": float(bw),
        "xfer_bw_mib": nbytes / MIB / wrrd if wrrd else 0.0,
        # pario's IOPS is calls per second of transfer time; IOR's own figure is kept aside.
        "iops": ops / wrrd if wrrd else 0.0,
        "ior": {k: entry[k] for k in ("iops", "latency", "openTime", "closeTime") if k in entry},
    }
    if total and entry.get("openTime") is not None and entry.get("closeTime") is not None:
        phase["open_close_share"] = (float(entry["openTime"]) + float(entry["closeTime"])) / total
    return phase


def _case(index: int, test: dict, summary: list) -> dict:
    params = test.get("Parameters") or {}
    options = test.get("Options") or {}
    test_id = _int(test, "TestID", default=index)
    mine = [s for s in summary if _int(s, "TestID") == test_id] or []
    first = mine[0] if mine else {}
    api = str(params.get("api") or options.get("api") or first.get("API") or "?")
    tasks = _int(options, "tasks") or _int(first, "numTasks") or 1
    xfer = _int(params, "transferSize") or _int(first, "transferSize") or 0
    block = _int(params, "blockSize") or _int(first, "blockSize") or 0
    segments = _int(params, "segmentCount") or _int(first, "segmentCount") or 1
    fpp = bool(_int(params, "filePerProc", default=_int(first, "filePerProc", default=0)))
    reps = _int(params, "repetitions") or _int(first, "repetitions") or 1
    per_rank = block * segments
    total = per_rank * tasks
    iterations = _iterations(test.get("Results") or [])
    ops = [op for op in RATE_OPS if any(e["access"] == op for _, e in iterations)]
    spec = {
        "backend": api.lower(), "strategy": "fpp" if fpp else "shared",
        "pattern": "random" if _int(params, "randomOffset", default=0) else "segmented",
        "xfer": xfer, "block": block, "segments": segments, "ops": ops, "reps": reps,
        "collective": bool(_int(params, "collective", default=0)),
        "fsync": bool(_int(params, "fsync", default=0)),
        "odirect": bool(_int(params, "useO_DIRECT", default=0)) or "O_DIRECT" in str(params.get("options", "")),
        # IOR -C reads another node's data, which is pario's reorder -1.
        "reorder": -1 if _int(params, "reorderTasks", default=0) else 0,
        # IOR never checks its timed reads: -R (checkRead) is a separate read pass after them
        "read_check": False,
    }
    phases = []
    for rep, entry in iterations:
        nbytes = total
        # With stonewalling IOR moves less than the nominal size; its bw then tells how much.
        if entry.get("bwMiB") and entry.get("totalTime"):
            moved = float(entry["bwMiB"]) * MIB * float(entry["totalTime"])
            if moved < 0.98 * total:
                nbytes = int(moved)
        phases.append(_phase(entry, rep, nbytes, xfer))
    name = f"ior{test_id}-{api.lower()}-{spec['strategy']}"
    return {
        "name": name, "index": index, "spec": spec,
        "files": tasks if fpp else 1, "file_bytes": per_rank if fpp else total,
        "bytes_per_rank": per_rank, "total_bytes": total,
        "ops_per_rank": per_rank // xfer if xfer else 0, "xfer": xfer,
        "reorder_shift": spec["reorder"],
        "phases": phases,
        "ior_summary": mine,
        "ior_parameters": params, "ior_options": options,
    }


def convert(doc: dict) -> dict:
    """A pario result document (as far as IOR provides it) from IOR's JSON dict."""
    tests = doc.get("tests") or []
    summary = doc.get("summary") or []
    cases = [_case(i, t, summary) for i, t in enumerate(tests)]
    if not any(c["phases"] for c in cases):
        raise ParioError("the IOR output has no per-iteration results (\"Results\"); "
                         "rerun IOR with -O summaryFormat=JSON and without -q")
    first_opts = (tests[0].get("Options") or {}) if tests else {}
    tasks = _int(first_opts, "tasks") or (cases[0]["total_bytes"] // max(cases[0]["bytes_per_rank"], 1))
    machine = str(doc.get("Machine", "")).split()
    nodes = _int(first_opts, "nodes", default=1)
    if nodes > tasks:
        raise ParioError(f"the IOR output says {nodes} nodes ran {tasks} tasks; a node runs at least one task, "
                         "so the file is damaged")
    per_node = _int(first_opts, "clients per node") or max(tasks // max(nodes, 1), 1)
    if nodes == 1:
        hosts = [{"name": machine[1] if len(machine) > 1 else "?", "ranks": tasks}]
    else:  # IOR names only the node of rank 0
        hosts = [{"name": f"node{i}", "ranks": per_node} for i in range(nodes)]
    return {
        "schema": "pario.result/1",
        "status": "complete" if doc.get("Finished") else "partial",
        "run_id": f"ior-{doc.get('Began', '')}".strip("-"),
        "started": doc.get("Began"),
        "engine": {"version": f"IOR {doc.get('Version', '?')}"},
        "mpi": {"ranks": tasks, "hosts": hosts},
        "imported_from": "ior",
        "cases": cases,
    }


def env_of(doc: dict, path: str) -> dict:
    """What IOR says about where it ran, for the store's env column."""
    tests = doc.get("tests") or [{}]
    first = tests[0]
    opts = first.get("Options") or {}
    return {"imported_from": path, "tool": "ior", "ior_version": doc.get("Version"),
            "machine": doc.get("Machine"), "began": doc.get("Began"), "finished": doc.get("Finished"),
            "ranks": _int(opts, "tasks"), "dir": (first.get("Path") or opts.get("test filename"))}


def command_of(doc: dict) -> str:
    return str(doc.get("Command line") or "ior (command line not recorded)")
