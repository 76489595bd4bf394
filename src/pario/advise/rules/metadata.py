"""Metadata-bound jobs: many files for the ranks that use them, the same file opened again and
again, stat calls on files already open; files per directory is part of the evidence."""
from __future__ import annotations

from collections import Counter

from pario.advise.costs import Cost, PerOp, Ratio
from pario.advise.job import Rec, directory
from pario.advise.rules.base import Candidate, Ctx, Plan, names, per_rank, phases, ranks_of, s
from pario.model.findings import Evidence, Fix
from pario.model.units import count, human


def _files_by_rank(recs: list[Rec]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for r in recs:
        out.setdefault(r.rank, set()).add(r.path)
    return out


def many_files(ctx: Ctx) -> list[Candidate]:
    """More files than ranks: each one costs a create (or open), a close and, on a parallel file
    system, a round trip to the metadata server, whatever its size."""
    recs = [r for r in ctx.data_recs("posix") if r.opens and not r.shared]
    paths = {r.path for r in recs}
    users = len({r.rank for r in recs}) or 1
    if len(paths) <= users:
        return []
    per_rank = _files_by_rank(recs)
    rank = max(per_rank, key=lambda k: len(per_rank[k]))
    mine = [r for r in recs if r.rank == rank]
    created = [r for r in mine if r.bytes_written]
    n_rank = len(per_rank[rank])
    meta = sum(r.meta_time for r in mine)
    io = sum(r.io_time for r in mine)
    dirs = Counter(directory(p) for p in paths)
    top_dir, in_top = dirs.most_common(1)[0]
    avg = sum(r.bytes for r in recs) / len(paths)
    who = f"rank {rank}" if ctx.job.nprocs > 1 else "the process"
    text = (f"{len(paths):,} files for {users} rank{'s' if users > 1 else ''} ({who} alone: {n_rank:,}, "
            f"{human(avg)} each on average); {who} spent {s(meta)} of its {s(io)} of I/O in opens, closes and "
            f"other metadata calls. Most in one directory: {in_top:,} in {top_dir}.")
    op = "create" if created else "open_close"
    fewer = n_rank - 1
    fix = Fix(kind="code", text=("write one file per rank (or one shared file through MPI-IO, HDF5 or ADIOS2) "
                                 "holding what now goes into many, and keep directories to a few thousand "
                                 "entries" if created else
                                 "read the data from fewer, larger files (pack the small ones: tar, HDF5)"))
    plan = None
    cost: Cost = PerOp(count=fewer, op=op, cap_s=meta,
                       what=f"{'creates' if created else 'opens and closes'} fewer on rank {rank}")
    if created:
        size = int(avg) - int(avg) % 8
        ranks = ctx.ranks_here(users)
        plan = Plan(ranks=ranks, before={"workload": "metadata", "files_per_dir": n_rank, "file_size": max(0, size),
                                         "per_rank_dirs": True, "ops": ["create", "remove"], "reps": 3},
                    after={"backend": "posix", "strategy": "fpp", "transfer": max(8, size),
                           "block": max(8, size) * n_rank, "ops": ["write"], "reps": 3},
                    log_s=io, what=f"{n_rank:,} files of {human(size)} per rank vs one file per rank")
        # the files' whole cost (create, write, close) against the same bytes in one file, measured
        cost = Ratio(log_s=io, what="the same bytes in one file per rank")
    return [Candidate(rule="many-files", title=f"{len(paths):,} files for {users} "
                      f"{'ranks' if users > 1 else 'rank' if ctx.job.nprocs > 1 else 'process'}",
                      evidence=Evidence(text=text, counters={"POSIX_OPENS": sum(r.opens for r in recs)},
                                        files=names(recs), ranks=[rank]),
                      fix=fix, cost=cost, confidence="medium", plan=plan, veto=False)]


def reopen(ctx: Ctx) -> list[Candidate]:
    """Files opened more often than the process needs: every open is a metadata round trip."""
    # a program that alternates writing and reading a file opens it once per run of reads or of
    # writes (IOR -i 3 -w -r: 6 runs; its MPI-IO backend opens twice more to look at the size):
    # reopening is opening it more than twice per run on average; under an I/O library, the opens
    # the program asked of the library decide (ctx.library_reopens)
    def allowed(r: Rec) -> int:
        return (r.nprocs if r.rank < 0 else 1) * 2 * phases(r)
    # files reached through MPI-IO: the program's opens are its MPI_File_open calls (the POSIX
    # opens under them are the MPI-IO layer's)
    through = {r.path for r in ctx.recs("mpiio")}
    hits = [r for r in ctx.recs("posix") + ctx.recs("mpiio") if r.opens > allowed(r)
            and (r.module == "mpiio" or r.path not in through) and ctx.library_reopens(r.path)]
    if not hits:
        return []
    extra = {id(r): r.opens - allowed(r) for r in hits}
    worst = max(hits, key=lambda r: extra[id(r)] / (r.nprocs if r.rank < 0 else 1))
    n = int(extra[id(worst)] / (worst.nprocs if worst.rank < 0 else 1))
    if n < 1:
        return []
    total_extra = sum(extra.values())
    text = (f"{sum(r.opens for r in hits):,} opens of {count(len(hits), 'file')}: {total_extra:,} more than one per "
            f"process and run of reads or writes (two allowed); {worst.name} alone is opened {n + phases(worst):,} "
            "times by one rank.")
    return [Candidate(rule="reopen", title="the same files opened again and again",
                      evidence=Evidence(text=text, counters={f"{hits[0].module.upper()}_OPENS":
                                                             sum(r.opens for r in hits)},
                                        files=names(hits), ranks=ranks_of(hits)[:8]),
                      fix=Fix(kind="code", text="open each file once and keep the descriptor (or FILE*) for the "
                                                "run; close it at the end"),
                      cost=PerOp(count=n, op="open_close", cap_s=worst.elapsed(worst.meta_time),
                                 what="opens and closes fewer"),
                      confidence="medium")]


def stats(ctx: Ctx) -> list[Candidate]:
    # once or twice per run of reads or writes (a size check before each pass) is not "again and again"
    through = {r.path for r in ctx.recs("mpiio")}   # the MPI-IO layer's own stat calls
    hits = [r for r in ctx.recs("posix") if per_rank(r, r.stats or 0) > 2 * phases(r) and r.path not in through
            and ctx.library_reopens(r.path)]
    if not hits:
        return []
    worst = max(hits, key=lambda r: per_rank(r, r.stats or 0) - phases(r))
    n = int(per_rank(worst, worst.stats or 0)) - phases(worst)
    if n < 1:
        return []
    text = (f"{sum(r.stats or 0 for r in hits):,} stat calls on {count(len(hits), 'file')}; {worst.name}: "
            f"{n + phases(worst):,} by one rank. Each asks the metadata server (and on Lustre every OST of the file "
            "for its size).")
    return [Candidate(rule="stat-calls", title="repeated stat calls",
                      evidence=Evidence(text=text, counters={"POSIX_STATS": sum(r.stats or 0 for r in hits)},
                                        files=names(hits), ranks=ranks_of(hits)[:8]),
                      fix=Fix(kind="code", text="stat a file once and keep the answer (or fstat the open "
                                                "descriptor), instead of asking before every access"),
                      cost=PerOp(count=n, op="stat", cap_s=worst.elapsed(worst.meta_time), what="stat calls fewer"),
                      confidence="medium")]


RULES = [many_files, reopen, stats]
