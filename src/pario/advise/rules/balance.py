"""Work spread over the ranks: one rank doing all the I/O, and ranks much slower than the rest.
MPI implementations' helper files (Open MPI's *.sm, OMPIO's *.locktest.N, ROMIO's .shfp) were
left out when the log was read (job.is_mpi_helper): counted, they make balanced jobs look uneven."""
from __future__ import annotations

from pario.advise.costs import FromLog, NotCosted, Ratio
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


def non_mpi_copies(ctx: Ctx) -> list[Candidate]:
    """A program that never called MPI_Init, started on N ranks (pario profile -n N, mpirun, srun):
    N independent copies, each doing the whole work; files every copy wrote are written N times
    over (and a file each creates with O_TRUNC is clobbered by the others)."""
    n = ctx.job.copies
    if n < 2:
        return []
    writers: dict[str, set[int]] = {}
    for r in ctx.data_recs():
        if r.bytes_written:
            writers.setdefault(r.path, set()).add(r.rank)
    shared = sorted(p for p, ranks in writers.items() if len(ranks) > 1)
    text = (f"the program never called MPI_Init: the launcher started {n} independent copies, each doing the "
            "whole work")
    if shared:
        text += (f"; {len(shared)} file(s) were written by {max(len(writers[p]) for p in shared)} copies each, "
                 f"the same data over and over (e.g. {shared[0]})")
    cmd = ctx.job.command or "the program"
    return [Candidate(rule="non-mpi-copies", title=f"never called MPI_Init: {n} independent copies",
                      evidence=Evidence(text=text + ".", counters={"PROCESSES": n}, files=shared[:3]),
                      fix=Fix(kind="code", text=f"launch it once, as a single process ({cmd}, without -n {n} or "
                                                "mpirun), or make it an MPI program that divides the work among "
                                                "its ranks"),
                      cost=NotCosted("the copies ran side by side: what the others took from the first one's time "
                                     "is not in the log"),
                      confidence="high")]


def one_rank(ctx: Ctx) -> list[Candidate]:
    n = ctx.job.nprocs
    if n < 2 or ctx.job.copies:
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
                      cost=cost, confidence="medium", plan=plan, veto=False)]


def cause(t_slow: float, t_fast: float, b_slow: int, b_fast: int, noise: float | None,
          mean: float) -> tuple[str | None, str]:
    """Why the slowest rank is slower, as the counters show it: "bytes" when its extra bytes, at
    the fastest rank's own rate, account for at least half of its extra time; "speed" when they do
    not and the spread is beyond this system's noise (the spread of repeated runs of one case, from
    the calibration of the system the job ran on); None otherwise, with why. Equal bytes (or 170 B
    more of 4 MiB) are no cause, and a slowest rank that moves fewer bytes is not given more."""
    extra = t_slow - t_fast
    if extra <= 0 or mean <= 0:
        return None, "no rank slower than another"
    by_bytes = t_fast * (b_slow / b_fast - 1) if b_fast > 0 and b_slow > b_fast else (extra if b_slow > b_fast else 0.0)
    if by_bytes >= extra / 2:
        return "bytes", ""
    spread = (t_slow - mean) / mean
    if noise is None:
        return None, (f"the ranks' times spread {100 * spread:.0f}% around the mean with the same bytes; there is no "
                      "calibration of the system the job ran on to say whether that is beyond its noise")
    if spread <= noise:
        return None, f"within this system's noise ({100 * spread:.0f}% against {100 * noise:.0f}%)"
    return "speed", ""


