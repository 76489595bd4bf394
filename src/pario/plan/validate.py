"""Reject impossible or inconsistent cases before anything is launched: one clear line each,
saying what is wrong and how to fix it."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any, NoReturn

from pario.model.case import MD_OPS, Case, case_bytes
from pario.model.errors import ParioError, did_you_mean
from pario.model.units import exact
from pario.plan import ior_checks
from pario.plan.cases import PATTERNS
from pario.settings import hints as hintlib
from pario.settings import knobs, values
from pario.settings.catalogue import Setting

# The engine's backends (csrc/backends, one file each); its --list is the authority once known.
KNOWN_BACKENDS = ("posix", "mpiio", "null", "hdf5", "pnetcdf", "netcdf4", "adios2")
ALIGN = 4096  # O_DIRECT alignment of sizes and offsets
_ENGINE_SIZE = re.compile(r"^\d+[kmgKMG]?$")  # what the engine's pario_parse_size reads
# Capabilities used before the engine is asked; its --list is the authority once known.
STATIC_CAPS = {"posix": {"shared", "odirect"}, "mpiio": {"collective", "shared", "view", "hints"},
               "null": {"collective", "shared", "nodata"}, "hdf5": {"collective", "shared", "view", "hints"},
               "pnetcdf": {"collective", "shared", "view", "nonblocking", "hints"},
               "netcdf4": {"collective", "shared", "view", "hints"}, "adios2": {"shared", "view"}}


def _with(cap: str) -> str:
    names = [b for b in KNOWN_BACKENDS if cap in STATIC_CAPS[b] and b != "null"]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _fail(case: Case, msg: str) -> NoReturn:
    where = case.get("_where", "command line")
    named = f"('{case.get('name', '?')}')"
    prefix = "" if where == "command line" else f"{where}: " if where.endswith(named) else f"{where} {named}: "
    raise ParioError(prefix + msg)


def _near(value: int, mult: int) -> int:
    """Nearest positive multiple of mult."""
    lo = value - value % mult
    hi = lo + mult
    return hi if lo == 0 or value - lo > hi - value else lo


def check_case(case: Case, ranks: int, known: Iterable[str] = KNOWN_BACKENDS) -> None:
    if case.get("workload") == "metadata":
        return check_metadata(case, ranks)
    known = list(known)
    backend = case["backend"]
    if backend not in known:
        _fail(case, f"unknown backend '{backend}'{did_you_mean(backend, known)}; "
                    f"known backends: {', '.join(known)} (`pario bench --list` says which are built)")
    if case["pattern"] not in PATTERNS:
        _fail(case, f"unknown pattern '{case['pattern']}'{did_you_mean(case['pattern'], PATTERNS)}; "
                    "choose segmented, subarray, random or btio")
    if not case["ops"]:
        _fail(case, "no operations: give at least one of -w (write), -r (read), -W (verify)")
    if case["reps"] < 1:
        _fail(case, f"repetitions must be at least 1 (-i {case['reps']})")
    if ranks < 1:
        _fail(case, f"ranks must be at least 1 (-n {ranks})")

    if case["pattern"] == "btio" and backend not in ("mpiio", "pnetcdf"):
        _fail(case, f"--pattern btio runs through -a mpiio (BTIO's MPI-IO methods) or -a pnetcdf (its PnetCDF "
                    f"methods), not {backend}")
    caps = STATIC_CAPS.get(backend)
    if caps is not None:  # else the engine's --list decides (check_backends)
        _check_caps(case, caps)
    ior_checks.check(case, _fail)

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

    if case["pattern"] == "btio":
        _check_btio(case, ranks)
    elif case["pattern"] == "subarray":
        _check_subarray(case)
    else:
        _check_segmented(case)
    _check_totals(case, ranks)

    hints = case.get("hints") or {}
    most = knobs.limit("hints")
    if most is not None and len(hints) > most:
        _fail(case, f"{len(hints)} MPI-IO hints; the engine passes at most {most} (MPI_Info of one open)")
    for key, value in hints.items():
        hints[key] = hintlib.check(key, value, where=_hint_where(case))  # as the MPI will read it
    if backend in knobs.LIBRARIES or case.get("lib"):
        check_lib(case, lib_options(backend))


def check_metadata(case: Case, ranks: int) -> None:
    """The limits the engine enforces, said with the flag that sets each."""
    if case.get("backend", "posix") != "posix":
        _fail(case, f"the metadata workload runs POSIX calls; drop -a {case['backend']}")
    if case["reps"] < 1:
        _fail(case, f"repetitions must be at least 1 (-i {case['reps']})")
    if not case["ops"] or any(o not in MD_OPS for o in case["ops"]):
        _fail(case, f"--md-ops: give a subset of {','.join(MD_OPS)}")
    if ranks < 1:
        _fail(case, f"ranks must be at least 1 (-n {ranks})")
    fpd, depth, br = case["files_per_dir"], case.get("depth", 0), case.get("branching", 1)
    if fpd < 1:
        _fail(case, f"--files-per-dir {fpd}: give at least 1")
    if not 0 <= depth <= 8:
        _fail(case, f"--depth {depth}: the tree has 0 to 8 levels below its root")
    if not 1 <= br <= 64:
        _fail(case, f"--branching {br}: give 1 to 64 subdirectories per directory")
    if br ** depth * fpd > 1 << 30:
        _fail(case, f"the tree is too large: {br}^{depth} leaves x {fpd} files is over 2^30; "
                    "lower --depth, --branching or --files-per-dir")
    if case.get("file_size", 0) > 1 << 30:
        _fail(case, f"--file-size {exact(case['file_size'])}: at most 1g (the workload is about small files)")


def lib_options(backend: str, row: dict[str, Any] | None = None) -> dict[str, Setting]:
    """The library settings a backend takes (settings.knobs, the one table); an engine row that
    names its keys (`lib_keys`) without describing them keeps the table's description of each."""
    options = knobs.library_options(backend, row)
    names = (row or {}).get("lib_keys")
    if names and not (row or {}).get("options"):
        options = {n: options.get(n) or Setting(n, "str") for n in names}
    return options


