"""`pario bench`: run I/O strategies on this machine's file system and MPI, store and show the figures.

The conductor: argparse -> BenchRequest -> plan (cases) -> run (RunRecord) -> store -> analysis
(summary rows) -> report (tables or JSON)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from pario.cli import ior_flags, submit
from pario.cli.args import typed
from pario.cli.case_flags import add_case_flags, add_launch_flags, add_metadata_flags
from pario.model.errors import ParioError
from pario.plan.inputs import RUN

if TYPE_CHECKING:
    from pario.model.case import Case
    from pario.model.requests import BenchRequest
    from pario.platform.mpi import MPI
    from pario.platform.scratch import Scratch
    from pario.run.bench import RunRequest
    from pario.store import Store

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
  -G N             -G / --seed
  -o PATH          -o PATH: the test file; files PATH.RUN.* (RUN: the run's id); --dir DIR for a directory
  -O summaryFormat=JSON   the same (= --json); summaryFormat=CSV: `pario results export RUN`
  -D SECONDS       -D (stonewalling; -O stoneWallingWearOut=1 for IOR's wear-out)  -Y  -Y (fsync per write)
  -u               -u (fpp files in DIR/<rank>/)   -E  -E (use the existing file; never removes it)
  -T MINUTES       -T (no repetition starts after MINUTES)
Sizes are powers of 1024 like IOR: 4k, 1m, 256m, 2g. Without -w/-r/-W: write and read.
Defaults for one case: -a posix, --strategy shared, -t 1m, -b 16m, -s 1, -i 3.
Library layers: -a hdf5|pnetcdf|netcdf4|adios2 write the same global array as -a mpiio; --lib KEY=VALUE
sets a library setting (hdf5 alignment, chunk, coll_metadata; pnetcdf mode=iput|bput, nb_batch;
netcdf4 fill, chunk; adios2 BP5 parameters such as NumAggregators); `--list` names them all.
--suite layers: one table of every built layer against raw MPI-IO collective on the same bytes.

NAS BTIO (--pattern btio, -a mpiio or pnetcdf, a square -n): BTIO's block-tridiagonal decomposition of
a 3-D array of 5 doubles per point, each rank owning sqrt(n) non-contiguous cells, one collective call
per step; -a mpiio -c is BTIO's method 0 (no -c: method 1), -a pnetcdf -c method 2 (put_vara_all per
cell), --lib mode=iput method 3 (iput per cell, one wait_all per step). --class A or --grid 64x64x64,
--steps N. Example: pario bench --pattern btio -a pnetcdf -c --lib mode=iput --class W -n 4 -w -W

Presets (--preset NAME, --preset list): the seeds' experiments (LRZ's hints matrix, CSC's BTIO, KAUST's
strategies, small writes and striping, ARCHER's small files, ARCHER2's aggregators and layers), each a
job file in examples/presets/ with the seed's table: this system's median [min-max] beside the seed's
figure per cell, rows this system cannot run named with the reason, and a reading only where the
ranges do not overlap. --scale F multiplies the data (default: what fits --time); -n, -i apply. Like
the suites, a preset measures the storage (synced writes, evicted reads; a row's own fsync stays);
--cache asks for page-cache figures.

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
Hints: ROMIO's (romio_*, cb_*, ind_*), Open MPI OMPIO info keys and Cray MPICH keys; a hints file has
`key value` lines (ROMIO format). Exit codes: 0 complete, 1 partial/failed run or verify errors (stored),
2 bad input, 3 engine or MPI missing, 4 measured but not stored (kept in a file for `pario results import`),
128+N stopped by signal N (SIGTERM 143, SIGHUP 129, SIGINT 130: the run is ended, its files removed, what
it measured stored as partial)."""


