"""Work spread over the ranks: one rank doing all the I/O, and ranks much slower than the rest.
MPI implementations' helper files (Open MPI's *.sm, OMPIO's *.locktest.N, ROMIO's .shfp) were
left out when the log was read (job.is_mpi_helper): counted, they make balanced jobs look uneven."""
from __future__ import annotations

import math

from pario.advise.costs import FromLog, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, names, s
from pario.model.findings import Evidence, Fix
from pario.model.units import human


def app_view(recs: list[Rec]) -> list[Rec]:
    """The records that show what the program asked for: MPI-IO's for files it reached through
    MPI-IO (underneath, only the aggregators do POSIX I/O: that is the design, not imbalance),
    POSIX's for the others. stdio's bytes reach the file system through the same process."""
    through = {r.path for r in recs if r.module == "mpiio"}
    return [r for r in recs if r.module == "mpiio" or (r.module == "posix" and r.path not in through)]


def _per_rank(recs: list[Rec], nprocs: int) -> tuple[dict[int, int], dict[int, float]]:
    """Bytes and I/O seconds per rank; a reduced record's totals are spread evenly over its ranks
    (the log keeps only its fastest and slowest), which can only hide imbalance, never invent it."""
    by, t = {r: 0 for r in range(nprocs)}, {r: 0.0 for r in range(nprocs)}
    for r in app_view(recs):
        if r.rank >= 0:
            by[r.rank] = by.get(r.rank, 0) + r.bytes
            t[r.rank] = t.get(r.rank, 0.0) + r.io_time
        else:
            for k in range(min(r.nprocs, nprocs)):
                by[k] += r.bytes // r.nprocs
                t[k] += r.io_time / r.nprocs
    return by, t


