"""A case as the `pario bench` command that builds it again: the inverse of plan.cases.build_case,
and the one place every command pario prints for a case comes from (tune's winner and each trial's
stored command, which `pario results show` and the report print). It renders the engine case that
ran, not the flags a user gave, so a flag cannot be dropped on the way (-e, -G, --buffer, a hints
file's hints): tests/python/test_case_command.py runs every flag of `pario bench` through it and
back to the same case."""
from __future__ import annotations

import shlex
from collections.abc import Mapping

from pario.model.case import MD_OPS, OPS, Case
from pario.model.units import exact
from pario.plan.cases import DEFAULT_REPS, case_label, metadata_label

_OP_FLAG = {"write": "-w", "read": "-r", "verify": "-W"}
_SWITCHES = (("collective", "-c"), ("fsync", "-e"), ("odirect", "--odirect"), ("keep", "-k"),
             ("fsync_per_write", "-Y"), ("unique_dir", "-u"), ("use_existing", "-E"))
_EVICT = {1: "--drop-caches", 2: "--drop-caches=all"}   # plan.bench.EVICT, the other way


def _number(x: float) -> str:
    """A float as the shortest text that reads back as the same float (1.5, not 1.500000)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def _dims(values) -> str:
    return "x".join(str(int(v)) for v in values)


def _strategy(case: Case) -> str:
    if case["strategy"] == "nfiles":
        return f"nfiles:{case['nfiles']}"
    return "per-node" if case["strategy"] == "pernode" else case["strategy"]


def case_words(case: Case) -> list[str]:
    """The `pario bench` flags (unquoted words) that build this engine case: every key the case
    carries, and none that the defaults would add anyway (a label-made name, -i 3, -s 1)."""
    if case.get("workload") == "metadata":
        return _metadata_words(case)
    words = ["-a", case["backend"]]
    words += [_OP_FLAG[op] for op in OPS if op in (case.get("ops") or ())]
    pattern = case.get("pattern", "segmented")
    if pattern == "btio":
        words += ["--pattern", "btio", "--grid", _dims(case["grid_points"]), "--steps", str(case.get("steps", 1))]
    elif pattern == "subarray":
        words += ["--pattern", "subarray"]
        if case.get("ldims"):
            words += ["--dims", _dims(case["ldims"])]
        if "xfer" in case:
            words += ["-t", exact(case["xfer"])]
    else:
        if pattern == "random":
            words += ["--pattern", "random"]
        words += ["-t", exact(case["xfer"]), "-b", exact(case["block"])]
        if case.get("segments", 1) != 1:
            words += ["-s", str(case["segments"])]
    if case.get("reps", DEFAULT_REPS) != DEFAULT_REPS:
        words += ["-i", str(case["reps"])]
    words += ["--strategy", _strategy(case)]
    if case.get("aggregate"):
        words.append("--aggregate")
    words += [flag for key, flag in _SWITCHES if case.get(key)]
    implied_view = pattern == "btio" or (pattern == "subarray" and bool(case.get("collective")))
    if bool(case.get("view")) != implied_view:
        words.append("--view" if case.get("view") else "--no-view")
    if case.get("read_check") is False:
        words.append("--no-read-check")
    if case.get("deadline_us"):
        words += ["-D", _number(case["deadline_us"] / 1e6)]
    if case.get("wearout"):
        words += ["-O", "stoneWallingWearOut=1"]
    if case.get("max_time_ms"):
        words += ["-T", _number(case["max_time_ms"] / 60e3)]
    reorder = case.get("reorder", 0)
    if reorder == -1:
        words.append("-C")
    elif reorder:
        words += ["-Q", str(reorder)]
    if "seed" in case:
        words += ["-G", str(case["seed"])]
    if "buffer_max" in case:
        words += ["--buffer", exact(case["buffer_max"])]
    words += [w for k, v in sorted((case.get("hints") or {}).items()) for w in ("--hint", f"{k}={v}")]
    words += [w for k, v in sorted((case.get("lib") or {}).items()) for w in ("--lib", f"{k}={v}")]
    words += layout_words(case)
    if case.get("name") and case["name"] != case_label(case):
        words += ["--name", case["name"]]
    if case.get("evict"):
        words.append(_EVICT.get(case["evict"], "--drop-caches"))
    return words


def _metadata_words(case: Case) -> list[str]:
    words = ["--metadata", "--files-per-dir", str(case["files_per_dir"])]
    if case.get("file_size"):
        words += ["--file-size", exact(case["file_size"])]
    if case.get("depth"):
        words += ["--depth", str(case["depth"])]
    if case.get("branching", 1) != 1:
        words += ["--branching", str(case["branching"])]
    if not case.get("shared_dir", True):
        words.append("--per-rank-dirs")
    if list(case.get("ops") or MD_OPS) != list(MD_OPS):
        words += ["--md-ops", ",".join(case["ops"])]
    if case.get("reps", DEFAULT_REPS) != DEFAULT_REPS:
        words += ["-i", str(case["reps"])]
    if "seed" in case:
        words += ["-G", str(case["seed"])]
    words += layout_words(case)
    if case.get("name") and case["name"] != metadata_label(case):
        words += ["--name", case["name"]]
    return words


def layout_words(case: Case) -> list[str]:
    """The layout the case's files are created with (plan.cases.layout_request, the other way)."""
    comp = (case.get("_layout") or [{}])[0]
    words = ["--stripe-count", comp["stripe_count"]] if "stripe_count" in comp else []
    words += ["--stripe-size", exact(int(comp["stripe_size"]))] if "stripe_size" in comp else []
    words += ["--object-size", exact(int(comp["object_size"]))] if "object_size" in comp else []
    return words


def bench_command(case: Case, ranks: int, io: str | None = None, mca: Mapping[str, str] | None = None,
                  nodes: int | None = None) -> str:
    """The whole run of one case as one shell command: `pario bench` with the case's flags, its
    ranks, the Open MPI io component, and other MCA parameters as OMPI_MCA_ variables (which Open
    MPI's ranks read from the environment mpirun passes on)."""
    env = [f"OMPI_MCA_{k}={shlex.quote(str(v))}" for k, v in sorted((mca or {}).items()) if k != "io"]
    words = ["pario", "bench", *case_words(case), "-n", str(ranks)] + (["--nodes", str(nodes)] if nodes else [])
    if io:
        words += ["--io", io]
    return " ".join(env + [shlex.quote(w) for w in words])
