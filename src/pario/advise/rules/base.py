"""What every rule module shares: the context a rule reads (the job, the stack under its files,
this system's per-call model), the candidate it returns (a finding, the Cost spec its time at stake
is estimated from, and the Plan of bench cases --verify runs) and small helpers over records.

No rule holds a size threshold of its own: sizes are judged against the file system's unit and
the per-call cost measured here (Ctx.small_limit), and whether a finding matters is decided by its
cost, not by a fixed share."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Callable

from pario.advise.costs import Cost, Model, Query
from pario.advise.facts import FsFacts, StackFacts
from pario.advise.job import Job, Rec, is_stream
from pario.advise.libraries import engine_outputs
from pario.model.findings import Evidence, Fix
from pario.model.units import human, seconds


@dataclass
class Plan:
    """What --verify runs: the job's pattern as it is and with the fix, as `pario bench` case
    options at the job's full size (verify.py scales them down when asked to)."""
    ranks: int
    before: dict[str, Any]
    after: dict[str, Any]
    log_s: float                 # the job's time in what the fix changes
    what: str                    # e.g. "512 B writes vs 512 KiB writes"
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)   # more variants measured beside
    nodes: int | None = None     # the ranks over this many nodes (a fix per node: rules/nodes.py)


@dataclass
class Candidate:
    rule: str
    title: str
    evidence: Evidence
    fix: Fix
    cost: Cost
    confidence: str = "medium"
    plan: Plan | None = None
    queries: list[Query] = field(default_factory=list)    # measurements the estimate needs
    stance: tuple[str, str] | None = None   # (file, "collective" | "independent"): never both for one file
    # a fix measured here to gain nothing is not advised (advisor.rank); False for a finding that is
    # a fact of the log whatever its cost here: it stays, at the seconds measured (possibly none)
    veto: bool = True


@dataclass
class Ctx:
    job: Job
    stack: StackFacts
    model: Model | None
    max_ranks: int                # ranks a measurement here may use
    notes: list[str] = field(default_factory=list)   # what the rules judged and did not report, and why
    # how much ranks moving the same bytes differ on the job's system (measure.rank_noise), and why
    # it is not known when it is not
    rank_noise: float | None = None
    rank_noise_why: str = ""
    nodes_here: int = 1           # nodes a measurement here may use (a Slurm allocation's, a hostfile's)
    # files an I/O library's engine writes on its own schedule (ADIOS2's BP output: file -> its
    # directory): left to the library's rules, never the program's calls
    engine: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.engine = engine_outputs(self.job)
        dirs = sorted(set(self.engine.values()))
        if dirs:
            self.notes.append(f"{len(self.engine)} file{'s' if len(self.engine) != 1 else ''} of ADIOS2's output "
                              f"({', '.join(dirs[:2])}{' ...' if len(dirs) > 2 else ''}) judged at ADIOS2's level "
                              "only: its engine writes them itself at each step's end and at close, so the "
                              "program's calls, a buffer or pwrite do not reach them; its parameters do")

    def facts(self, rec: Rec) -> FsFacts:
        return self.stack.of(rec)

    def recs(self, module: str | None = None) -> list[Rec]:
        """The job's records of real files the program's own calls reach (not streams, not MPI helper
        files, not the files an I/O library's engine writes itself)."""
        return [r for r in self.job.records if (module is None or r.module == module) and not is_stream(r.path)
                and r.path not in self.engine]

    def data_recs(self, module: str | None = None) -> list[Rec]:
        """Records of files that data was read from or written to (directories opened or
        stat'ed by the MPI library or the program are not files a layout or a fix is about)."""
        return [r for r in self.recs(module) if r.bytes]

    def small_limit(self, rec: Rec, op: str) -> tuple[int | None, str]:
        """Requests below this size are small for `rec`'s file system and this system's per-call
        cost: the larger of the file system's unit and the size at which a call's fixed cost is
        half its time. (None, why) when neither is known."""
        facts = self.facts(rec)
        line = self.model.line(rec.module, op) if self.model else None
        parts: list[tuple[int, str]] = []
        if facts.unit:
            parts.append((int(facts.unit), f"{facts.unit_source}, {human(int(facts.unit))}"))
        if line and line.c0 > 0:
            be = int(line.break_even)
            parts.append((be, f"the size below which a call's fixed cost ({line.c0 * 1e6:.2f} us here) is over half "
                              f"its time, {human(be)}"))
        if not parts:
            return None, "neither the file system's unit nor a calibration of this system is known"
        limit = max(p[0] for p in parts)
        why = parts[0][1] if len(parts) == 1 else "the larger of " + " and ".join(p[1] for p in parts)
        return limit, why

    def library_files(self) -> set[str]:
        """Files an I/O library (HDF5, PnetCDF, NetCDF, ADIOS2) opened for the program: their MPI-IO
        and POSIX calls are the library's (its data calls and its own metadata), and the library
        rules (rules/libraries.py, lib_layout.py) give their advice in the library's terms. Files known only from
        Darshan's HDF5 records are not among them: those records do not say where the data starts,
        whether metadata was collective or which syncs the program asked for, so the POSIX and
        MPI-IO rules still judge those files (in the library's terms where they name a knob)."""
        return {r.file for r in self.job.libs if r.source == "pario"}

    def library_reopens(self, path: str) -> bool:
        """Did the program open `path` through its I/O library more than once per process? (The
        opens and stats under one library open are the library's and the MPI-IO layer's: PnetCDF's
        create opens the file twice on its root, OMPIO stats it.) True for a file no library opened."""
        files = [r for r in self.job.libs if r.kind == "file" and r.file == path]
        if not files:
            return True
        top = [r for r in files if r.library != "hdf5"] or files   # netCDF-4 over HDF5: netCDF's opens
        return any(r.n("OPENS") + r.n("CREATES") > (r.nprocs if r.rank < 0 else 1) for r in top)

    def library_syncs(self, path: str) -> int:
        """The flushes the program asked of the I/O library on `path` (H5Fflush, nc_sync, ncmpi_sync,
        adios2_flush): the library's other syncs (at nc_enddef, at close) are its own doing."""
        files = [r for r in self.job.libs if r.kind == "file" and r.file == path]
        if any(r.library == "netcdf" for r in files):   # netCDF-4 over HDF5: its H5Fflush calls are netCDF's
            files = [r for r in files if r.library == "netcdf"]
        return sum(r.n(k) for r in files for k in ("FLUSHES", "SYNCS"))

    def syncs_each_write(self, r: Rec) -> bool:
        """Does `r` (a POSIX record) show a sync after (nearly) every write of a rank: at least one sync
        for every two writes a rank makes (a reduced record's syncs may all be one rank's), more than a
        sync or two per open (a library's flush and close, a checkpoint's end), and on an I/O
        library's file only the syncs the program asked of the library?"""
        return ((r.fsyncs or 0) > 2 * max(1, r.opens) and r.writes > 0
                and 2 * (r.fsyncs or 0) >= per_rank(r, r.writes)
                and (r.path not in self.library_files() or self.library_syncs(r.path) > 1))

    def library_hints(self, path: str) -> set[str]:
        """Info keys an I/O library on `path` read itself and reports in effect (PnetCDF's nc_*
        hints): it passes its whole MPI_Info on to MPI_File_open, so the MPI-IO layer sees them
        requested, but they are the library's settings, not MPI-IO hints."""
        return {k for r in self.job.libs if r.kind == "file" and r.file == path for k in r.hints
                if not k.startswith("req:")}

    def ranks_here(self, ranks: int) -> int:
        return max(1, min(ranks, self.max_ranks))