def one_rank(ctx: Ctx) -> list[Candidate]:
    n = ctx.job.nprocs
    if n < 2:
        return []
    recs = ctx.recs()
    by, t = _per_rank(recs, n)
    total = sum(by.values())
    if not total:
        return []
    rank = max(by, key=lambda k: by[k])
    share = by[rank] / total
    if share <= 1 - 1 / n:   # the others together do less than one rank's fair share
        return []
    mine = [r for r in app_view(recs) if r.rank == rank and r.bytes]
    writes = sum(r.bytes_written for r in mine)
    op = "write" if writes >= sum(r.bytes_read for r in mine) else "read"
    calls = sum(r.writes if op == "write" else r.reads for r in mine)
    moved = writes if op == "write" else sum(r.bytes_read for r in mine)
    log_s = sum(r.write_time if op == "write" else r.read_time for r in mine)
    ing = "writing" if op == "write" else "reading"
    text = (f"rank {rank} moves {human(by[rank])} of the job's {human(total)} ({100 * share:.0f}%) while "
            f"{n - 1} rank{'s' if n > 2 else ''} wait; its {op}s took {s(log_s)}.")
    plan = None
    cost: Ratio | FromLog = FromLog(0.0, "no exact request size to measure")
    if calls and moved:
        size = int(moved / calls)
        size -= size % 8
        ranks = ctx.ranks_here(n)
        per = max(size, (moved // ranks) - (moved // ranks) % max(8, size)) if size else 0
        if size >= 8 and per >= size:
            base = {"backend": "mpiio", "transfer": size, "block": per, "ops": [op], "reps": 3}
            plan = Plan(ranks=ranks, before=dict(base, strategy="serial"), after=dict(base, strategy="shared"),
                        log_s=log_s, what=f"rank 0 {ing} for all vs every rank {ing} its part of one file")
            cost = Ratio(log_s=log_s, what=f"every rank {ing} its own part")
    return [Candidate(rule="one-rank-io", title=f"rank {rank} does {100 * share:.0f}% of the I/O",
                      evidence=Evidence(text=text, counters={f"{mine[0].module.upper()}_BYTES_WRITTEN": writes} if mine
                                        else {}, files=names(mine),
                                        ranks=[rank]),
                      fix=Fix(kind="code", text=f"let every rank {op} its own part of one shared file (MPI-IO, "
                                                "HDF5 or PnetCDF with collective calls) instead of sending it all "
                                                f"to rank {rank}"),
                      cost=cost, confidence="medium", plan=plan)]


def stragglers(ctx: Ctx) -> list[Candidate]:
    """Ranks slower than the rest on a shared file (the log's slowest and fastest rank and the
    variance), or across the ranks' own files. Only a spread above what repeated runs of one case
    vary by on this system (the calibration's spread) is reported: less is noise."""
    noise = ctx.model.spread if ctx.model else None
    out = []
    for r in app_view(ctx.recs()):
        if not r.shared or r.slowest_time is None or r.fastest_time is None:
            continue
        p = r.module.upper()
        mean = r.io_time / r.nprocs
        if mean <= 0 or r.slowest_time <= mean:
            continue
        cv = math.sqrt(r.variance_time) / mean if r.variance_time else (r.slowest_time - r.fastest_time) / mean
        uneven_bytes = (r.variance_bytes or 0) > 0 or (r.slowest_rank_bytes or 0) != (r.fastest_rank_bytes or 0)
        if not uneven_bytes and (noise is None or cv <= noise):
            continue
        what = (f"rank {r.slowest_rank} took {s(r.slowest_time)} against a mean of {s(mean)} "
                f"(fastest: rank {r.fastest_rank}, {s(r.fastest_time)})")
        if uneven_bytes:
            what += (f"; the ranks move different amounts (rank {r.slowest_rank}: {human(r.slowest_rank_bytes or 0)}, "
                     f"rank {r.fastest_rank}: {human(r.fastest_rank_bytes or 0)}"
                     + (f", spread {human(math.sqrt(r.variance_bytes))} around a mean of {human(r.bytes / r.nprocs)}"
                        if r.variance_bytes else "") + ")")
            fix = Fix(kind="code", text="give every rank the same amount of data to move (the slowest rank "
                                        "does more than the others)")
        else:
            fix = Fix(kind="code", text=("the ranks move the same bytes at different speeds: look at where the "
                                         "slow ranks run (a busy node, the OSTs their stripes land on: "
                                         "`lfs getstripe`) before changing the program"))
        noise_txt = f"; this system's runs vary by {100 * noise:.0f}%" if noise is not None else ""
        out.append(Candidate(rule="stragglers", title=f"rank {r.slowest_rank} slower on a shared file",
                             evidence=Evidence(text=f"{r.path}: {what}; spread {100 * cv:.0f}% of the mean"
                                                    f"{noise_txt}.",
                                               counters={f"{p}_F_SLOWEST_RANK_TIME": r.slowest_time,
                                                         f"{p}_F_FASTEST_RANK_TIME": r.fastest_time,
                                                         f"{p}_SLOWEST_RANK_BYTES": r.slowest_rank_bytes or 0,
                                                         f"{p}_FASTEST_RANK_BYTES": r.fastest_rank_bytes or 0},
                                               files=[r.path], ranks=[k for k in (r.slowest_rank, r.fastest_rank)
                                                                      if k is not None]),
                             fix=fix, cost=FromLog(r.slowest_time - mean,
                                                   f"the log: the slowest rank's {s(r.slowest_time)} against the "
                                                   f"mean {s(mean)}: balanced, all would end at the mean"),
                             confidence="medium" if uneven_bytes else "low"))
    # across the ranks' own files (file per process)
    n = ctx.job.nprocs
    own = [r for r in app_view(ctx.recs()) if r.rank >= 0]
    if n > 1 and own:
        by, t = _per_rank(own, n)
        busy = [k for k in t if t[k] > 0]
        if len(busy) > 1:
            mean = sum(t[k] for k in busy) / len(busy)
            slow = max(busy, key=lambda k: t[k])
            fast = min(busy, key=lambda k: t[k])
            spread = (t[slow] - mean) / mean if mean else 0
            uneven = by[slow] != by[fast]
            if (uneven and by[slow] > by[fast]) or (noise is not None and spread > noise and not uneven):
                text = (f"rank {slow} spent {s(t[slow])} on its own files against a mean of {s(mean)} over "
                        f"{len(busy)} ranks; it moved {human(by[slow])} (rank {fast}: {human(by[fast])}, "
                        f"{s(t[fast])}).")
                out.append(Candidate(rule="stragglers", title=f"rank {slow} slower than the others",
                                     evidence=Evidence(text=text, counters={"BYTES_WRITTEN": sum(
                                         r.bytes_written for r in own if r.rank == slow)},
                                         files=names(r for r in own if r.rank == slow), ranks=[slow, fast]),
                                     fix=Fix(kind="code", text="give every rank the same amount of data to move"
                                             if uneven else "the ranks move the same bytes at different speeds: "
                                             "look at where the slow ranks run before changing the program"),
                                     cost=FromLog(t[slow] - mean, f"the log: rank {slow}'s {s(t[slow])} against the "
                                                  f"mean {s(mean)}"),
                                     confidence="medium" if uneven else "low"))
    return out


RULES = [one_rank, stragglers]
