"""A `pario profile` log (a merged job log, one process part, or a directory of parts) as the
job model. Counter names come from the log itself (analysis.profile.logread), so a counter the log
does not carry stays None."""
from __future__ import annotations

from typing import Any

from pario.advise import apart
from pario.advise.job import Bucket, Job, Rec, Sizes
from pario.advise.libjob import lib_rec
from pario.analysis.profile.libviews import is_library
from pario.analysis.profile.logread import counters, load
from pario.analysis.profile.views import job_view, parse_hints
from pario.model.errors import ParioError
from pario.model.filesystems import MAGIC

# pario's histogram buckets: [lo, next lo) (include/pario/counters.h PARIO_SIZE_BUCKETS)
_EDGES = {"0_100": (0, 100), "100_1K": (100, 1024), "1K_10K": (1024, 10240), "10K_100K": (10240, 102400),
          "100K_1M": (102400, 1048576), "1M_4M": (1048576, 4194304), "4M_10M": (4194304, 10485760),
          "10M_100M": (10485760, 104857600), "100M_1G": (104857600, 1073741824), "1G_PLUS": (1073741824, None)}


def _buckets(c: dict[str, Any], prefix: str, rw: str) -> list[Bucket]:
    out = []
    for name, (lo, hi) in _EDGES.items():
        value = c.get(f"{prefix}_SIZE_{rw}_{name}")
        if value:
            out.append(Bucket(lo, None if hi is None else hi - 1, int(value)))
    return out


def _which(size: int, buckets: list[Bucket]) -> int:
    return sum(b.count for b in buckets if b.lo <= size and (b.hi is None or size <= b.hi))


def _split_sizes(pairs: list[list[int]], reads: list[Bucket], writes: list[Bucket]) -> tuple[Sizes, Sizes]:
    """The log keeps one table of exact sizes for reads and writes together: a size goes to the
    direction whose histogram has requests of that size's bucket and the other has none."""
    rd, wr = Sizes(buckets=reads), Sizes(buckets=writes)
    for size, count in pairs:
        in_r, in_w = _which(size, reads), _which(size, writes)
        if in_w and not in_r:
            wr.exact[size] = wr.exact.get(size, 0) + count
        elif in_r and not in_w:
            rd.exact[size] = rd.exact.get(size, 0) + count
    return rd, wr


def _int(c: dict[str, Any], key: str) -> int | None:
    value = c.get(key)
    return None if value is None else int(value)


