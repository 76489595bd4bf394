"""Hand-made engine result documents that follow schemas/result.schema.json, with
self-consistent numbers (bw = bytes / time), for tests of the analysis and rendering."""
import json
from pathlib import Path

MIB = 1 << 20
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "result.schema.json"


def phase(op, rep, bw, nbytes=64 * MIB, xfer=MIB, ranks=4, share=0.05, imbalance=1.1, verify_errors=None):
    total = nbytes / MIB / bw
    xfer_s = total * (1 - share)
    first = total / imbalance
    p = {
        "op": op, "rep": rep, "bytes": nbytes, "ops": nbytes // xfer,
        "t_start": 1.0 + rep, "open_to_close_s": total, "xfer_s": xfer_s,
        "bw_mib": bw, "xfer_bw_mib": nbytes / MIB / xfer_s, "iops": (nbytes // xfer) / xfer_s,
        "first_done_s": first, "last_done_s": total, "open_close_share": share,
        "ranks": {"open": [0.001] * ranks, "xfer": [xfer_s] * ranks, "sync": [0.0] * ranks,
                  "close": [0.001] * ranks, "done": [first] + [total] * (ranks - 1),
                  "bytes": [nbytes // ranks] * ranks},
    }
    if op == "verify":
        p["verify"] = {"checked_bytes": nbytes, "errors": verify_errors or 0,
                       "first_error": None if not verify_errors else
                       {"rank": 1, "file": 0, "offset": 4096, "expected": "0x1", "got": "0x0"}}
    return p


def case(name, index, backend="posix", strategy="fpp", pattern="segmented", write=(), read=(),
         verify_errors=None, reps=None, nbytes=64 * MIB, xfer=MIB, hints=None, **spec_extra):
    phases = []
    reps = reps if reps is not None else max(len(write), len(read), 1)
    for r in range(max(len(write), len(read))):
        if r < len(write):
            phases.append(phase("write", r, write[r], nbytes, xfer))
        if r < len(read):
            phases.append(phase("read", r, read[r], nbytes, xfer))
        if verify_errors is not None:
            phases.append(phase("verify", r, read[r] if r < len(read) else 100.0, nbytes, xfer,
                                verify_errors=verify_errors))
    ops = [op for op, seq in (("write", write), ("read", read)) if seq]
    if verify_errors is not None:
        ops.append("verify")
    spec = {"name": name, "backend": backend, "strategy": strategy, "pattern": pattern,
            "ops": ops, "reps": reps, "xfer": xfer, "block": nbytes // 4, **spec_extra}
    c = {"name": name, "index": index, "spec": spec, "files": 4 if strategy == "fpp" else 1,
         "file_bytes": nbytes // 4, "bytes_per_rank": nbytes // 4, "total_bytes": nbytes,
         "ops_per_rank": nbytes // 4 // xfer, "xfer": xfer, "reorder_shift": spec.get("reorder", 0),
         "phases": phases}
    if hints is not None:
        c["hints"] = hints
    return c


def result(*cases, status="complete", ranks=4, hosts=None):
    return {
        "schema": "pario.result/1", "status": status, "run_id": "test-run", "started": "2026-11-22T03:00:00Z",
        "engine": {"version": "0.1.0"},
        "mpi": {"library": "Open MPI v4.1.4", "standard": "3.1", "ranks": ranks,
                "hosts": hosts or [{"name": "node01", "ranks": ranks}], "clock_offset_max_s": 0.0},
        "cases": list(cases),
    }


def validate(doc):
    """Raise if doc does not follow the result schema."""
    import jsonschema
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
