"""`pario bench`'s plan: the cases to run from a BenchRequest (its case flags, a job file, or a
suite), a sentence about their sizes, and the run's limits (watchdog time, room on disk)."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from pario.model.case import Case, case_bytes, md_files
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.model.units import human
from pario.plan import inputs
from pario.plan.cases import build_case, parse_lib, parse_strategy, unique_names
from pario.plan.jobfile import load_config
from pario.plan.suites import default_suite, layers_suite
from pario.platform import host
from pario.settings.hints import parse_pair

# Flags that describe the case (rather than the run); any of them means "one case, not the suite".
CASE_DESTS = ("backend", "collective", "transfer", "block", "segments", "strategy", "aggregate", "pattern",
              "dims", "btio_class", "grid", "steps", "view", "odirect", "hint", "hints_file", "fpp", "random",
              "reorder_host", "reorder", "name", "lib", "metadata", "files_per_dir", "file_size", "depth",
              "branching", "per_rank_dirs", "md_ops",
              "fsync_per_write", "deadline", "wearout", "unique_dir", "use_existing", "max_time",
              "stripe_count", "stripe_size", "object_size")


def check_request(request: BenchRequest) -> None:
    """Every value of the request by its row (plan/inputs.py REQUEST): what argparse checked for a
    command line, for a request made otherwise (a tuner, a script) too."""
    for f in fields(request):
        value = getattr(request, f.name)
        if value is not None and not (f.name == "launcher" and value == "mpirun"):
            inputs.convert(inputs.REQUEST[f.name], value, f"{f.name} =")


def flag_options(request: BenchRequest) -> dict[str, Any]:
    """The case keys the user gave on the command line (spec.CASE_KEYS names)."""
    opts: dict[str, Any] = {}
    for key in ("backend", "collective", "transfer", "block", "segments", "reps", "fsync", "keep", "seed",
                "strategy", "aggregate", "pattern", "dims", "btio_class", "grid", "steps", "view", "odirect",
                "hints_file", "name",
                "write", "read", "verify", "buffer_max", "read_check",
                "fsync_per_write", "deadline", "wearout", "unique_dir", "use_existing", "max_time",
                "stripe_count", "stripe_size", "object_size"):
        value = getattr(request, key, None)
        if value is not None:
            opts[key] = value
    if request.check_read:
        if request.read_check is False:
            raise ParioError("-R (checked reads) contradicts --no-read-check; give one of them")
        opts["read"] = True
    if request.fpp:
        if request.strategy and parse_strategy(request.strategy)[0] != "fpp":
            raise ParioError(f"-F (file per process) contradicts --strategy {request.strategy}; give one of them")
        opts["strategy"] = "fpp"
    if request.random:
        if request.pattern and request.pattern != "random":
            raise ParioError(f"-z (random offsets) contradicts --pattern {request.pattern}; give one of them")
        opts["pattern"] = "random"
    if request.reorder is not None:
        opts["reorder"] = request.reorder
    elif request.reorder_host:
        opts["reorder"] = "host"
    if request.hint:
        opts["hints"] = list(request.hint)
    if request.lib:
        opts["lib"] = list(request.lib)
    if request.metadata:
        opts["workload"] = "metadata"
    for key in ("files_per_dir", "file_size", "depth", "branching", "per_rank_dirs"):
        if getattr(request, key, None) is not None:
            opts[key] = getattr(request, key)
    if request.md_ops:
        opts["ops"] = request.md_ops
    return opts


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    if any(k in over for k in ("write", "read", "verify")):
        out.pop("ops", None)  # -w/-r/-W on the command line replace the file's ops
    if "hints" in over and isinstance(out.get("hints"), dict):
        merged = dict(out["hints"])
        merged.update(dict(parse_pair(h) for h in over["hints"]))
        over = {**over, "hints": merged}
    if "lib" in over and isinstance(out.get("lib"), dict):  # settings add up: [defaults] < [[case]] < --lib
        over = {**over, "lib": {**parse_lib(out["lib"], "lib"), **parse_lib(over["lib"], "--lib")}}
    out.update(over)
    return out


def plan(request: BenchRequest, ranks: int, listing: dict | None, free_disk: int,
         rate_mib: float = 150.0) -> tuple[list[Case], str]:
    """The cases to run and a sentence about their sizes."""
    opts = flag_options(request)
    case_flags = request.given(CASE_DESTS)
    if request.cache and (request.config or case_flags):
        raise ParioError("--cache asks a suite for page-cache figures; a case of your own (or a job file) runs as "
                         "its flags say: drop --cache, and -e/--drop-caches are yours to give")
    if request.config:
        defaults, rows = load_config(request.config)
        cases = [build_case(_merge(_merge(defaults, row), opts), f"{request.config} case {i + 1}")
                 for i, row in enumerate(rows)]
        note = ""
    elif case_flags and request.suite:
        raise ParioError("--suite runs its own cases; drop the case flags (-a, -t, ...) "
                         "or use --config for a custom suite")
    elif case_flags:
        cases = [build_case(opts)]
        note = ""
    else:
        suite = layers_suite if request.suite == "layers" else default_suite
        cases, note = suite(request, ranks, listing, free_disk, opts, rate_mib)
    unique_names(cases)
    if not note:
        note = ("; ".join(f"{c['name']}: {_amount(c, ranks)} per phase" for c in cases[:4])
                + (" ..." if len(cases) > 4 else ""))
    if request.config and case_flags:
        note += same_cases_note(cases, case_flags)
    return cases, note


def same_cases_note(cases: list[Case], flags: list[str]) -> str:
    """When flags overriding a job file leave cases that differ only in their names, say so: their
    names promise a comparison the run no longer makes."""
    groups: dict[str, list[str]] = {}
    for c in cases:
        key = repr(sorted((k, repr(v)) for k, v in c.items() if k != "name" and not k.startswith("_")))
        groups.setdefault(key, []).append(c["name"])
    same = [names for names in groups.values() if len(names) > 1]
    if not same:
        return ""
    given = ", ".join("--" + f.replace("_", "-") for f in flags)
    return ("; note: with " + given + " overriding the job file, these cases are identical and differ "
            "only in name: " + "; ".join(", ".join(names) for names in same))


def _amount(case: Case, ranks: int) -> str:
    if case.get("workload") == "metadata":
        return f"{md_files(case, ranks)} files"
    return human(case_bytes(case, ranks))


EVICT = {"files": 1, "all": 2}  # --drop-caches LEVEL -> the engine's evict (schemas/spec.schema.json)


def apply_drop_caches(cases: list[Case], level: str | None, is_root: bool) -> None:
    """--drop-caches [all]: every data case that reads gets its files evicted before each read and
    verify (the engine: fsync + POSIX_FADV_DONTNEED on every host, as any user; `all` also
    /proc/sys/vm/drop_caches, root only) and the residency measured after it."""
    if not level:
        return
    if level not in EVICT:
        raise ParioError(f"--drop-caches {level}: give no value (the run's own files) or 'all' (also the whole "
                         "page cache, root only)")
    if level == "all" and not is_root:
        raise ParioError("--drop-caches all writes /proc/sys/vm/drop_caches, which needs root; plain --drop-caches "
                         "evicts the run's own files as any user")
    readers = [c for c in cases if c.get("workload") != "metadata" and c.get("backend") != "null"
               and set(c.get("ops") or ()) & {"read", "verify"}]
    if not readers:
        raise ParioError("--drop-caches evicts the run's files before its reads, and no case reads; add -r "
                         "(or -W), or drop --drop-caches")
    for case in readers:
        case["evict"] = EVICT[level]
        case["residency"] = True
def check_room(cases: list[Case], ranks: int, directory: str) -> None:
    """Refuse a run that cannot fit: files of kept cases stay, the others go after each case."""
    free = host.disk_free(host.nearest_existing(directory))
    sizes = [case_bytes(c, ranks) for c in cases]
    need = sum(b for b, c in zip(sizes, cases) if c.get("keep")) + max(
        [b for b, c in zip(sizes, cases) if not c.get("keep")] or [0])
    if free and need > free:
        raise ParioError(f"the run needs {human(need)} in {directory} but only {human(free)} "
                         "is free; lower -b/-s/--size or give another --dir")
