"""Reject impossible or inconsistent cases before anything is launched: one clear line each,
saying what is wrong and how to fix it."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional

from . import hints as hintlib
from .errors import ParioError
from .spec import format_size

KNOWN_BACKENDS = ("posix", "mpiio", "null", "hdf5", "pnetcdf", "netcdf4", "adios2")  # ARCHITECTURE.md
ALIGN = 4096  # O_DIRECT alignment of sizes and offsets
# Capabilities used before the engine is asked; its --list is the authority once known.
STATIC_CAPS = {"posix": {"shared", "odirect"}, "mpiio": {"collective", "shared", "view", "hints"},
               "null": {"collective", "shared", "nodata"}}


def _fail(case: Dict[str, Any], msg: str) -> None:
    where = case.get("_where", "command line")
    prefix = "" if where == "command line" else f"{where} ('{case.get('name', '?')}'): "
    raise ParioError(prefix + msg)


def _near(value: int, mult: int) -> int:
    """Nearest positive multiple of mult."""
    lo = value - value % mult
    hi = lo + mult
    return hi if lo == 0 or value - lo > hi - value else lo


def check_case(case: Dict[str, Any], ranks: int, known: Iterable[str] = KNOWN_BACKENDS) -> None:
    known = list(known)
    backend = case["backend"]
    if backend not in known:
        _fail(case, f"unknown backend '{backend}'{hintlib.did_you_mean(backend, known)}; "
                    f"known backends: {', '.join(known)} (`pario bench --list` says which are built)")
    if case["pattern"] not in ("segmented", "subarray", "random"):
        _fail(case, f"unknown pattern '{case['pattern']}'"
                    f"{hintlib.did_you_mean(case['pattern'], ['segmented', 'subarray', 'random'])}; "
                    "choose segmented, subarray or random")
    if not case["ops"]:
        _fail(case, "no operations: give at least one of -w (write), -r (read), -W (verify)")
    if case["reps"] < 1:
        _fail(case, f"repetitions must be at least 1 (-i {case['reps']})")
    if ranks < 1:
        _fail(case, f"ranks must be at least 1 (-n {ranks})")

    caps = STATIC_CAPS.get(backend)
    if caps is not None:  # else the engine's --list decides (check_backends)
        _check_caps(case, caps)

    if case.get("reorder", 0) < -1:
        _fail(case, f"read shift {case['reorder']}: give -Q N with N >= 0, or -C for the next host's ranks")

    strategy = case["strategy"]
    if strategy == "nfiles":
        k = case.get("nfiles", 0)
        if k < 1:
            _fail(case, "nfiles:K needs K >= 1")
        if k > ranks:
            _fail(case, f"nfiles:{k} needs at least {k} ranks, the run has {ranks}; lower K or raise -n")
    one_writer = strategy == "serial" or case.get("aggregate")
    if one_writer and (case.get("collective") or case.get("view")):
        what = "serial" if strategy == "serial" else "--aggregate"
        _fail(case, f"{what} has one writer per file, so collective I/O and file views do not apply; "
                    "drop -c/--view or choose another strategy")

    if case["pattern"] == "subarray":
        _check_subarray(case)
    else:
        _check_segmented(case)

    for key, value in (case.get("hints") or {}).items():
        hintlib.check(key, value, where=_hint_where(case))


def _check_caps(case: Dict[str, Any], caps) -> None:
    backend = case["backend"]
    if case.get("collective") and "collective" not in caps:
        _fail(case, f"collective I/O (-c) needs a backend with collective calls (mpiio); "
                    f"add -a mpiio or drop -c ({backend} has none)")
    if case.get("view") and "view" not in caps:
        _fail(case, "file views (--view) need a backend with views (mpiio); add -a mpiio or drop --view")
    if case.get("hints") and "hints" not in caps:
        _fail(case, f"MPI-IO hints apply to -a mpiio only; drop --hint/--hints-file for the {backend} backend")
    if case.get("odirect") and "odirect" not in caps:
        _fail(case, f"--odirect is a POSIX setting ({backend} does not take it); for MPI-IO use "
                    "--hint direct_write=true --hint direct_read=true (ROMIO on Lustre/XFS)")
    if "nodata" in caps and "verify" in case["ops"]:
        _fail(case, f"the {backend} backend stores no data, so there is nothing to verify; drop -W")


def _hint_where(case: Dict[str, Any]) -> str:
    where = case.get("_where", "command line")
    return "--hint" if where == "command line" else f"{where} hints"


def _check_segmented(case: Dict[str, Any]) -> None:
    xfer, block, segs = case["xfer"], case["block"], case.get("segments", 1)
    if xfer % 8:
        _fail(case, f"transfer size {xfer} is not a multiple of 8 bytes (the data pattern is 8-byte words); "
                    f"use {_near(xfer, 8)}")
    if block % xfer:
        _fail(case, f"transfer size {format_size(xfer)} does not divide block size {format_size(block)}; "
                    f"make -b a multiple of -t (e.g. -b {format_size(max(block - block % xfer, xfer))})")
    if segs < 1:
        _fail(case, f"segments must be at least 1 (-s {segs})")
    if case.get("view") and case["pattern"] == "random":
        _fail(case, "file views describe a fixed layout, random offsets do not have one; drop --view or -z")
    if case.get("odirect"):
        for what, flag, value in (("transfer size", "-t", xfer), ("block size", "-b", block)):
            if value % ALIGN:
                _fail(case, f"--odirect needs sizes and offsets that are multiples of 4096: {what} {value} is not; "
                            f"nearest valid {flag} {format_size(_near(value, ALIGN))}")


def _check_subarray(case: Dict[str, Any]) -> None:
    dims = case.get("ldims")
    if not dims:
        _fail(case, "--pattern subarray needs the local block: add --dims, e.g. --dims 64x64x64 (8-byte elements)")
    local = 8
    for d in dims:
        local *= d
    xfer = case.get("xfer", local)
    if xfer % 8:
        _fail(case, f"transfer size {xfer} is not a multiple of 8 bytes; use {_near(xfer, 8)}")
    if case.get("view") and local % xfer:
        _fail(case, f"transfer size {format_size(xfer)} does not divide the local block "
                    f"({'x'.join(map(str, dims))} x 8 B = {local} B); choose a -t that divides it")
    if case.get("odirect"):
        row = dims[-1] * 8
        if row % ALIGN:
            _fail(case, f"--odirect needs offsets that are multiples of 4096: a subarray row is {row} B; "
                        f"make the last dimension a multiple of 512 (e.g. {_near(dims[-1], 512)})")


def check_backends(cases: List[Dict[str, Any]], listing: Optional[Dict[str, Any]]) -> None:
    """After the engine's --list: every backend asked for must be known and built."""
    if not listing:
        return
    rows = {b["name"]: b for b in listing.get("backends", [])}
    for case in cases:
        row = rows.get(case["backend"])
        if row is None:
            _fail(case, f"unknown backend '{case['backend']}'{hintlib.did_you_mean(case['backend'], rows)}; "
                        f"this engine has: {', '.join(rows)}")
        if not row.get("built", False):
            how = row.get("missing") or "rebuild pario with its library installed"
            _fail(case, f"backend {case['backend']} is not built: {how}")
        _check_caps(case, set(row.get("caps", [])))


def check_all(cases: List[Dict[str, Any]], ranks: int, known: Iterable[str] = KNOWN_BACKENDS) -> None:
    if not cases:
        raise ParioError("no cases to run")
    for case in cases:
        check_case(case, ranks, known)