def check_lib(case: Case, options: dict[str, Setting]) -> None:
    """Library settings: known keys (case-insensitive, rewritten to the library's spelling) and
    the values the engine would refuse, before anything is launched."""
    lib = case.get("lib") or {}
    backend = case["backend"]
    keys = list(options)
    if lib and backend not in knobs.LIBRARIES:
        _fail(case, f"--lib settings apply to the library layers ({', '.join(knobs.LIBRARIES)}); "
                    f"the {backend} backend takes none: drop --lib or give -a hdf5|pnetcdf|netcdf4|adios2")
    canon = {k.lower(): k for k in keys}
    fixed: dict[str, str] = {}
    for key, value in lib.items():
        name = canon.get(key.lower())
        if name is None:
            _fail(case, f"--lib {key}: {backend} has no such setting{did_you_mean(key, keys)}; "
                        f"{backend} takes: {', '.join(keys)}")
        fixed[name] = _lib_value(case, backend, options[name], str(value))
    if lib:
        case["lib"] = fixed
    has = lambda k: k in fixed  # noqa: E731
    if backend in ("hdf5", "netcdf4") and has("align_threshold") and not has("alignment"):
        _fail(case, "--lib align_threshold needs --lib alignment (objects of at least the threshold are "
                    "aligned to it); add e.g. --lib alignment=1m")
    if backend == "pnetcdf" and has("nb_batch") and fixed.get("mode", "blocking") == "blocking":
        _fail(case, "--lib nb_batch applies to the non-blocking modes; add --lib mode=iput or --lib mode=bput")


def _lib_value(case: Case, backend: str, setting: Setting, value: str) -> str:
    """The value as the engine (or ADIOS2) gets it: settings.values checks it against the row of the
    engine's option table, for the settings ADIOS2 checks at open too, so nothing is refused late."""
    key = setting.name
    if key == "chunk" or setting.kind == "dims":
        ndims = len(case.get("ldims") or [1]) if case.get("pattern") == "subarray" else 1
        parts = value.split(",")
        if value.lower() in ("none", "block"):
            return value.lower()
        if len(parts) != ndims or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
            what = (f"{ndims} positive element counts separated by commas (one per dimension of the array)"
                    if ndims > 1 else "a positive element count (the array has one dimension)")
            _fail(case, f"--lib chunk={value}: give none, block or {what}")
        return ",".join(p.strip() for p in parts)
    if key == "nb_batch":
        setting = Setting(key, "int", lo=1, doc="requests per wait")
    norm, why = values.check(setting, value, "pario", max_chars=knobs.limit("lib_value_chars"))
    if why or norm is None:
        what = "a number of requests >= 1" if key == "nb_batch" else values.describe(setting)
        _fail(case, f"--lib {key}={value}: {backend} {key} is {what}"
                    f"{did_you_mean(value.lower(), setting.values) if setting.values else ''}")
    if setting.kind == "size" and backend != "adios2" and _ENGINE_SIZE.match(value.strip()):
        return value.strip()  # as the user wrote it (8k): the engine reads this syntax itself
    return norm  # a size as plain bytes for ADIOS2 (its own units differ), canonical choices and booleans