def slowest_rank(recs: Iterable[Rec], time: Callable[[Rec], float]) -> tuple[int | None, float, list[Rec]]:
    """(rank, seconds, its records) of the rank that spent the most time in `time` over `recs`.
    A record reduced over ranks counts its per-rank mean for each of its ranks: its node's (Rec.ranks_of),
    else every rank's (rank None when no record is of one rank or one node)."""
    per: dict[int, float] = {}
    recs_of: dict[int, list[Rec]] = {}
    shared_s, shared = 0.0, []
    for r in recs:
        mine = r.ranks_of()
        if mine:   # a node-local file: its node's ranks, side by side with the other nodes'
            for k in mine:
                per[k] = per.get(k, 0.0) + time(r) / max(1, r.nprocs)
                recs_of.setdefault(k, []).append(r)
        elif r.rank < 0:
            shared_s += time(r) / max(1, r.nprocs)
            shared.append(r)
        else:
            per[r.rank] = per.get(r.rank, 0.0) + time(r)
            recs_of.setdefault(r.rank, []).append(r)
    if not per:
        return None, shared_s, shared
    rank = max(per, key=lambda k: per[k])
    return rank, per[rank] + shared_s, recs_of[rank] + shared


s = seconds


def per_rank(r: Rec, n: float) -> float:
    """A count of a record as one of its ranks saw it (a reduced record sums its ranks')."""
    return n / (r.nprocs if r.rank < 0 else 1)


def phases(r: Rec) -> int:
    """Runs of reads or of writes one rank made on the file: RW_SWITCHES counts the changes
    between reading and writing (a reduced record sums them over its ranks, which work side by
    side). A program that writes then reads a file three times (IOR's -i 3) has six; each may
    start over at the file's beginning, open the file and look at its size once."""
    return int(per_rank(r, r.rw_switches or 0)) + 1


def passes(r: Rec) -> int:
    """The most runs of reads (or of writes) the switches allow: a first one before any switch,
    then one every second switch."""
    return (int(per_rank(r, r.rw_switches or 0)) + 2) // 2


def names(recs: Iterable[Rec], top: int = 3) -> list[str]:
    out: list[str] = []
    for r in sorted(recs, key=lambda r: (not r.bytes, -r.io_time)):
        if r.name not in out:
            out.append(r.name)
    return out[:top] + ([f"... and {len(out) - top} more"] if len(out) > top else [])


def ranks_of(recs: Iterable[Rec]) -> list[int]:
    return sorted({r.rank for r in recs if r.rank >= 0})


def strategy_of(recs: list[Rec], nprocs: int) -> str:
    """How the job spread these files over its ranks, in bench terms."""
    if any(r.shared for r in recs):
        return "shared"
    if nprocs > 1 and len({r.rank for r in recs}) > 1:
        return "fpp"
    return "serial" if nprocs > 1 else "fpp"