def register(subparsers) -> None:
    p = subparsers.add_parser("bench",
                              description="Run I/O strategies on real files through POSIX and MPI-IO, store the "
                                          "run, print median [min-max] bandwidth per strategy.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_case_flags(p)
    add_metadata_flags(p)
    r = p.add_argument_group("run")
    r.add_argument("-n", "-N", "--ranks", type=typed(RUN["ranks"]),
                   help="MPI ranks (default: the Slurm allocation's tasks, else the cores available)")
    r.add_argument("--nodes", type=typed(RUN["nodes"]), metavar="N",
                   help="run the ranks on N nodes, in blocks (-n 6 --nodes 3: 2 per node): srun -N N inside "
                        "Slurm, else the first N hosts of mpirun's hostfile")
    r.add_argument("-o", dest="test_file", metavar="PATH", type=typed(RUN["test_file"]),
                   help="IOR's test file: the files are PATH.RUN.* beside it (RUN: this run's id, so runs never "
                        "share a name); its directory is created if it is the only missing part")
    r.add_argument("--dir", type=typed(RUN["dir"]),
                   help="scratch directory (default $PARIO_SCRATCH, else ./pario-scratch)")
    r.add_argument("--config", type=typed(RUN["config"]), help="job file (TOML) with [defaults] and [[case]] tables")
    r.add_argument("--reuse", type=typed(RUN["reuse"]), metavar="RUN",
                   help="read (-r) or verify (-W) the files stored run RUN kept (-k), e.g. after dropping caches; "
                        "they are never written or removed")
    r.add_argument("--preset", metavar="NAME|list|FILE", type=typed(RUN["preset"]),
                   help="a seed's experiment (examples/presets/NAME.toml): its table, this system's figures beside "
                        "the seed's; `--preset list` names them")
    r.add_argument("--scale", type=typed(RUN["scale"]), metavar="F",
                   help="presets: multiply each rank's data by F (default: the largest of 1, 1/2, 1/4, ... "
                        "that fits --time)")
    r.add_argument("--suite", type=typed(RUN["suite"]),
                   help="default: the strategies; layers: each I/O library against raw MPI-IO")
    r.add_argument("--size", type=typed(RUN["size"]), help="suites: bytes per phase (all ranks), overrides --time")
    r.add_argument("--time", type=typed(RUN["time"]), default=60.0,
                   help="suites and presets: time budget in seconds (60)")
    r.add_argument("--io", type=typed(RUN["io"]), help="Open MPI io component: ompio | romio321")
    add_launch_flags(r)
    r.add_argument("--cache", action="store_const", const=True, default=None,
                   help="suites and presets: page-cache figures (writes not synced in the timed phase, reads not "
                        "evicted); without it they measure the storage (-e and --drop-caches)")
    r.add_argument("--drop-caches", nargs="?", const="files", metavar="all", type=typed(RUN["drop_caches"]),
                   help="cold reads: before each read, evict the run's own files from the page cache (fsync + "
                        "POSIX_FADV_DONTNEED, as any user) and measure what is left (mincore); 'all': also "
                        "/proc/sys/vm/drop_caches (root)")
    r.add_argument("--db", type=typed(RUN["db"]),
                   help="results store (default $PARIO_DB, else the user data directory)")
    r.add_argument("--json", action="store_true", help="one JSON document on stdout")
    r.add_argument("--list", action="store_true", help="list backends and whether each is built")
    submit.add_flags(p)
    ior_flags.register(p.add_argument_group("IOR's -D, -Y, -u, -E, -T and -O (IOR 4.0.0's meaning)"))
    r.add_argument("--dry-run", action="store_true",
                   help="print the launcher command line and the engine's spec; run nothing, create nothing")
    p.set_defaults(run=run)


def request_of(args: argparse.Namespace) -> BenchRequest:
    from pario.model.requests import BenchRequest

    return BenchRequest.from_namespace(args)


def run(args: argparse.Namespace) -> int:
    from pario.cli.bench_preset import run_preset
    from pario.cli.dry_run import scratch_of
    from pario.model.units import parse_size
    from pario.plan.bench import CASE_DESTS, check_request
    from pario.plan.suites import suite_fits
    from pario.platform import host
    from pario.run import stop, watchdog
    from pario.run.scratch_guard import guarded

    if ior_flags.check(args):
        args.json = True
    request = request_of(args)
    if request.list_backends:
        return list_backends(request)
    check_request(request)  # every value by its row (argparse did this for a command line; a caller may not)
    watchdog.check_timeout(request.timeout)
    if request.scale is not None and request.preset is None:
        raise ParioError("--scale sizes a preset: add --preset NAME (suites take --size or --time)")
    if args.submit or args.script_only or args.sbatch_args:
        return _as_job(request, args)
    with stop.StopOnSignals():  # SIGTERM, SIGHUP, SIGINT: end the run, keep what it measured
        if request.reuse is not None and request.preset is None:
            return _reuse(request)
        if request.preset is not None:
            scratch = scratch_of(request)
            with guarded(scratch, active=request.preset != "list" and not request.dry_run):  # the probe makes it
                return run_preset(request, scratch)
        ranks = request.ranks if request.ranks is not None else default_ranks()
        if ranks < 1:
            raise ParioError(f"-n {ranks}: ranks must be at least 1")
        mpi = _launcher(request, ranks)  # a launcher that is not one is refused before anything is written
        scratch = scratch_of(request)
        suite = not request.config and not request.given(CASE_DESTS)
        if suite and request.size is not None:
            suite_fits(parse_size(request.size, "--size"), host.disk_free(host.nearest_existing(scratch.dir)),
                       scratch.dir)
        # a suite makes the directory and probes the device before its run (and the run's sentinel)
        # starts: a SIGKILL then must not leave them (run/scratch_guard.py)
        with guarded(scratch, active=suite and not request.dry_run):
            try:
                return _plan_and_execute(request, ranks, scratch, suite, mpi)
            except BaseException:
                scratch.cleanup()  # only this run's files, and the directory if pario made it and it is empty
                raise


def _warn_oversubscribed(request: BenchRequest, ranks: int) -> None:
    """Said once the input is known good, just before the launch (bad input gets its one line)."""
    from pario.platform import host
    from pario.run import launchers

    if ranks > host.cpus() and launchers.resolve(request.launcher) == "mpirun":
        print(f"pario: -n {ranks} on {host.cpus()} usable cores: the run is oversubscribed (ranks take turns "
              "on the cores), so the figures include CPU contention: time in MPI calls, imbalance and "
              "open+close grow, and bandwidth is lower than this storage gives", file=sys.stderr, flush=True)


def _as_job(request: BenchRequest, args: argparse.Namespace) -> int:
    """--submit / --script-only: the cases are checked here, so that bad input fails now rather
    than in the queue; the job plans and runs them in its allocation."""
    from pario.plan import validate
    from pario.plan.bench import CASE_DESTS, plan

    if not (args.submit or args.script_only):
        raise ParioError("--sbatch-args goes with --submit (or --script-only)")
    if request.reuse is None and request.ranks is not None and (request.config or request.given(CASE_DESTS)):
        cases, _ = plan(request, request.ranks, None, 1 << 62, 150.0)
        validate.check_all(cases, request.ranks)
    return submit.run("bench", args, request.ranks)


def default_ranks() -> int:
    """Inside a Slurm allocation its tasks (SLURM_NTASKS), else the cores this process may use."""
    from pario.platform import host, slurm

    return slurm.default_ranks(slurm.allocation()) or host.cpus()


def list_backends(request: BenchRequest) -> int:
    from rich.console import Console

    from pario.plan import validate
    from pario.platform.engine import engine_listing, engine_path
    from pario.report import json as json_report
    from pario.report.terminal.backends import print_backends

    try:
        engine = engine_path()
        listing = engine_listing(engine) or {"backends": []}
        reason = None if listing["backends"] else f"{engine} --list failed"
    except ParioError as exc:
        listing, reason = {"backends": []}, str(exc)
    if reason:
        listing = {"backends": [{"name": n, "built": False, "caps": [], "missing": reason}
                                for n in validate.KNOWN_BACKENDS]}
    if request.json:
        json_report.emit({"schema": "pario.backends/1", **listing})
        return 0
    print_backends(Console(), listing)
    return 0


def _reuse(request: BenchRequest) -> int:
    """--reuse RUN: the stored run's cases, read from its kept files (plan/reuse.py)."""
    from pario.cli.dry_run import dry_run
    from pario.plan import reuse, validate
    from pario.plan.bench import CASE_DESTS, apply_drop_caches
    from pario.platform.engine import engine_path
    from pario.run import launchers
    from pario.run.bench import RunRequest
    from pario.store import Store

    store = Store(request.db)
    assert request.reuse is not None
    cases, ranks, scratch, note, facts = reuse.plan(request, store.get_run(request.reuse), CASE_DESTS)
    apply_drop_caches(cases, request.drop_caches, os.geteuid() == 0)
    validate.check_all(cases, ranks)
    engine = engine_path()
    mpi = _checked_launch(request, cases, ranks, engine, None)
    _warn_oversubscribed(request, ranks)
    if request.dry_run:
        return dry_run(request, cases, ranks, engine, mpi, scratch, note)
    return _execute(request, store, RunRequest(
        cases=cases, note=note, ranks=ranks, engine=engine, mpi=mpi, scratch=scratch, io=request.io,
        launcher=launchers.resolve(request.launcher), no_probe=request.no_probe, nodes=request.nodes,
        facts={"reuse": facts, **({"drop_caches": request.drop_caches} if request.drop_caches else {})},
        timeout=request.timeout))


def _launcher(request: BenchRequest, ranks: int) -> MPI:
    """The MPI to launch with: an MPI launcher (platform.mpi.detect), with --io and --launcher it takes."""
    from pario.platform.mpi import check_io, detect, find_mpirun
    from pario.run import launchers
    from pario.run.launchers import nodes as placement

    mpi = detect(find_mpirun(request.mpirun))
    launcher = launchers.resolve(request.launcher)
    launchers.command(mpi, ranks, [], io=request.io, launcher=launcher)  # rejects --io early
    check_io(mpi, request.io)
    launchers.check_launcher(launcher, mpi)
    placement.check(mpi, launcher, ranks, request.nodes)
    return mpi


def _checked_launch(request: BenchRequest, cases: list[Case], ranks: int, engine: str,
                    listing: dict[str, Any] | None, mpi: MPI | None = None) -> MPI:
    """The MPI to launch with, once the launcher, --io and the cases' backends are known to work."""
    from pario.plan import validate
    from pario.platform.engine import engine_listing

    mpi = mpi or _launcher(request, ranks)
    validate.check_backends(cases, listing if listing is not None else engine_listing(engine))
    return mpi


def _plan_and_execute(request: BenchRequest, ranks: int, scratch: Scratch, suite: bool, mpi: MPI) -> int:
    from pario.cli.dry_run import dry_run
    from pario.plan import suites, validate
    from pario.plan.bench import apply_drop_caches, check_room, plan
    from pario.platform import host
    from pario.platform.ceiling import device_ceiling, streams_per_host
    from pario.platform.engine import engine_listing, engine_path
    from pario.run import launchers
    from pario.run.bench import RunRequest
    from pario.store import Store

    listing = ceiling = None
    if suite and request.dry_run:
        listing = engine_listing(engine_path())  # sizes without the probe: it writes a file
    elif suite:
        # The suite's sizes follow the device: probe it first (an engine is needed for that anyway).
        engine = engine_path()
        listing = engine_listing(engine)
        scratch.prepare()
        ceiling = device_ceiling(engine, scratch.dir, skip=request.no_probe, streams=streams_per_host(ranks))
    rate = suites.storage_rate(ceiling, bool(request.cache))
    cases, note = plan(request, ranks, listing, host.disk_free(host.nearest_existing(scratch.dir)), rate)
    apply_drop_caches(cases, request.drop_caches, os.geteuid() == 0)
    validate.check_all(cases, ranks)
    if any(c.get("use_existing") for c in cases):
        scratch.use_existing()  # -E: names without the run id, so that a later run finds them
    check_room(cases, ranks, scratch.dir)
    engine = engine_path()
    mpi = _checked_launch(request, cases, ranks, engine, listing, mpi)
    _warn_oversubscribed(request, ranks)
    if request.dry_run:
        return dry_run(request, cases, ranks, engine, mpi, scratch, note)
    store = Store(request.db)  # opened before the launch: a bad --db must not cost a run
    return _execute(request, store, RunRequest(
        cases=cases, note=note, ranks=ranks, engine=engine, mpi=mpi, scratch=scratch, io=request.io,
        launcher=launchers.resolve(request.launcher), ceiling=ceiling, no_probe=request.no_probe,
        nodes=request.nodes, facts={"drop_caches": request.drop_caches} if request.drop_caches else {},
        timeout=request.timeout))


def _execute(request: BenchRequest, store: Store, run_request: RunRequest) -> int:
    """Run, store, summarize, show; the exit code: 0 complete, 1 partial/failed or verify errors,
    4 not stored, 128+N stopped by signal N."""
    from rich.console import Console

    from pario.analysis.summary import summarize
    from pario.cli.store_run import store_run
    from pario.report import json as json_report
    from pario.report.terminal.bench import show, verify_lines
    from pario.report.terminal.progress import Progress
    from pario.run import stop
    from pario.run.bench import execute

    record = execute(run_request, Progress(plain=request.json))
    rows = summarize(record.result, record.env) if record.result.get("cases") else []
    bad = [r["name"] for r in rows if (r.get("verify") or {}).get("errors")]
    if bad and record.status == "complete":
        record.status = "verify failed"  # every phase ran, but the data read back is not what was written
    run_id, _kept = store_run(store, record)
    if request.json:
        json_report.emit(json_report.bench_document(record, rows, run_id), default=str)
    else:
        show(Console(), record, rows, run_id)
    if record.message:
        print(f"pario: error: run {record.status}: {record.message}", file=sys.stderr)
    if bad and request.json:  # the tables (stdout) are not printed: where the data differ goes to stderr
        for line in verify_lines(rows):
            print(f"pario: {line}", file=sys.stderr)
    if bad and not record.message:
        print(f"pario: error: checked reads found data that differ from what was written in {', '.join(bad)} "
              "(the lines above say where)", file=sys.stderr)
    signals = stop.current()
    first = record.stopped or (signals.first if signals else None)
    if first:
        return 128 + first
    if run_id is None:
        return 4
    return 0 if record.complete and not bad else 1