def _check_caps(case: Case, caps) -> None:
    backend = case["backend"]
    if case.get("collective") and "collective" not in caps:
        why = ("ADIOS2 BP5 has no collective/independent choice: it aggregates by itself (--lib NumAggregators=N)"
               if backend == "adios2" else f"{backend} has none")
        _fail(case, f"collective I/O (-c) needs a backend with collective calls ({why}); "
                    f"add -a mpiio or drop -c (hdf5, pnetcdf and netcdf4 have them too)")
    if case.get("view") and "view" not in caps:
        _fail(case, f"file views (--view) need a backend with views ({_with('view')}); "
                    f"add -a mpiio or drop --view")
    if case.get("hints") and "hints" not in caps:
        how = " (ADIOS2 takes BP5 parameters: --lib KEY=VALUE)" if backend == "adios2" else ""
        _fail(case, f"MPI-IO hints apply to {_with('hints')}; drop --hint/--hints-file for the {backend} "
                    f"backend{how}")
    if case.get("odirect") and "odirect" not in caps:
        _fail(case, f"--odirect is a POSIX setting ({backend} does not take it); for MPI-IO use "
                    "--hint direct_write=true --hint direct_read=true (ROMIO on Lustre/XFS)")
    if "nodata" in caps and "verify" in case["ops"]:
        _fail(case, f"the {backend} backend stores no data, so there is nothing to verify; drop -W")


def _hint_where(case: Case) -> str:
    where = case.get("_where", "command line")
    return "--hint" if where == "command line" else f"{where} hints"


def _check_segmented(case: Case) -> None:
    xfer, block, segs = case["xfer"], case["block"], case.get("segments", 1)
    if xfer % 8:
        _fail(case, f"transfer size {xfer} is not a multiple of 8 bytes (the data pattern is 8-byte words); "
                    f"use {_near(xfer, 8)}")
    if block % xfer:
        _fail(case, f"transfer size {exact(xfer)} does not divide block size {exact(block)}; "
                    f"make -b a multiple of -t (e.g. -b {exact(max(block - block % xfer, xfer))})")
    if segs < 1:
        _fail(case, f"segments must be at least 1 (-s {segs})")
    if case.get("view") and case["pattern"] == "random":
        _fail(case, "file views describe a fixed layout, random offsets do not have one; drop --view or -z")
    if case.get("odirect"):
        for what, flag, value in (("transfer size", "-t", xfer), ("block size", "-b", block)):
            if value % ALIGN:
                _fail(case, f"--odirect needs sizes and offsets that are multiples of 4096: {what} {value} is not; "
                            f"nearest valid {flag} {exact(_near(value, ALIGN))}")


