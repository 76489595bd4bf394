"""The suites `pario bench` runs without case flags: the default one (the strategies a user chooses
between) and --suite layers (each I/O library against raw MPI-IO), sized from a time budget,
free memory and free disk."""
from __future__ import annotations

from typing import Any

from pario.model.case import OPS, Case
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.model.units import GIB, KIB, MIB, count, human, parse_size
from pario.plan import layers
from pario.plan.cases import build_case
from pario.platform import host

# Flags that also apply to every case of the default suite or of a job file.
RUN_DESTS = ("reps", "write", "read", "verify", "check_read", "read_check", "fsync", "keep", "seed", "buffer_max")


def default_cases(ranks: int, block: int, ops: list[str], reps: int, mpiio: bool,
                overrides: dict[str, Any] | None = None) -> list[Case]:
    """The default suite: the strategies a user chooses between, on the same data, 1 MiB transfers."""
    xfer = min(MIB, block)
    base: dict[str, Any] = {"transfer": xfer, "block": block, "ops": ops, "reps": reps}
    base.update(overrides or {})
    rows: list[dict[str, Any]] = [{"strategy": "fpp", "backend": "posix"}, {"strategy": "shared", "backend": "posix"}]
    if mpiio:
        rows += [{"strategy": "shared", "backend": "mpiio"},
                 {"strategy": "shared", "backend": "mpiio", "collective": True},
                 {"strategy": "per-node", "backend": "mpiio", "collective": True}]
    rows.append({"strategy": "serial", "backend": "posix"})
    return [build_case({**base, **row}, "default suite") for row in rows]


def suite_fits(size: int, disk_free: int, directory: str) -> None:
    """--size: every case of a suite writes `size` bytes per phase; refuse what the disk cannot hold
    (before anything is probed or written; an automatic size takes a quarter of the free space)."""
    if disk_free and size > disk_free:
        raise ParioError(f"--size {human(size)}: each case of the suite writes that much in {directory}, but only "
                         f"{human(disk_free)} is free there; lower --size or give another --dir")


