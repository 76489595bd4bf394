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

import ctypes
import ctypes.util
import functools
import glob
import mmap
import os
import socket
from typing import Any

from . import spec as specmod
from .errors import ParioError
from .scratch import Scratch, new_run_id


class ReuseScratch(Scratch):
    """The earlier run's directory and file prefix; nothing in it is ever removed by this run."""

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


def _option_flags(args, case_dests) -> list[str]:
    allowed = {"hint", "hints_file", "reorder", "reorder_host"}
    return [d for d in case_dests if d not in allowed and getattr(args, d, None) is not None]


def plan(args, store, case_dests) -> tuple[list[dict[str, Any]], int, ReuseScratch, str, dict[str, Any]]:
    """(cases, ranks, scratch, note, env facts) of a run reading run `args.reuse`'s kept files."""
    given = _option_flags(args, case_dests)
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise ParioError(f"--reuse {args.reuse} reads that run's cases as they were written; drop {flag} "
                         "(only -r/-R/-W, -i, -C/-Q, --hint and --hints-file go with --reuse)")
    if args.write:
        raise ParioError(f"--reuse {args.reuse} only reads the kept files; drop -w (a new run writes its own)")
    for dest, flag in (("seed", "-G"), ("buffer_max", "--buffer"), ("fsync", "-e")):
        if getattr(args, dest, None) is not None:
            raise ParioError(f"--reuse {args.reuse} reads the data as run {args.reuse} wrote it; drop {flag}")
    if args.config or args.suite:
        raise ParioError("--reuse takes its cases from the stored run; drop --config/--suite")
    run = store.get_run(args.reuse)
    if run["kind"] != "bench" or run["status"] != "complete":
        raise ParioError(f"run {args.reuse} is a {run['status']} {run['kind']} run; --reuse needs a complete "
                         "pario bench run that kept its files (-k)")
    spec, result = run["spec"], run["result"]
    echoed = {c.get("index"): c.get("spec") or {} for c in result.get("cases") or []}
    ranks = int((result.get("mpi") or {}).get("ranks") or 0)
    if args.ranks is not None and args.ranks != ranks:
        raise ParioError(f"run {args.reuse} wrote its files with {ranks} ranks; read them with -n {ranks} "
                         "(the file layout follows the ranks)")
    stored_cases = spec.get("cases") or []
    kept = [c.get("workload") != "metadata" and bool(c.get("keep")) for c in stored_cases]
    if not any(kept):
        raise ParioError(f"run {args.reuse} kept no files (it ran without -k); write with -k, then --reuse")
    if not all(kept):  # the engine names files by case position: every case must keep its own
        unkept = ", ".join(c.get("name", str(i)) for i, (c, k) in enumerate(zip(stored_cases, kept)) if not k)
        raise ParioError(f"run {args.reuse} kept only some of its cases' files ({unkept} not kept); "
                         "--reuse reads a run whose every case was kept (-k)")
    scratch = ReuseScratch(spec["dir"], spec["prefix"])
    cases, resident = [], {}
    for index, stored in enumerate(stored_cases):
        paths = _files(scratch, index)
        if not paths:
            raise ParioError(f"run {args.reuse}: the files of case {stored.get('name')} are gone "
                             f"({scratch.dir}/{scratch.prefix}.{index}.*)")
        cases.append(_reading_case(args, stored, echoed.get(index, {})))
        resident[str(index)] = resident_fraction(paths)
    facts = {"run": args.reuse, "dir": scratch.dir, "prefix": scratch.prefix, "resident": resident,
             "host": socket.gethostname()}
    shares = [v for v in resident.values() if v is not None]
    share = max(shares) if shares else None
    note = (f"reading the files kept by run {args.reuse} in {scratch.dir}"
            + (f"; {share:.0%} of them in this host's page cache before the run" if share is not None else ""))
    return cases, ranks, scratch, note, facts


def _reading_case(args, stored: dict[str, Any], echoed: dict[str, Any]) -> dict[str, Any]:
    case = {k: v for k, v in stored.items() if k not in ("precreated",)}
    for key in ("buffer_max", "seed"):  # what the writer used decides what the reader expects
        if echoed.get(key) is not None:
            case[key] = echoed[key]
    ops = [op for op, on in (("read", args.read or args.check_read), ("verify", args.verify)) if on]
    case.update(ops=ops or ["read"], reuse=True, keep=True)
    if args.reps is not None:
        case["reps"] = args.reps
    if args.reorder is not None:
        case["reorder"] = args.reorder
    elif args.reorder_host:
        case["reorder"] = -1
    if args.hint or args.hints_file:
        hints = dict(specmod.hintlib.parse_hints_file(args.hints_file)) if args.hints_file else {}
        hints.update(specmod.hintlib.parse_pair(h) for h in args.hint or [])
        case["hints"] = hints
    return case


def _files(scratch: Scratch, index: int) -> list[str]:
    pattern = os.path.join(glob.escape(scratch.dir), f"{glob.escape(scratch.prefix)}.{index}.*")
    return sorted(p for p in glob.glob(pattern) if not os.path.islink(p))


def resident_fraction(paths: list[str]) -> float | None:
    """Share of the files' pages in this host's page cache (mincore), or None where it cannot be
    measured. ADIOS2 outputs are directories: their files count."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += [os.path.join(d, f) for d, _, names in os.walk(path) for f in names]
        else:
            files.append(path)
    total = cached = 0
    for path in files:
        got = _mincore(path)
        if got is None:
            return None
        cached += got[0]
        total += got[1]
    return cached / total if total else None


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    return libc


def _mincore(path: str) -> tuple[int, int] | None:
    """(resident pages, pages) of one file."""
    libc = _libc()
    if libc is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return (0, 0)
        page = mmap.PAGESIZE
        pages = (size + page - 1) // page
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            return None
        try:
            vec = ctypes.create_string_buffer(pages)
            if libc.mincore(addr, size, vec) != 0:
                return None
            return (sum(b & 1 for b in vec.raw), pages)
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)
