"""`pario bench --reuse RUN`: read (or verify) the files an earlier run kept with -k, as they are.

The cases, ranks, directory and file names come from the stored run; this run only reads, never
writes, truncates or removes those files, whatever happens. Before the launch it measures how
much of each case's files sits in this host's page cache (mincore), so that reads after a
cache drop are known to be cold:

    pario bench -a mpiio -t 1m -b 1g -w -k          # run 7, files kept
    sync; echo 3 > /proc/sys/vm/drop_caches          # as root
    pario bench --reuse 7 -r -i 1                    # cold reads of run 7's files
"""
from __future__ import annotations

import glob
import os
import socket
from typing import Any

from pario.model.case import Case
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.plan.cases import read_hints_file
from pario.platform.pagecache import resident_fraction
from pario.platform.scratch import Scratch, new_run_id
from pario.settings import hints as hintlib


class ReuseScratch(Scratch):
    """The earlier run's directory and file prefix; nothing in it is ever removed by this run."""

    owns_files = False

    def __init__(self, directory: str, prefix: str):
        super().__init__(directory, run_id=new_run_id())
        self.prefix = prefix  # the files the engine reads: DIR/<earlier prefix>.<case>.<file>

    def prepare(self) -> None:
        if not os.path.isdir(self.dir):
            raise ParioError(f"--reuse: the directory {self.dir} of the kept files is gone")

    def leftovers(self):
        return []

    def cleanup(self) -> int:
        return 0

    def remove_dir_if_ours(self) -> None:
        return None


def _option_flags(request: BenchRequest, case_dests: tuple[str, ...]) -> list[str]:
    allowed = {"hint", "hints_file", "reorder", "reorder_host"}
    return [d for d in request.given(case_dests) if d not in allowed]


def plan(request: BenchRequest, run: dict[str, Any],
         case_dests: tuple[str, ...]) -> tuple[list[Case], int, ReuseScratch, str, dict[str, Any]]:
    """(cases, ranks, scratch, note, env facts) of a run reading the kept files of `run`, the stored
    run number request.reuse (the caller reads it from the store)."""
    given = _option_flags(request, case_dests)
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise ParioError(f"--reuse {request.reuse} reads that run's cases as they were written; drop {flag} "
                         "(only -r/-R/-W, --no-read-check, -i, -C/-Q, --hint and --hints-file go with --reuse)")
    if request.write:
        raise ParioError(f"--reuse {request.reuse} only reads the kept files; drop -w (a new run writes its own)")
    for dest, flag in (("seed", "-G"), ("buffer_max", "--buffer"), ("fsync", "-e")):
        if getattr(request, dest, None) is not None:
            raise ParioError(f"--reuse {request.reuse} reads the data as run {request.reuse} wrote it; drop {flag}")
    if request.config or request.suite:
        raise ParioError("--reuse takes its cases from the stored run; drop --config/--suite")
    if run["kind"] != "bench" or run["status"] != "complete":
        raise ParioError(f"run {request.reuse} is a {run['status']} {run['kind']} run; --reuse needs a complete "
                         "pario bench run that kept its files (-k)")
    spec, result = run["spec"], run["result"]
    echoed = {c.get("index"): c.get("spec") or {} for c in result.get("cases") or []}
    ranks = int((result.get("mpi") or {}).get("ranks") or 0)
    if request.ranks is not None and request.ranks != ranks:
        raise ParioError(f"run {request.reuse} wrote its files with {ranks} ranks; read them with -n {ranks} "
                         "(the file layout follows the ranks)")
    stored_cases = spec.get("cases") or []
    kept = [c.get("workload") != "metadata" and bool(c.get("keep")) for c in stored_cases]
    if not any(kept):
        raise ParioError(f"run {request.reuse} kept no files (it ran without -k); write with -k, then --reuse")
    if not all(kept):  # the engine names files by case position: every case must keep its own
        unkept = ", ".join(c.get("name", str(i)) for i, (c, k) in enumerate(zip(stored_cases, kept)) if not k)
        raise ParioError(f"run {request.reuse} kept only some of its cases' files ({unkept} not kept); "
                         "--reuse reads a run whose every case was kept (-k)")
    scratch = ReuseScratch(spec["dir"], spec["prefix"])
    cases, resident = [], {}
    for index, stored in enumerate(stored_cases):
        paths = _files(scratch, index)
        if not paths:
            raise ParioError(f"run {request.reuse}: the files of case {stored.get('name')} are gone "
                             f"({scratch.dir}/{scratch.prefix}.{index}.*)")
        _not_stonewalled(request.reuse, stored, result)
        cases.append(_reading_case(request, stored, echoed.get(index, {})))
        resident[str(index)] = resident_fraction(paths)
    facts = {"run": request.reuse, "dir": scratch.dir, "prefix": scratch.prefix, "resident": resident,
             "host": socket.gethostname()}
    shares = [v for v in resident.values() if v is not None]
    share = max(shares) if shares else None
    note = (f"reading the files kept by run {request.reuse} in {scratch.dir}"
            + (f"; {share:.0%} of them in this host's page cache before the run" if share is not None else ""))
    return cases, ranks, scratch, note, facts