def suite_block(ranks: int, nphases: int, time_budget: float, size: int | None, mem_avail: int,
                disk_free: int, rate_mib: float) -> int:
    """Bytes per rank per phase so that the suite fits the time budget, memory and disk.
    An automatic size takes at most a quarter of free disk; a size given (--size) must fit."""
    if size is None:
        size = int(time_budget * rate_mib * MIB / max(nphases, 1))
        size = min(size, GIB, mem_avail // 4 if mem_avail else GIB)
        if disk_free:
            size = min(size, disk_free // 4)
    else:
        suite_fits(size, disk_free, "the scratch directory")
    per_rank = size // max(ranks, 1)
    per_rank -= per_rank % MIB if per_rank >= 4 * MIB else per_rank % (64 * KIB)
    if per_rank < 64 * KIB:
        raise ParioError(f"not enough room for the suite: {human(size)} per phase over {count(ranks, 'rank')}; "
                         "free disk space in the scratch directory or give --size")
    return per_rank


def _suite_run_opts(opts: dict[str, Any]) -> tuple[list[str], int, dict[str, Any]]:
    """(ops, reps, other run flags) of a suite from -w/-r/-W, -i and the other run flags."""
    run_opts = {k: v for k, v in opts.items() if k in RUN_DESTS or k in ("write", "read", "verify")}
    chosen = {o for o in OPS if run_opts.pop(o, None)}
    ops = [o for o in OPS if o in chosen] if chosen else ["write", "read", "verify"]
    return ops, run_opts.pop("reps", 3), run_opts


def layers_suite(request: BenchRequest, ranks: int, listing: dict | None, free_disk: int, opts: dict[str, Any],
                 rate_mib: float) -> tuple[list[Case], str]:
    ops, reps, run_opts = _suite_run_opts(opts)
    if listing is not None and "mpiio" not in layers.built(listing):
        raise ParioError("--suite layers compares each library with raw MPI-IO, and this engine has no mpiio "
                         "backend; rebuild pario with an MPI that has MPI-IO")
    nphases = len(layers.suite_cases(MIB, ops, reps, listing)) * reps * len(ops)
    size = parse_size(request.size, "--size") if request.size else None
    block = suite_block(ranks, nphases, request.time, size, host.meminfo()["mem_available"],
                                free_disk, rate_mib)
    storage = measures_storage(request)
    run_opts = storage_keys({**run_opts, "ops": ops}, storage)
    cases = layers.suite_cases(block, ops, reps, listing, run_opts)
    if storage:
        evict_reads(cases, request.drop_caches)
    parts = [f"layers suite: {len(cases)} cases x {reps} reps of {'+'.join(ops)}, one shared file, "
             f"{human(block)} per rank per phase ({human(block * ranks)} over {count(ranks, 'rank')}), "
             f"{human(min(MIB, block))} transfers", storage_note(storage, run_opts, ops)]
    parts += layers.missing_notes(listing) + layers.fsync_note(run_opts, listing)
    return cases, "; ".join(parts)


def default_suite(request: BenchRequest, ranks: int, listing: dict | None, free_disk: int, opts: dict[str, Any],
                  rate_mib: float) -> tuple[list[Case], str]:
    built = {b["name"] for b in (listing or {}).get("backends", []) if b.get("built")}
    mpiio = "mpiio" in built if listing else True
    ops, reps, run_opts = _suite_run_opts(opts)
    ncases = 6 if mpiio else 3
    nphases = ncases * reps * len(ops)
    mem = host.meminfo()["mem_available"]
    size = parse_size(request.size, "--size") if request.size else None
    block = suite_block(ranks, nphases, request.time, size, mem, free_disk, rate_mib)
    storage = measures_storage(request)
    run_opts = storage_keys({**run_opts, "ops": ops}, storage)
    cases = default_cases(ranks, block, ops, reps, mpiio, run_opts)
    if storage:
        evict_reads(cases, request.drop_caches)
    note = (f"default suite: {len(cases)} cases x {reps} reps of {'+'.join(ops)}, "
            f"{human(block)} per rank per phase ({human(block * ranks)} over {count(ranks, 'rank')}), "
            f"1 MiB transfers" + ("" if mpiio else "; mpiio cases skipped: backend not built")
            + "; " + storage_note(storage, run_opts, ops))
    return cases, note


STORAGE_EVICT = 1   # plan.bench.EVICT["files"]: the run's own files, as any user (fsync + POSIX_FADV_DONTNEED)


def measures_storage(request: BenchRequest) -> bool:
    """The one place the default is decided, for the suites and the presets alike: their figures are
    the storage's (writes synced inside the timed phase, reads of evicted files) unless --cache asks
    for the page cache's."""
    return not request.cache


def storage_keys(keys: dict[str, Any], storage: bool) -> dict[str, Any]:
    """A case's keys (a suite's run flags, a preset's row) with the storage's default: its writes
    synced inside the timed phase (fsync), unless the keys say fsync themselves (-e, a seed's row)
    or the case has nothing to sync: no write, the metadata workload, O_DIRECT or the null backend.
    (adios2 is synced too: the engine flushes every file BP5 wrote right after its close.)"""
    ops = keys.get("ops") or ()
    if (not storage or "fsync" in keys or "write" not in ops or keys.get("odirect")
            or keys.get("workload", "data") == "metadata" or str(keys.get("backend", "")).lower() in NO_SYNC):
        return keys
    return {**keys, "fsync": True}


NO_SYNC = ("null",)   # backends a case's fsync is not given to (they store nothing)


def evict_reads(cases: list[Case], drop_caches: str | None) -> None:
    """The storage's reads: each data case that reads has its files evicted from the page cache
    first, as any user, and the residency measured (--drop-caches given: the command line applies
    its own level instead, plan.bench.apply_drop_caches)."""
    if drop_caches is not None:
        return
    for case in cases:
        if (set(case["ops"]) & {"read", "verify"} and case.get("workload", "data") != "metadata"
                and case.get("backend") != "null"):
            case["evict"], case["residency"] = STORAGE_EVICT, True


def storage_note(storage: bool, run_opts: dict[str, Any], ops: list[str], flags: bool = True) -> str:
    """What a suite's figures are of, for its header: the storage (the default) or the page cache;
    flags: name bench's -e and --drop-caches (a preset takes neither -e nor a job file's keys)."""
    if not storage:
        return ("page-cache figures (--cache): writes are not synced inside the timed phase"
                + ("" if run_opts.get("fsync") else " and may end in memory")
                + ", reads may come from memory")
    said = []
    if "write" in ops:
        said.append("writes synced inside the timed phase" + " (-e)" * flags if run_opts.get("fsync") else
                    "writes not synced (-e was turned off by a job file?)")
    if set(ops) & {"read", "verify"}:
        said.append("reads of files evicted from the page cache first" + " (--drop-caches)" * flags)
    return "measures the storage: " + ", ".join(said) + "; --cache for page-cache figures"


def storage_rate(ceiling: dict[str, Any] | None, cache: bool) -> float:
    """MiB/s a suite is sized with: the O_DIRECT probe's write rate for page-cache figures; for the
    storage's, half the slower direction of the probe (synced writes and evicted reads run at the
    device's pace, and the serial case at one stream: sized at the write ceiling, `--time 20` ran 2m45s)."""
    write, read = float((ceiling or {}).get("write_mib") or 0), float((ceiling or {}).get("read_mib") or 0)
    if not write:
        return 150.0
    if cache:
        return max(write, 100.0)
    return max(min(write, read or write) / 2, 50.0)

