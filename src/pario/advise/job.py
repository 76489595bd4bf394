"""The normalised job model the rules read: one record per (interface, file, rank or reduced
group), whatever log it came from. Both readers fill it (read_pario.py, darshan_log.py); the rules
never look at a log format. Counters a log does not carry are None, never a made-up zero."""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

INTERFACES = ("posix", "stdio", "mpiio")


@dataclass(frozen=True)
class Bucket:
    """Requests whose size is in lo..hi bytes (both inclusive; hi None: no upper bound). pario's
    buckets end below a power of 1024 (100K_1M is 102400..1048575), Darshan's at it
    (102401..1048576), so an exact 1 MiB request is never taken for a small one."""
    lo: int
    hi: int | None
    count: int


@dataclass
class Sizes:
    """Request sizes of one direction: exact sizes where the log kept them, the histogram for all."""
    exact: dict[int, int] = field(default_factory=dict)   # size -> count (the most common sizes)
    buckets: list[Bucket] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(b.count for b in self.buckets) if self.buckets else sum(self.exact.values())

    def below(self, limit: int) -> tuple[int, int]:
        """(requests certainly smaller than limit, requests the log cannot place on either side:
        in a histogram bucket that straddles the limit and not among the exact sizes)."""
        if not self.buckets:
            return sum(c for s, c in self.exact.items() if s < limit), 0
        small = unknown = 0
        for b in self.buckets:
            if b.hi is not None and b.hi < limit:
                small += b.count
            elif b.lo < limit:  # straddles: the exact sizes inside it decide what they can
                inside = {s: c for s, c in self.exact.items() if b.lo <= s and (b.hi is None or s <= b.hi)}
                small += sum(c for s, c in inside.items() if s < limit)
                unknown += max(0, b.count - sum(inside.values()))
        return small, unknown

    def dominant(self) -> tuple[int, int] | None:
        """(size, count) of the most common exact size."""
        if not self.exact:
            return None
        size, count = max(self.exact.items(), key=lambda kv: (kv[1], kv[0]))
        return size, count


@dataclass
class Rec:
    """One file as one interface saw it, on one rank (rank >= 0) or reduced over `nprocs` ranks
    (rank -1: the log merged the ranks that opened it). A file of a node-local file system (tmpfs,
    /dev/shm) names its node: the same path on another node is another file, reduced over that
    node's ranks only (pario profile over several nodes)."""
    module: str                     # posix | stdio | mpiio
    path: str
    rank: int
    nprocs: int = 1
    opens: int = 0
    reads: int = 0
    writes: int = 0
    seeks: int | None = None
    stats: int | None = None
    fsyncs: int | None = None       # fsync + fdatasync (MPI_File_sync for mpiio)
    bytes_read: int = 0
    bytes_written: int = 0
    max_byte_read: int | None = None      # offset of the highest byte read (-1: none)
    max_byte_written: int | None = None
    seq_reads: int | None = None
    seq_writes: int | None = None
    consec_reads: int | None = None
    consec_writes: int | None = None
    rw_switches: int | None = None
    not_aligned: int | None = None  # requests whose offset (pario: or size) is no multiple of `alignment`
    alignment: int | None = None    # the unit the log checked against (bytes)
    read_time: float = 0.0          # seconds in calls, summed over the ranks of a reduced record
    write_time: float = 0.0
    meta_time: float = 0.0
    read_sizes: Sizes = field(default_factory=Sizes)
    write_sizes: Sizes = field(default_factory=Sizes)
    strides: dict[int, int] = field(default_factory=dict)   # distance between request starts -> count
    fastest_rank: int | None = None
    slowest_rank: int | None = None
    fastest_rank_bytes: int | None = None
    slowest_rank_bytes: int | None = None
    fastest_time: float | None = None
    slowest_time: float | None = None
    variance_time: float | None = None
    variance_bytes: float | None = None
    # MPI-IO
    indep_reads: int | None = None
    indep_writes: int | None = None
    coll_reads: int | None = None
    coll_writes: int | None = None
    nb_reads: int | None = None
    nb_writes: int | None = None
    views: int | None = None
    hints: dict[str, str] | None = None            # in effect after open (MPI_File_get_info)
    hints_requested: dict[str, str] | None = None  # what the program passed
    # the file system the log recorded for the file
    fs: str | None = None
    stripe_size: int | None = None
    stripe_count: int | None = None
    node: str | None = None         # the node of a node-local file (None: a file every node sees)
    node_ranks: list[int] | None = None   # a record reduced over one node's ranks: that node's ranks

    @property
    def name(self) -> str:
        """The file as findings name it: its path, and its node where the path is node-local."""
        return f"{self.path} (on {self.node})" if self.node else self.path

    def ranks_of(self) -> list[int] | None:
        """The ranks a record reduced over one node's ranks stands for: the first `nprocs` of that
        node's ranks (the log keeps the node, not which of its ranks opened the file); None for a
        record of one rank or one reduced across nodes."""
        return self.node_ranks[:max(1, self.nprocs)] if self.rank < 0 and self.node_ranks else None

    @property
    def shared(self) -> bool:
        return self.rank < 0 and self.nprocs > 1

    @property
    def io_time(self) -> float:
        return self.read_time + self.write_time + self.meta_time

    @property
    def bytes(self) -> int:
        return self.bytes_read + self.bytes_written

    def elapsed(self, part: float) -> float:
        """Seconds of the job's run that `part` (seconds summed over this record's ranks) took,
        if the ranks worked side by side: the per-rank mean."""
        return part / max(1, self.nprocs) if self.rank < 0 else part