def _not_stonewalled(run: int | None, stored: Case, result: dict[str, Any]) -> None:
    """IOR's -D: a stonewalled write left short files; --reuse reads whole ones, so it is refused
    (IOR's later read reads the recorded count; here the same run's read with wear-out does)."""
    for case in result.get("cases") or []:
        if case.get("name") != stored.get("name"):
            continue
        writes = [p for p in case.get("phases") or [] if p.get("op") == "write"]
        if writes and int(writes[-1].get("bytes") or 0) < int(case.get("total_bytes") or 0):
            raise ParioError(f"run {run}: the write of case {stored.get('name')} was stonewalled (-D): its files "
                             f"hold {writes[-1]['bytes']} of {case['total_bytes']} bytes and --reuse reads whole "
                             "files; read in the same run (-w -r -D S -O stoneWallingWearOut=1)")


def _reading_case(request: BenchRequest, stored: Case, echoed: dict[str, Any]) -> Case:
    # the writer's -Y -D -E -T are not the reader's; -u is where its files are (unique_dir stays)
    case = {k: v for k, v in stored.items()
            if k not in ("precreated", "fsync_per_write", "deadline_us", "wearout", "use_existing", "max_time_ms")}
    for key in ("buffer_max", "seed"):  # what the writer used decides what the reader expects
        if echoed.get(key) is not None:
            case[key] = echoed[key]
    ops = [op for op, on in (("read", request.read or request.check_read), ("verify", request.verify)) if on]
    # residency: the engine measures the page cache before each read, so that a second repetition
    # (reading what the first cached) is known to be warm
    case.update(ops=ops or ["read"], reuse=True, keep=True, residency=True)
    case.pop("read_check", None)  # the reader's choice, not the writer's
    if request.read_check is False:
        if request.check_read:
            raise ParioError("-R (checked reads) contradicts --no-read-check; give one of them")
        case["read_check"] = False
    if request.reps is not None:
        case["reps"] = request.reps
    if request.reorder is not None:
        case["reorder"] = request.reorder
    elif request.reorder_host:
        case["reorder"] = -1
    if request.hint or request.hints_file:
        hints = read_hints_file(request.hints_file) if request.hints_file else {}
        hints.update(hintlib.parse_pair(h) for h in request.hint or [])
        case["hints"] = hints
    return case


def _files(scratch: Scratch, index: int) -> list[str]:
    name = f"{glob.escape(scratch.prefix)}.{index}.*"
    found = glob.glob(os.path.join(glob.escape(scratch.dir), name))
    found += glob.glob(os.path.join(glob.escape(scratch.dir), "[0-9]*", name))  # -u: DIR/<rank>/
    return sorted(p for p in found if not os.path.islink(p))
