"""What an engine case is (schemas/spec.schema.json), in the terms every layer shares: the names
of its operations, kept once here (the engine's own list is include/pario/case.h), and the
amounts of data a case moves."""
from __future__ import annotations

from typing import Any

# The operations of a data case, in the order the engine runs them.
OPS = ("write", "read", "verify")
# The timed operations whose rate is bandwidth (verify is an untimed check).
RATE_OPS = ("write", "read")
# Bytes per grid point of the btio pattern: 5 doubles, as NAS BTIO (include/pario/pattern.h).
BTIO_POINT = 40
# The phases of the metadata workload, in the order the engine runs them; rates in files/s.
MD_OPS = ("create", "stat", "open_close", "read_small", "remove")

# An engine case, also the JSON object written into the spec: a dict because it is that document.
# Keys (schemas/spec.schema.json): name, backend, strategy, pattern, ops, reps, xfer, block, ...;
# keys starting with '_' are pario's own (where the case came from) and never reach the engine.
Case = dict[str, Any]


def md_files(case: Case, ranks: int) -> int:
    """Files of one repetition of a metadata case, all ranks together."""
    leaves = case.get("branching", 1) ** case.get("depth", 0)
    return int(leaves * case["files_per_dir"] * (1 if case.get("shared_dir", True) else ranks))


def case_bytes(case: Case, ranks: int) -> int:
    """Logical bytes moved by all ranks in one phase of a case (metadata: the files' data)."""
    if case.get("workload") == "metadata":
        return md_files(case, ranks) * case.get("file_size", 0)
    if case["pattern"] == "btio":  # the whole array, record after record, whatever the ranks
        x, y, z = case["grid_points"]
        return int(x * y * z * BTIO_POINT * case.get("steps", 1))
    if case["pattern"] == "subarray":
        per = 8
        for d in case.get("ldims", [1]):
            per *= d
    else:
        per = case["block"] * case.get("segments", 1)
    return int(per * ranks)