def _rec(module: str, path: str, rank: int, c: dict[str, Any], raw: dict[str, Any]) -> Rec:
    p = module.upper()
    reads_h, writes_h = _buckets(c, p, "READ"), _buckets(c, p, "WRITE")
    read_sizes, write_sizes = _split_sizes(raw.get("sizes") or [], reads_h, writes_h)
    rec = Rec(module=module, path=path, rank=rank, nprocs=int(c.get(f"{p}_NPROCS") or 1),
              opens=int(c.get(f"{p}_OPENS") or 0),
              reads=sum(b.count for b in reads_h), writes=sum(b.count for b in writes_h),
              seeks=_int(c, f"{p}_SEEKS"), stats=_int(c, f"{p}_STATS"),
              bytes_read=int(c.get(f"{p}_BYTES_READ") or 0), bytes_written=int(c.get(f"{p}_BYTES_WRITTEN") or 0),
              max_byte_read=_int(c, f"{p}_MAX_BYTE_READ"), max_byte_written=_int(c, f"{p}_MAX_BYTE_WRITTEN"),
              seq_reads=_int(c, f"{p}_SEQ_READS"), seq_writes=_int(c, f"{p}_SEQ_WRITES"),
              consec_reads=_int(c, f"{p}_CONSEC_READS"), consec_writes=_int(c, f"{p}_CONSEC_WRITES"),
              rw_switches=_int(c, f"{p}_RW_SWITCHES"), not_aligned=_int(c, f"{p}_FILE_NOT_ALIGNED"),
              alignment=_int(c, f"{p}_FILE_ALIGNMENT"),
              read_time=float(c.get(f"{p}_F_READ_TIME") or 0), write_time=float(c.get(f"{p}_F_WRITE_TIME") or 0),
              meta_time=float(c.get(f"{p}_F_META_TIME") or 0),
              read_sizes=read_sizes, write_sizes=write_sizes,
              strides={int(s): int(n) for s, n in raw.get("strides") or []},
              fastest_rank=_int(c, f"{p}_FASTEST_RANK"), slowest_rank=_int(c, f"{p}_SLOWEST_RANK"),
              fastest_rank_bytes=_int(c, f"{p}_FASTEST_RANK_BYTES"),
              slowest_rank_bytes=_int(c, f"{p}_SLOWEST_RANK_BYTES"),
              fastest_time=c.get(f"{p}_F_FASTEST_RANK_TIME"), slowest_time=c.get(f"{p}_F_SLOWEST_RANK_TIME"),
              variance_time=c.get(f"{p}_F_VARIANCE_RANK_TIME"), variance_bytes=c.get(f"{p}_F_VARIANCE_RANK_BYTES"))
    if module == "posix":
        fsyncs = [_int(c, "POSIX_FSYNCS"), _int(c, "POSIX_FDSYNCS")]
        rec.fsyncs = sum(x for x in fsyncs if x is not None) if any(x is not None for x in fsyncs) else None
        magic = _int(c, "POSIX_FS_TYPE")
        rec.fs = MAGIC.get(magic, f"0x{magic:x}") if magic else None
        rec.stripe_count = _int(c, "POSIX_STRIPE_COUNT")
        if rec.fs == "lustre":
            rec.stripe_size = rec.alignment  # the profiler checks alignment against the stripe size there
    elif module == "mpiio":
        rec.fsyncs = _int(c, "MPIIO_SYNCS")
        for name in ("indep_reads", "indep_writes", "coll_reads", "coll_writes", "nb_reads", "nb_writes", "views"):
            setattr(rec, name, _int(c, f"MPIIO_{name.upper()}"))
        # split collectives are collective too
        for rw in ("READS", "WRITES"):
            split = _int(c, f"MPIIO_SPLIT_{rw}") or 0
            attr = f"coll_{rw.lower()}"
            setattr(rec, attr, (getattr(rec, attr) or 0) + split)
        hints = parse_hints(raw.get("hints"))
        if hints is not None:
            rec.hints = {k: v for k, v in hints.items() if not k.startswith("req:")}
            requested = {k[4:]: v for k, v in hints.items() if k.startswith("req:")}
            rec.hints_requested = requested or None
    elif module == "stdio":
        rec.fsyncs = _int(c, "STDIO_FLUSHES")
    return rec


def read(path: str) -> Job:
    """The job model of a pario profile log; a log of the right format whose content is not what
    pario writes (edited, cut, from another tool) is one clear line, not a traceback."""
    doc = load(path)
    try:
        return _job(path, doc)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise ParioError(f"{path}: malformed pario profile log ({type(exc).__name__}: {exc}); give the file "
                         "written by `pario profile -o`") from None


def _job(path: str, doc: dict[str, Any]) -> Job:
    view = job_view(doc, files=[])
    procs = doc.get("processes") or []
    mpi_ranks = {p.get("process", {}).get("rank") for p in procs} - {None, -1}
    launch = doc.get("job") or {}
    argv = launch.get("command") or ((procs[0].get("process") or {}).get("cmdline") if procs else []) or []
    argv = [str(a) for a in argv] if isinstance(argv, list) else []
    job = Job(source=str(path), format="pario", nprocs=max(1, len(mpi_ranks) or len(procs)),
              run_time=view.get("wall_time"), hosts=view.get("hosts") or [], command=" ".join(argv), argv=argv,
              cwd=str(launch.get("cwd") or ""), launcher=str(launch.get("launcher") or ""))
    for index, proc in enumerate(procs):
        info = proc.get("process") or {}
        if info.get("partial"):
            how = "called MPI_Abort" if info.get("reason") == "mpi_abort" else "was stopped by a signal"
            job.partial.append(f"process {info.get('pid')} (rank {info.get('rank')}) {how}: "
                               "its counters end where it stopped")
        dropped = int((proc.get("limits") or {}).get("dropped_records") or 0)
        if dropped:
            job.partial.append(f"process {info.get('pid')} reached its memory bound: {dropped} "
                               f"file{'s' if dropped != 1 else ''} folded into '<other files>' (pario profile --mem "
                               "raises it)")
        prank = info.get("rank")
        own_rank = prank if isinstance(prank, int) and prank >= 0 else index
        for module, mdoc in (proc.get("modules") or {}).items():
            for raw in mdoc.get("records") or []:
                fname = raw.get("path", "?")
                c = counters(mdoc, raw)
                rank = -1 if raw.get("rank") == -1 else own_rank
                if is_library(module):   # HDF5, PnetCDF, NetCDF, ADIOS2: the library rules' records
                    lib = lib_rec(module, raw, c, rank)
                    if lib is not None:
                        job.libs.append(lib)
                    continue
                rec = _rec(module, fname, rank, c, raw)
                rec.node = str(raw["node"]) if raw.get("node") else None
                job.records.append(rec)
    _ranks_of(job, procs, launch, mpi_ranks)
    _nodes_of(job, procs)
    job.cluster = str((launch.get("slurm") or {}).get("cluster") or "")
    job.buffered = _buffered(doc)
    names = {"hdf5": "HDF5", "pnetcdf": "PnetCDF", "netcdf": "NetCDF-4", "adios2": "ADIOS2"}
    for lib in job.libs:
        job.lib_files.setdefault(lib.file, names.get(lib.library, lib.library))
    for r in job.records:   # PnetCDF passes its own keys in the info MPI_File_open takes
        if r.module == "mpiio" and any(k.startswith("nc_") for k in (r.hints_requested or {})):
            job.lib_files.setdefault(r.path, "PnetCDF")
    job.exes = sorted({str((p.get("process") or {}).get("exe") or "") for p in procs} - {""})
    _fs_to_mpiio(job)
    commands = [(str((p.get("process") or {}).get("exe") or ""), [str(a) for a in (p.get("process") or {}).get(
        "cmdline") or []], job.cwd) for p in procs]
    apart.separate(job, job.exes, apart.scripts(commands))
    return job


