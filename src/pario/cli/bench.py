"""`pario bench`: run I/O strategies on this machine's file system and MPI, store and show the figures."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .. import environment, launch, layers, validate
from .. import spec as specmod
from ..engine import engine_path
from ..errors import ParioError
from ..scratch import Scratch, device_ceiling

MIB = specmod.MIB

EPILOG = """\
IOR flag -> pario (same meaning unless noted):
  -a API           -a / --backend: posix, mpiio, hdf5, pnetcdf, netcdf4, adios2
  -c               -c / --collective (MPI-IO *_all calls, also through hdf5, pnetcdf, netcdf4)
  -t SIZE          -t / --transfer         -b SIZE  -b / --block (per rank per segment)
  -s N             -s / --segments         -N N     -n / -N / --ranks (default: cores available)
  -w / -r          -w / -r                 -W   -W / --verify (untimed read-back, checked)
  -R               -R (alias of -r: timed reads are checked whenever the data allows)
  -i N             -i / --reps             -F   -F (= --strategy fpp)
  -e               -e / --fsync            -k   -k / --keep
  -C               -C (reads shifted to the next host's ranks)  -Q N  -Q N (read shift of N ranks)
  -z               -z (= --pattern random: a permutation of transfer slots, no overlaps)
  -G N             -G / --seed             -o DIR  -o / --dir
Sizes are powers of 1024 like IOR: 4k, 1m, 256m, 2g. Without -w/-r/-W: write and read.
Defaults for one case: -a posix, --strategy shared, -t 1m, -b 16m, -s 1, -i 3.
Library layers: -a hdf5|pnetcdf|netcdf4|adios2 write the same global array as -a mpiio; --lib KEY=VALUE
sets a library setting (hdf5 alignment, chunk, coll_metadata; pnetcdf mode=iput|bput, nb_batch;
netcdf4 fill, chunk; adios2 BP5 parameters such as NumAggregators); `--list` names them all.
--suite layers: one table of every built layer against raw MPI-IO collective on the same bytes.

Metadata workload (like mdtest): --metadata [--files-per-dir N] [--file-size S] [--depth D]
[--branching B] [--per-rank-dirs (mdtest -u)] [--md-ops create,stat,open_close,read_small,remove]:
files per second of each phase; every file created is removed.

Without case flags, the default suite runs (posix fpp and shared, mpiio shared independent and
collective, mpiio per-node, serial) with sizes chosen from --time, free memory and free disk.

Job file (--config job.toml): a [defaults] table and [[case]] tables with the long flag names:
  [defaults]                     [[case]]
  backend = "mpiio"              name = "coll-4k"
  transfer = "1m"                collective = true
  block = "64m"                  transfer = "4k"
  ops = ["write", "read", "verify"]   hints = { romio_cb_write = "enable" }
  reps = 3                       strategy = "nfiles:2"   # also: pattern, dims = "32x32x32", view,
                                                         # aggregate, fsync, odirect, keep, reorder,
                                                         # seed, hints_file, segments, lib = {...}
Metadata cases in a job file: workload = "metadata", files_per_dir, file_size, depth, branching,
per_rank_dirs, ops = ["create", "read_small", "remove"] (examples/metadata-*.toml).
Precedence: built-in defaults < [defaults] < [[case]] < flags given on the command line.
Hints: ROMIO (anchors a), Open MPI OMPIO info keys and Cray MPICH keys; a hints file has
`key value` lines (ROMIO format). Exit codes: 0 complete, 1 partial/failed run or verify errors (stored),
2 bad input, 3 engine or MPI missing."""

# Flags that describe the case (rather than the run); any of them means "one case, not the suite".
CASE_DESTS = ("backend", "collective", "transfer", "block", "segments", "strategy", "aggregate", "pattern",
              "dims", "view", "odirect", "hint", "hints_file", "fpp", "random", "reorder_host", "reorder", "name",
              "lib", "metadata", "files_per_dir", "file_size", "depth", "branching", "per_rank_dirs", "md_ops")
# Flags that also apply to every case of the default suite or of a job file.
RUN_DESTS = ("reps", "write", "read", "verify", "check_read", "fsync", "keep", "seed", "buffer_max")


def register(subparsers) -> None:
    p = subparsers.add_parser("bench", help="measure I/O strategies on this file system and MPI (IOR-style flags)",
                              description="Run I/O strategies on real files through POSIX and MPI-IO, store the "
                                          "run, print median [min-max] bandwidth per strategy.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    flag = dict(action="store_const", const=True, default=None)
    g = p.add_argument_group("one case (IOR flags)")
    g.add_argument("-a", "--backend", "--api", dest="backend",
                   help="posix | mpiio | hdf5 | pnetcdf | netcdf4 | adios2")
    g.add_argument("-c", "--collective", **flag, help="collective calls (mpiio, hdf5, pnetcdf, netcdf4)")
    g.add_argument("-t", "--transfer", help="bytes per I/O call (1m)")
    g.add_argument("-b", "--block", help="bytes per rank per segment (16m)")
    g.add_argument("-s", "--segments", type=int, help="segments (strided when > 1)")
    g.add_argument("-w", "--write", **flag, help="timed write")
    g.add_argument("-r", "--read", **flag, help="timed read")
    g.add_argument("-W", "--verify", **flag, help="untimed read-back checked against the pattern")
    g.add_argument("-R", "--check-read", dest="check_read", **flag, help="alias of -r (reads are checked)")
    g.add_argument("-i", "--reps", type=int, help="repetitions (3)")
    g.add_argument("-F", dest="fpp", **flag, help="file per process (= --strategy fpp)")
    g.add_argument("-e", "--fsync", **flag, help="fsync after writing, inside the timed phase")
    g.add_argument("-k", "--keep", **flag, help="keep the files")
    g.add_argument("-C", dest="reorder_host", **flag, help="read the data of the next host's ranks")
    g.add_argument("-Q", "--reorder", type=int, help="read the data of rank r+N")
    g.add_argument("-z", dest="random", **flag, help="random offsets (= --pattern random)")
    g.add_argument("-G", "--seed", type=int, help="data pattern seed")
    g.add_argument("--strategy", help="serial | fpp | shared | nfiles:K | per-node")
    g.add_argument("--aggregate", **flag, help="each file group's leader gathers and writes")
    g.add_argument("--pattern", help="segmented | subarray | random")
    g.add_argument("--dims", help="subarray local block in 8-byte elements, e.g. 64x64x64")
    g.add_argument("--view", action=argparse.BooleanOptionalAction, default=None, help="MPI-IO file view")
    g.add_argument("--odirect", **flag, help="POSIX O_DIRECT (sizes multiple of 4096)")
    g.add_argument("--hint", action="append", metavar="KEY=VALUE", help="MPI-IO hint (repeatable)")
    g.add_argument("--hints-file", help="ROMIO-format hints file (key value per line)")
    g.add_argument("--lib", action="append", metavar="KEY=VALUE",
                   help="library setting of -a hdf5|pnetcdf|netcdf4|adios2 (repeatable; --list names them)")
    g.add_argument("--name", help="case name")
    g.add_argument("--buffer", dest="buffer_max", metavar="SIZE",
                   help="distinct data per rank (default 256k, at least one transfer: stays in CPU cache "
                        "like IOR's buffer; larger: data from memory, verify exact at any distance)")
    m = p.add_argument_group("metadata workload (mdtest-like)")
    m.add_argument("--metadata", **flag, help="create/stat/open+close/read/remove many small files")
    m.add_argument("--files-per-dir", type=int, help="files per leaf directory (1000; per rank with --per-rank-dirs)")
    m.add_argument("--file-size", help="bytes written to each file and read back (0; k/m suffixes)")
    m.add_argument("--depth", type=int, help="directory levels below the root (0)")
    m.add_argument("--branching", type=int, help="subdirectories per directory (1)")
    m.add_argument("--per-rank-dirs", **flag, help="one tree per rank (mdtest -u) instead of one shared tree")
    m.add_argument("--md-ops", help="phases, a subset of create,stat,open_close,read_small,remove (all)")
    r = p.add_argument_group("run")
    r.add_argument("-n", "-N", "--ranks", type=int, help="MPI ranks (default: cores available)")
    r.add_argument("-o", "--dir", help="scratch directory (default $PARIO_SCRATCH, else ./pario-scratch)")
    r.add_argument("--config", help="job file (TOML) with [defaults] and [[case]] tables")
    r.add_argument("--reuse", type=int, metavar="RUN",
                   help="read (-r) or verify (-W) the files stored run RUN kept (-k), e.g. after dropping caches; "
                        "they are never written or removed")
    r.add_argument("--suite", choices=["default", "layers"],
                   help="default: the strategies; layers: each I/O library against raw MPI-IO")
    r.add_argument("--size", help="suites: bytes per phase (all ranks), overrides --time")
    r.add_argument("--time", type=float, default=60.0, help="suites: time budget in seconds (60)")
    r.add_argument("--io", help="Open MPI io component: ompio | romio321")
    r.add_argument("--mpirun", help="MPI launcher to use (default $PARIO_MPIRUN, else mpirun on PATH)")
    r.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun", help="mpirun (default) or srun")
    r.add_argument("--timeout", type=float, help="watchdog: seconds without progress before the run is ended")
    r.add_argument("--no-probe", action="store_true", help="skip the O_DIRECT device ceiling probe")
    r.add_argument("--drop-caches", action="store_true", help="(not available: see the message; use -k then --reuse)")
    r.add_argument("--db", help="results store (default $PARIO_DB, else the user data directory)")
    r.add_argument("--json", action="store_true", help="one JSON document on stdout")
    r.add_argument("--list", action="store_true", help="list backends and whether each is built")
    p.set_defaults(run=run)


def flag_options(args) -> dict[str, Any]:
    """The case keys the user gave on the command line (spec.CASE_KEYS names)."""
    opts: dict[str, Any] = {}
    for key in ("backend", "collective", "transfer", "block", "segments", "reps", "fsync", "keep", "seed",
                "strategy", "aggregate", "pattern", "dims", "view", "odirect", "hints_file", "name",
                "write", "read", "verify", "buffer_max"):
        value = getattr(args, key, None)
        if value is not None:
            opts[key] = value
    if args.check_read:
        opts["read"] = True
    if args.fpp:
        if args.strategy and specmod.parse_strategy(args.strategy)[0] != "fpp":
            raise ParioError(f"-F (file per process) contradicts --strategy {args.strategy}; give one of them")
        opts["strategy"] = "fpp"
    if args.random:
        if args.pattern and args.pattern != "random":
            raise ParioError(f"-z (random offsets) contradicts --pattern {args.pattern}; give one of them")
        opts["pattern"] = "random"
    if args.reorder is not None:
        opts["reorder"] = args.reorder
    elif args.reorder_host:
        opts["reorder"] = "host"
    if args.hint:
        opts["hints"] = list(args.hint)
    if args.lib:
        opts["lib"] = list(args.lib)
    if args.metadata:
        opts["workload"] = "metadata"
    for key in ("files_per_dir", "file_size", "depth", "branching", "per_rank_dirs"):
        if getattr(args, key, None) is not None:
            opts[key] = getattr(args, key)
    if args.md_ops:
        opts["ops"] = args.md_ops
    return opts


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    if any(k in over for k in ("write", "read", "verify")):
        out.pop("ops", None)  # -w/-r/-W on the command line replace the file's ops
    if "hints" in over and isinstance(out.get("hints"), dict):
        merged = dict(out["hints"])
        merged.update(dict(specmod.hintlib.parse_pair(h) for h in over["hints"]))
        over = {**over, "hints": merged}
    if "lib" in over and isinstance(out.get("lib"), dict):  # settings add up: [defaults] < [[case]] < --lib
        over = {**over, "lib": {**specmod.parse_lib(out["lib"], "lib"), **specmod.parse_lib(over["lib"], "--lib")}}
    out.update(over)
    return out


def plan(args, ranks: int, listing: dict | None, free_disk: int, rate_mib: float = 150.0):
    """The cases to run and a sentence about their sizes."""
    opts = flag_options(args)
    case_flags = [d for d in CASE_DESTS if getattr(args, d, None) is not None]
    if args.config:
        defaults, rows = specmod.load_config(args.config)
        cases = [specmod.build_case(_merge(_merge(defaults, row), opts), f"{args.config} case {i + 1}")
                 for i, row in enumerate(rows)]
        note = ""
    elif case_flags and args.suite:
        raise ParioError("--suite runs its own cases; drop the case flags (-a, -t, ...) "
                         "or use --config for a custom suite")
    elif case_flags:
        cases = [specmod.build_case(opts)]
        note = ""
    else:
        suite = layers_suite if args.suite == "layers" else default_suite
        cases, note = suite(args, ranks, listing, free_disk, opts, rate_mib)
    specmod.unique_names(cases)
    if not note:
        note = ("; ".join(f"{c['name']}: {_amount(c, ranks)} per phase" for c in cases[:4])
                + (" ..." if len(cases) > 4 else ""))
    return cases, note


def _amount(case, ranks) -> str:
    if case.get("workload") == "metadata":
        return f"{specmod.md_files(case, ranks)} files"
    return specmod.human(specmod.case_bytes(case, ranks))


def _suite_run_opts(opts):
    """(ops, reps, other run flags) of a suite from -w/-r/-W, -i and the other run flags."""
    run_opts = {k: v for k, v in opts.items() if k in RUN_DESTS or k in ("write", "read", "verify")}
    chosen = {o for o in specmod.OPS if run_opts.pop(o, None)}
    ops = [o for o in specmod.OPS if o in chosen] if chosen else ["write", "read", "verify"]
    return ops, run_opts.pop("reps", 3), run_opts


def layers_suite(args, ranks, listing, free_disk, opts, rate_mib):
    ops, reps, run_opts = _suite_run_opts(opts)
    if listing is not None and "mpiio" not in layers.built(listing):
        raise ParioError("--suite layers compares each library with raw MPI-IO, and this engine has no mpiio "
                         "backend; rebuild pario with an MPI that has MPI-IO")
    nphases = len(layers.suite_cases(MIB, ops, reps, listing)) * reps * len(ops)
    size = specmod.parse_size(args.size, "--size") if args.size else None
    block = specmod.suite_block(ranks, nphases, args.time, size, environment.meminfo()["mem_available"],
                                free_disk, rate_mib)
    cases = layers.suite_cases(block, ops, reps, listing, run_opts)
    parts = [f"layers suite: {len(cases)} cases x {reps} reps of {'+'.join(ops)}, one shared file, "
             f"{specmod.human(block)} per rank per phase ({specmod.human(block * ranks)} over {ranks} ranks), "
             f"{specmod.human(min(MIB, block))} transfers"]
    parts += layers.missing_notes(listing) + layers.fsync_note(run_opts, listing)
    return cases, "; ".join(parts)


def default_suite(args, ranks, listing, free_disk, opts, rate_mib):
    built = {b["name"] for b in (listing or {}).get("backends", []) if b.get("built")}
    mpiio = "mpiio" in built if listing else True
    ops, reps, run_opts = _suite_run_opts(opts)
    ncases = 6 if mpiio else 3
    nphases = ncases * reps * len(ops)
    mem = environment.meminfo()["mem_available"]
    size = specmod.parse_size(args.size, "--size") if args.size else None
    block = specmod.suite_block(ranks, nphases, args.time, size, mem, free_disk, rate_mib)
    cases = specmod.suite_cases(ranks, block, ops, reps, mpiio, run_opts)
    note = (f"default suite: {len(cases)} cases x {reps} reps of {'+'.join(ops)}, "
            f"{specmod.human(block)} per rank per phase ({specmod.human(block * ranks)} over {ranks} ranks), "
            f"1 MiB transfers" + ("" if mpiio else "; mpiio cases skipped: backend not built"))
    return cases, note


def engine_listing(engine: str | None) -> dict | None:
    """`pario-engine --list`, or None when it cannot say."""
    import subprocess
    if not engine:
        return None
    try:
        out = subprocess.run([engine, "--list"], capture_output=True, text=True, timeout=30)
        doc = json.loads(out.stdout) if out.returncode == 0 else None
        return doc if isinstance(doc, dict) and "backends" in doc else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def list_backends(args) -> int:
    try:
        engine = engine_path()
        listing = engine_listing(engine) or {"backends": []}
        reason = None if listing["backends"] else f"{engine} --list failed"
    except ParioError as exc:
        listing, reason = {"backends": []}, str(exc)
    if reason:
        listing = {"backends": [{"name": n, "built": False, "caps": [], "missing": reason}
                                for n in validate.KNOWN_BACKENDS]}
    if args.json:
        print(json.dumps(listing, indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table
    table = Table(title="pario backends", title_justify="left")
    for col in ("backend", "built", "version", "capabilities / how to get it", "--lib settings"):
        table.add_column(col, overflow="fold")
    for b in listing["backends"]:
        table.add_row(b["name"], "yes" if b.get("built") else "no", b.get("version") or "",
                      ", ".join(b.get("caps", [])) if b.get("built") else (b.get("missing") or ""),
                      ", ".join(b.get("lib_keys") or []))
    Console().print(table)
    return 0


def default_timeout(cases, ranks) -> float:
    """Generous: 10 minutes plus time for the largest phase at 4 MiB/s."""
    biggest = max((specmod.case_bytes(c, ranks) for c in cases), default=0)
    return 600.0 + biggest / (4 << 20)


def check_room(cases, ranks, directory) -> None:
    """Refuse a run that cannot fit: files of kept cases stay, the others go after each case."""
    free = environment.disk_free(_nearest_existing(directory))
    sizes = [specmod.case_bytes(c, ranks) for c in cases]
    need = sum(b for b, c in zip(sizes, cases) if c.get("keep")) + max(
        [b for b, c in zip(sizes, cases) if not c.get("keep")] or [0])
    if free and need > free:
        raise ParioError(f"the run needs {specmod.human(need)} in {directory} but only {specmod.human(free)} "
                         "is free; lower -b/-s/--size or give another --dir")


def _nearest_existing(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def run(args) -> int:
    if args.drop_caches:
        raise ParioError("--drop-caches is not available: caches cannot be dropped between the write and read "
                         "phases of one engine run; for cold reads write with -k, drop the caches (as root: sync; "
                         "echo 3 > /proc/sys/vm/drop_caches), then read with --reuse RUN")
    if args.list:
        return list_backends(args)
    if args.timeout is not None and args.timeout <= 0:
        raise ParioError(f"--timeout {args.timeout:g}: give a positive number of seconds")
    if args.reuse is not None:
        return _reuse(args)
    ranks = args.ranks if args.ranks is not None else environment.cpus()
    if ranks < 1:
        raise ParioError(f"-n {ranks}: ranks must be at least 1")
    scratch = Scratch(args.dir)
    suite = not args.config and not any(getattr(args, d, None) is not None for d in CASE_DESTS)
    try:
        return _plan_and_execute(args, ranks, scratch, suite)
    except BaseException:
        scratch.cleanup()  # only this run's files, and the directory if pario made it and it is empty
        raise


def _reuse(args) -> int:
    """--reuse RUN: the stored run's cases, read from its kept files (reuse.py)."""
    from .. import reuse
    from ..bench_run import execute
    from ..store import Store
    store = Store(args.db)
    cases, ranks, scratch, note, facts = reuse.plan(args, store, CASE_DESTS)
    validate.check_all(cases, ranks)
    engine = engine_path()
    mpi = _checked_launch(args, cases, ranks, engine, None)
    return execute(args, cases=cases, note=note, ranks=ranks, engine=engine, mpi=mpi, scratch=scratch,
                   timeout=args.timeout or default_timeout(cases, ranks), store=store, facts={"reuse": facts})


def _checked_launch(args, cases, ranks, engine, listing) -> launch.MPI:
    """The MPI to launch with, once the launcher, --io and the cases' backends are known to work."""
    mpi = launch.detect(launch.find_mpirun(args.mpirun))
    launch.command(mpi, ranks, [], io=args.io, launcher=args.launcher)  # rejects --io on a non-Open MPI early
    launch.check_launcher(args.launcher)
    validate.check_backends(cases, listing if listing is not None else engine_listing(engine))
    return mpi


def _plan_and_execute(args, ranks, scratch, suite) -> int:
    from ..bench_run import execute  # the launch-store-show sequence, kept apart to keep files short
    listing = ceiling = None
    if suite:
        # The suite's sizes follow the device: probe it first (an engine is needed for that anyway).
        engine = engine_path()
        listing = engine_listing(engine)
        scratch.prepare()
        ceiling = device_ceiling(engine, scratch.dir, skip=args.no_probe)
    rate = max(float(ceiling.get("write_mib") or 0), 100.0) if ceiling and ceiling.get("write_mib") else 150.0
    cases, note = plan(args, ranks, listing, environment.disk_free(_nearest_existing(scratch.dir)), rate)
    validate.check_all(cases, ranks)
    check_room(cases, ranks, scratch.dir)
    engine = engine_path()
    mpi = _checked_launch(args, cases, ranks, engine, listing)
    from ..store import Store
    store = Store(args.db)  # opened before the launch: a bad --db must not cost a run
    return execute(args, cases=cases, note=note, ranks=ranks, engine=engine, mpi=mpi, scratch=scratch,
                   timeout=args.timeout or default_timeout(cases, ranks), ceiling=ceiling, store=store)