def _check_btio(case: Case, ranks: int) -> None:
    """NAS BTIO's shape: a square number of ranks sharing one file, each rank's cells a file view."""
    cells = math.isqrt(ranks)
    if cells * cells != ranks:
        low, high = cells * cells, (cells + 1) * (cells + 1)
        _fail(case, f"--pattern btio needs a square number of ranks (BTIO's diagonal decomposition): -n {ranks} "
                    f"is not; use -n {low} or -n {high}")
    if case["strategy"] != "shared" or case.get("aggregate"):
        _fail(case, "--pattern btio writes one shared file: drop --strategy/--aggregate (or give --strategy shared)")
    if not case.get("view"):
        _fail(case, "--pattern btio describes each rank's cells with a file view: drop --no-view")
    for key, why in (("reorder", "reads back each rank's own cells (-Q/-C do not apply)"),
                     ("odirect", "goes through MPI-IO (--odirect is a POSIX setting)")):
        if case.get(key):
            _fail(case, f"--pattern btio {why}")
    small = [d for d in case["grid_points"] if d < cells]
    if small:
        _fail(case, f"--grid {'x'.join(map(str, case['grid_points']))}: over {ranks} ranks every dimension needs at "
                    f"least {cells} points (one per cell)")
    per_step = max(case_bytes(case, 1) // case["steps"] // ranks, 1)
    if per_step > (1 << 31) - (1 << 20):
        _fail(case, f"--pattern btio: one step is about {exact(per_step)} per rank, over MPI's 2 GiB per call; "
                    "use more ranks or a smaller --grid")


def _check_subarray(case: Case) -> None:
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
        _fail(case, f"transfer size {exact(xfer)} does not divide the local block "
                    f"({'x'.join(map(str, dims))} x 8 B = {local} B); choose a -t that divides it")
    if case.get("odirect"):
        row = dims[-1] * 8
        if row % ALIGN:
            _fail(case, f"--odirect needs offsets that are multiples of 4096: a subarray row is {row} B; "
                        f"make the last dimension a multiple of 512 (e.g. {_near(dims[-1], 512)})")


def grid(n: int, ndims: int) -> list[int]:
    """MPI_Dims_create(n, ndims): n's prime factors spread over the dimensions, as even as can be,
    largest first (the engine's process grid of a subarray case, csrc/engine/groups.c)."""
    factors, m, p = [], n, 2
    while p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    if m > 1:
        factors.append(m)
    dims = [1] * ndims
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims, reverse=True)


def _members(case: Case, ranks: int) -> int:
    """Ranks sharing one file, at most (per-node: every rank on one node, the largest it can be)."""
    if case["strategy"] == "fpp":
        return 1
    if case["strategy"] == "nfiles":
        return -(-ranks // max(case.get("nfiles", 1), 1))
    return ranks


def _check_totals(case: Case, ranks: int) -> None:
    """What the engine's types hold: a file under 2^63 bytes, MPI's int counts of a subarray."""
    most = knobs.limit("integer_max") or (1 << 63) - 1
    if case["pattern"] == "btio":  # one shared file: the whole grid, 5 doubles a point, once per step
        total = 40 * case["steps"] * math.prod(case["grid_points"])
        if total > most:
            _fail(case, f"--pattern btio: the file would hold {total} bytes (the grid's points x 5 doubles x "
                        f"{case['steps']} steps), beyond the 2^63 bytes a file offset holds; lower --grid or --steps")
        return
    members = _members(case, ranks)
    if case["pattern"] == "subarray":
        dims = case.get("ldims") or [1]
        for d, (local, procs) in enumerate(zip(dims, grid(members, len(dims)))):
            if local * procs > (knobs.limit("int_max") or (1 << 31) - 1):
                _fail(case, f"--dims: dimension {d} of the global array is {local} x {procs} ranks = {local * procs} "
                            "elements, beyond what MPI's datatypes count (2^31 - 1); make the local block smaller")
        member = 8
        for local in dims:
            member *= local
    else:
        member = case["block"] * case.get("segments", 1)
    if member * members > most:
        _fail(case, f"the file would hold {member * members} bytes ({members} ranks x {member}), beyond the "
                    "2^63 bytes a file offset holds; lower -b, -s or --dims")


def check_backends(cases: list[Case], listing: dict[str, Any] | None) -> None:
    """After the engine's --list: every backend asked for must be known and built."""
    if not listing:
        return
    rows = {b["name"]: b for b in listing.get("backends", [])}
    for case in cases:
        row = rows.get(case["backend"])
        if row is None:
            _fail(case, f"unknown backend '{case['backend']}'{did_you_mean(case['backend'], rows)}; "
                        f"this engine has: {', '.join(rows)}")
        if not row.get("built", False):
            how = row.get("missing") or "rebuild pario with its library installed"
            _fail(case, f"backend {case['backend']} is not built: {how}")
        if case.get("workload") == "metadata":
            continue
        _check_caps(case, set(row.get("caps", [])))
        if case.get("lib") or row.get("lib_keys") or row.get("options"):
            check_lib(case, lib_options(case["backend"], row))


def check_all(cases: list[Case], ranks: int, known: Iterable[str] = KNOWN_BACKENDS) -> None:
    if not cases:
        raise ParioError("no cases to run")
    for case in cases:
        check_case(case, ranks, known)