def _ranks_of(job: Job, procs: list[dict[str, Any]], launch: dict[str, Any], mpi_ranks: set[Any]) -> None:
    """The ranks the launcher started against the ranks that left a log: a program that never
    called MPI_Init started on N ranks is N independent copies (each process names the rank its
    launcher gave it: launcher_rank); ranks of an MPI job that left no log (MPI_Abort, a kill) are
    named by rank, not by process id."""
    infos = [p.get("process") or {} for p in procs]
    launched = int(launch.get("ranks") or 0)
    world = max([int(i.get("nprocs") or 0) for i in infos] + [0])
    if not mpi_ranks:
        given = {i.get("launcher_rank") for i in infos} - {None}
        copies = max(launched, len(given))
        if copies > 1:
            job.copies = copies
        job.no_mpi = True
        return
    job.launched = max(launched, world, len(mpi_ranks))
    job.missing_ranks = sorted(set(range(job.launched)) - {int(r) for r in mpi_ranks})
    if job.missing_ranks:
        lost = ", ".join(map(str, job.missing_ranks))
        job.partial.append(f"rank{'s' if len(job.missing_ranks) > 1 else ''} {lost} of {job.launched} left no log "
                           "(ended before MPI_Finalize and exit: MPI_Abort, a signal, a crash): their I/O is not "
                           "counted")


def _nodes_of(job: Job, procs: list[dict[str, Any]]) -> None:
    """Each record of a node-local file (the log names its node) gets that node's ranks."""
    on: dict[str, list[int]] = {}
    for p in procs:
        info = p.get("process") or {}
        if isinstance(info.get("rank"), int) and info["rank"] >= 0 and info.get("host"):
            on.setdefault(str(info["host"]), []).append(info["rank"])
    for r in job.records:
        if r.node and r.rank < 0 and r.node in on:
            r.node_ranks = sorted(on[r.node])


def _buffered(doc: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """A log of a run under pario buffer (pario profile --buffer) keeps the buffer's stats: per
    file, the writes the file system saw. The program's calls in the counters are what it asked."""
    from pario.analysis.profile.views import filesystem_view

    view = filesystem_view(doc)
    if view is None:
        return None
    out: dict[str, dict[str, Any]] = {}
    for row in view.get("files") or []:
        got = out.setdefault(row["path"], {"sys_writes": 0, "sys_bytes": 0, "write_time": 0.0, "calls": 0,
                                           "flush_reasons": {}, "size": 0})
        for k in ("sys_writes", "sys_bytes", "write_time", "calls"):
            got[k] += row[k]
        got["size"] = max(got["size"], row["size"])
        for why, n in (row.get("flush_reasons") or {}).items():
            got["flush_reasons"][why] = got["flush_reasons"].get(why, 0) + n
    return out


def _fs_to_mpiio(job: Job) -> None:
    """MPI-IO records carry no file system facts: take them from the POSIX record of the file."""
    posix = {r.path: r for r in job.records if r.module == "posix"}
    for r in job.records:
        if r.module != "posix" and r.path in posix:
            p = posix[r.path]
            r.fs, r.stripe_size, r.stripe_count = p.fs, p.stripe_size, p.stripe_count
            if r.alignment is None:
                r.alignment = p.alignment