@dataclass
class Job:
    source: str                     # the log (or logs) it was read from
    format: str                     # pario | darshan
    nprocs: int                     # MPI ranks (1 for a serial program)
    run_time: float | None          # wall seconds
    command: str = ""
    argv: list[str] = field(default_factory=list)    # the command as the log keeps it ([]: it does not)
    cwd: str = ""                   # where it ran, when the log says (pario profile records it)
    launcher: str = ""              # direct | mpirun (pario profile); "" when the log does not say
    hosts: list[str] = field(default_factory=list)   # [] when the log does not say
    records: list[Rec] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # why the log is incomplete, one reason each
    mounts: dict[str, str] = field(default_factory=dict)   # mount point -> fs type (Darshan)
    ignored: list[str] = field(default_factory=list)  # MPI implementation helper files left out
    jobid: str = ""
    exes: list[str] = field(default_factory=list)     # the executables of its processes, as the log names them
    apart: dict[str, list[str]] = field(default_factory=dict)  # group -> files listed apart (advise.apart)
    # recorded under pario buffer (pario profile --buffer): per file, what the file system saw
    # (sys_writes, sys_bytes, write_time, flush_reasons, size: the buffer's stats); None otherwise
    buffered: dict[str, dict[str, Any]] | None = None
    cluster: str = ""               # the Slurm cluster it ran on, when the log says
    # file -> the I/O library the log shows wrote it (HDF5, PnetCDF: Darshan's H5F/PNETCDF modules,
    # pario's library records, PnetCDF's own keys in the MPI-IO hints it passed)
    lib_files: dict[str, str] = field(default_factory=dict)
    copies: int = 0                 # a program that never called MPI_Init, started on this many ranks
    # a pario log of one program that never called MPI_Init: nprocs counts its processes (itself and
    # its children: a shell script, an interpreter's launcher), not ranks; never launched with -n
    no_mpi: bool = False
    launched: int = 0               # ranks the launcher started (0: the log does not say)
    missing_ranks: list[int] = field(default_factory=list)   # ranks that left no log
    libs: list[Any] = field(default_factory=list)   # the I/O libraries' records (advise/libjob.py LibRec)

    def of(self, module: str) -> list[Rec]:
        return [r for r in self.records if r.module == module]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# Files an MPI library makes for itself: Open MPI's shared-memory backing files (*.sm, vader
# segments), OMPIO's shared-file-pointer lock files (FILE.locktest.N, FILE.lockedfile), ROMIO's
# shared file pointer (.FILE.shfp.N), and pario profile's one record of them all (<MPI runtime
# files>, PARIO_PROFILE_RUNTIME). Counting them makes a balanced job look imbalanced.
_HELPERS = (re.compile(r"^<MPI runtime files>$"),
            re.compile(r"\.sm$"), re.compile(r"/ompi\.[^/]+/"), re.compile(r"\.locktest(\.\d+)?$"),
            re.compile(r"\.lockedfile$"), re.compile(r"/\.[^/]+\.shfp\.\d+$"), re.compile(r"/vader_segment\."),
            re.compile(r"^/dev/shm/"), re.compile(r"/sm_segment\."))


def rank_shares(recs: Iterable[Rec], value: Callable[[Rec], float]) -> tuple[dict[int, float], float]:
    """(per rank: `value` over its own records, plus the per-rank mean of each record reduced over
    its node's ranks; the per-rank mean of the records reduced across nodes, which every rank
    carries). The busiest rank's time is max(per) + the second: the nodes' files side by side."""
    per: dict[int, float] = {}
    shared = 0.0
    for r in recs:
        mine = r.ranks_of()
        if mine:
            for k in mine:
                per[k] = per.get(k, 0.0) + value(r) / max(1, r.nprocs)
        elif r.rank < 0:
            shared += value(r) / max(1, r.nprocs)
        else:
            per[r.rank] = per.get(r.rank, 0.0) + value(r)
    return per, shared


def is_mpi_helper(path: str) -> bool:
    return any(p.search(path) for p in _HELPERS)


def is_stream(path: str) -> bool:
    """Standard streams and pseudo files: not files a fix could change."""
    return path.startswith("<") or path.startswith(("/proc/", "/sys/", "/dev/"))


def directory(path: str) -> str:
    return os.path.dirname(path) or "."