def stragglers(ctx: Ctx) -> list[Candidate]:
    """Ranks slower than the rest, on a shared file (the log's slowest and fastest rank) or across
    the ranks' own files, reported with the cause the counters show (cause()). MPI helper files
    were left out when the log was read."""
    noise = ctx.model.spread if ctx.model else None
    out: list[Candidate] = []
    if ctx.job.copies:
        return out   # copies of a serial program are not ranks sharing work
    for r in app_view(ctx.recs()):
        if not r.shared or r.slowest_time is None or r.fastest_time is None:
            continue
        p = r.module.upper()
        mean = r.io_time / r.nprocs
        if mean <= 0 or r.slowest_time <= mean:
            continue
        b_slow, b_fast = r.slowest_rank_bytes or 0, r.fastest_rank_bytes or 0
        why, said = cause(r.slowest_time, r.fastest_time, b_slow, b_fast, noise, mean)
        if why is None:
            if said and "no calibration" in said:
                ctx.notes.append(f"{r.path}: {said}")
            continue
        what = (f"rank {r.slowest_rank} took {s(r.slowest_time)} against a mean of {s(mean)} "
                f"(fastest: rank {r.fastest_rank}, {s(r.fastest_time)})")
        if why == "bytes":
            what += (f"; it moves more: {human(b_slow)} against rank {r.fastest_rank}'s {human(b_fast)}, which at "
                     f"the fastest rank's rate accounts for most of the difference")
            fix = Fix(kind="code", text="give every rank the same amount of data to move (the slowest rank "
                                        "moves more than the others)")
        else:
            what += (f"; the same bytes ({human(b_slow)} and {human(b_fast)}) at a lower speed, beyond this "
                     f"system's noise ({100 * (noise or 0):.0f}%)")
            fix = Fix(kind="code", text=("the ranks move the same bytes at different speeds: look at what the "
                                         "slow rank does besides (a sync after each write, a busy node, the OSTs "
                                         "its stripes land on: `lfs getstripe`) before changing the program"))
        out.append(Candidate(rule="stragglers", title=f"rank {r.slowest_rank} slower on a shared file",
                             evidence=Evidence(text=f"{r.path}: {what}.",
                                               counters={f"{p}_F_SLOWEST_RANK_TIME": r.slowest_time,
                                                         f"{p}_F_FASTEST_RANK_TIME": r.fastest_time,
                                                         f"{p}_SLOWEST_RANK_BYTES": b_slow,
                                                         f"{p}_FASTEST_RANK_BYTES": b_fast},
                                               files=[r.path], ranks=[k for k in (r.slowest_rank, r.fastest_rank)
                                                                      if k is not None]),
                             fix=fix, cost=FromLog(r.slowest_time - mean,
                                                   f"the log: the slowest rank's {s(r.slowest_time)} against the "
                                                   f"mean {s(mean)}: balanced, all would end at the mean"),
                             confidence="medium" if why == "bytes" else "low"))
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
            why, said = cause(t[slow], t[fast], by[slow], by[fast], noise, mean)
            if why is None and said and "no calibration" in said:
                ctx.notes.append(f"the ranks' own files: {said}")
            if why is not None:
                text = (f"rank {slow} spent {s(t[slow])} on its own files against a mean of {s(mean)} over "
                        f"{len(busy)} ranks; it moved {human(by[slow])} (rank {fast}: {human(by[fast])}, "
                        f"{s(t[fast])})" + ("." if why == "bytes" else
                                            f": the same bytes slower, beyond this system's noise "
                                            f"({100 * (noise or 0):.0f}%)."))
                out.append(Candidate(rule="stragglers", title=f"rank {slow} slower than the others",
                                     evidence=Evidence(text=text, counters={"BYTES_WRITTEN": sum(
                                         r.bytes_written for r in own if r.rank == slow)},
                                         files=names(r for r in own if r.rank == slow), ranks=[slow, fast]),
                                     fix=Fix(kind="code", text="give every rank the same amount of data to move"
                                             if why == "bytes" else "the ranks move the same bytes at different "
                                             "speeds: look at what the slow rank does besides, and where it runs, "
                                             "before changing the program"),
                                     cost=FromLog(t[slow] - mean, f"the log: rank {slow}'s {s(t[slow])} against the "
                                                  f"mean {s(mean)}"),
                                     confidence="medium" if why == "bytes" else "low"))
    return out


RULES = [non_mpi_copies, one_rank, stragglers]
