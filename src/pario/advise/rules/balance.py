"""Work spread over the ranks: one rank doing all the I/O, and ranks much slower than the rest.
MPI implementations' helper files (Open MPI's *.sm, OMPIO's *.locktest.N, ROMIO's .shfp) were
left out when the log was read (job.is_mpi_helper): counted, they make balanced jobs look uneven."""
from __future__ import annotations

import math

from pario.advise.costs import FALSE_ALARM, FromLog, NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, names, s
from pario.model.findings import Evidence, Fix
from pario.model.units import count, human


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
        else:   # a node-local file: its node's ranks; else the first nprocs
            for k in r.ranks_of() or range(min(r.nprocs, nprocs)):
                by[k] = by.get(k, 0) + r.bytes // r.nprocs
                t[k] = t.get(k, 0.0) + r.io_time / r.nprocs
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
            writers.setdefault(r.name, set()).add(r.rank)
    shared = sorted(p for p, ranks in writers.items() if len(ranks) > 1)
    text = (f"the program never called MPI_Init: the launcher started {n} independent copies, each doing the "
            "whole work")
    if shared:
        text += (f"; {count(len(shared), 'file')} {'was' if len(shared) == 1 else 'were'} written by "
                 f"{max(len(writers[p]) for p in shared)} copies each, the same data over and over (e.g. {shared[0]})")
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
    if n < 2 or ctx.job.copies or ctx.job.no_mpi:   # a program and its children share no work to balance
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


# Ranks whose bytes differ by more than this share of their mean are given different amounts of
# work: a difference the program's decomposition makes (bytes are counted exactly, so no timing
# noise enters this verdict; a library's header written by one rank is far less: 170 B of 4 MiB).
# The share is a judgement, not a measurement: below it the loaded rank's extra bytes are under a
# tenth of a rank's share, and so, at the ranks' own rate, is the time they cost it.
BYTES_SPREAD = 0.1


def judge(bytes_mean: float, bytes_sd: float, nranks: int, t_slow: float, t_fast: float, t_mean: float,
          noise: float | None, noise_why: str, other_op: int = 0,
          syncs_s: float | None = None) -> tuple[str | None, float, str]:
    """(cause, seconds, why): "bytes" when the most loaded rank's extra bytes (at most
    sd*sqrt(N-1) beyond the mean, when one rank holds all the excess) are more than BYTES_SPREAD of
    the mean: its seconds are the least it must carry, sd/sqrt(N-1), at the ranks' own rate (the
    bytes are a count, not a timing: the ranks' timing noise does not make them even; it makes
    the seconds small, and the finding minor, where they are); "speed" when the bytes are even and
    the ranks' times differ beyond what ranks moving the same bytes differ by on the job's system
    (measure.rank_noise), or, where the file shows a rank syncing after each of its writes, within
    what those syncs cost here (`syncs_s`: "syncs", the cause the counters show); None otherwise,
    with why (no noise figure of that system: no verdict on speed).

    `other_op`: the bytes of the operation the record holds less of (a file written, then read by
    every rank). A loaded rank's extra bytes that it could hold are not shown to be an uneven
    decomposition: one rank writing what all then read is two phases, not uneven shares of one."""
    if bytes_mean > 0 and bytes_sd > 0:
        most = bytes_sd * math.sqrt(max(1, nranks - 1)) / bytes_mean
        if most > BYTES_SPREAD:
            if bytes_sd * math.sqrt(max(1, nranks - 1)) <= other_op:
                return None, 0.0, ("the ranks move different amounts, by no more than the bytes of the "
                                   "operation fewer of them may have made (one writing what all then read): "
                                   "the log does not show an uneven share of one operation")
            return "bytes", t_mean / bytes_mean * bytes_sd / math.sqrt(max(1, nranks - 1)), ""
    if t_mean <= 0 or t_slow <= t_fast:
        return None, 0.0, ""
    spread = (t_slow - t_fast) / t_mean
    if syncs_s and 0 < t_slow - t_mean <= syncs_s:
        return "syncs", t_slow - t_mean, ""
    if noise is None:
        return None, 0.0, (f"the ranks' times differ by {100 * spread:.0f}% of their mean with even bytes; "
                           f"whether that is beyond the noise is not known ({noise_why or 'no measurement'})")
    if spread <= noise:
        return None, 0.0, ""
    return "speed", t_slow - t_mean, ""


def _syncs_s(ctx: Ctx, recs: list[Rec]) -> float | None:
    """What the syncs on these files cost, at this system's measured cost of one, where the counters
    show a rank syncing after (nearly) each of its writes (Ctx.syncs_each_write) and fewer syncs than
    the ranks' writes: some ranks' writes go unsynced, so the syncs fall on fewer ranks than write
    and may be what makes one slower. As many syncs as writes or more (every rank syncing after each
    of its writes: IOR -Y) is an even share that names no rank. None: not so, or no calibration of
    the job's system."""
    synced = [r for r in recs if r.module == "posix" and ctx.syncs_each_write(r)]
    n = sum(r.fsyncs or 0 for r in synced)
    if n >= sum(r.writes for r in recs if r.module == "posix"):
        return None
    # the most one sync costs here on average (costs.sync_costs): the syncs are ruled out as what
    # made a rank slow only when its extra time is beyond what they can cost, not beyond one draw
    per = (ctx.model.fsync_hi or ctx.model.fsync_s) if ctx.model is not None else None
    return n * per if n and per else None


def _per_sync(ctx: Ctx) -> str:
    m = ctx.model
    if m is None or m.fsync_s is None or m.fsync_rounds < 2 or m.fsync_hi is None:
        return ""
    return (f" (one sync: {s(m.fsync_s)} on average over {m.fsync_rounds} rounds of the calibration, at most "
            f"{s(m.fsync_hi)} at {100 * (1 - FALSE_ALARM):.0f}% confidence)")


def stragglers(ctx: Ctx) -> list[Candidate]:
    """Ranks that move more bytes than the others, or the same bytes slower beyond the noise, on a
    shared file (the log's variance over ranks, slowest and fastest rank) or across the ranks' own
    files, with the cause the counters show (judge()). MPI helper files were left out when the log
    was read."""
    noise, noise_why = ctx.rank_noise, ctx.rank_noise_why
    out: list[Candidate] = []
    if ctx.job.copies:
        return out   # copies of a serial program are not ranks sharing work
    for r in app_view(ctx.recs()):
        if not r.shared or r.slowest_time is None or r.fastest_time is None:
            continue
        p = r.module.upper()
        t_mean = r.io_time / r.nprocs
        b_mean = r.bytes / r.nprocs
        b_sd = math.sqrt(r.variance_bytes) if r.variance_bytes is not None else \
            abs((r.slowest_rank_bytes or 0) - (r.fastest_rank_bytes or 0)) / 2
        synced = [x for x in ctx.recs("posix") if x.name == r.name]   # MPI_File_sync's too: fsync below it
        why, sec, said = judge(b_mean, b_sd, r.nprocs, r.slowest_time, r.fastest_time, t_mean, noise, noise_why,
                               other_op=min(r.bytes_written, r.bytes_read), syncs_s=_syncs_s(ctx, synced))
        if why is None:
            if said:
                ctx.notes.append(f"{r.name}: {said}")
            continue
        counters = {f"{p}_F_SLOWEST_RANK_TIME": r.slowest_time, f"{p}_F_FASTEST_RANK_TIME": r.fastest_time,
                    f"{p}_SLOWEST_RANK_BYTES": r.slowest_rank_bytes or 0,
                    f"{p}_FASTEST_RANK_BYTES": r.fastest_rank_bytes or 0}
        if why == "bytes":
            counters[f"{p}_F_VARIANCE_RANK_BYTES"] = r.variance_bytes or 0
            text = (f"{r.name}: the {r.nprocs} ranks move different amounts: {human(b_sd)} around a mean of "
                    f"{human(b_mean)} per rank ({100 * b_sd / b_mean:.0f}%); the most loaded moves at least "
                    f"{human(b_sd / math.sqrt(max(1, r.nprocs - 1)))} more than the mean.")
            title = f"ranks move uneven amounts of {r.name.rsplit('/', 1)[-1]}"
            fix = Fix(kind="code", text="give every rank the same amount of data to move (the decomposition gives "
                                        "some ranks more than others)")
            how = (f"the log: the ranks' mean rate on this file ({s(t_mean)} for {human(b_mean)}) applied to the "
                   "most loaded rank's extra bytes")
        elif why == "syncs":
            text = (f"{r.name}: rank {r.slowest_rank} took {s(r.slowest_time)} against a mean of {s(t_mean)} "
                    f"(fastest: rank {r.fastest_rank}, {s(r.fastest_time)}) moving the same bytes; the file's "
                    f"{sum(x.fsyncs or 0 for x in synced):,} syncs can cost up to {s(_syncs_s(ctx, synced) or 0)} here"
                    f"{_per_sync(ctx)}, more than the slow rank's extra time, and they come after (nearly) each "
                    "write of a rank: the slow rank's syncs.")
            title = f"rank {r.slowest_rank} slower on a shared file: its syncs"
            fix = Fix(kind="code", text="sync once after the last write (or at close), not after each write: the "
                                        "slow rank waits for the device at every sync while the others go on")
            how = f"the log: the slowest rank's {s(r.slowest_time)} against the mean {s(t_mean)}"
            counters["POSIX_FSYNCS"] = sum(x.fsyncs or 0 for x in synced)
        else:
            text = (f"{r.name}: rank {r.slowest_rank} took {s(r.slowest_time)} against a mean of {s(t_mean)} "
                    f"(fastest: rank {r.fastest_rank}, {s(r.fastest_time)}) moving the same bytes: a spread of "
                    f"{100 * (r.slowest_time - r.fastest_time) / t_mean:.0f}% of the mean, beyond this system's "
                    f"{100 * (noise or 0):.0f}% ({noise_why}).")
            title = f"rank {r.slowest_rank} slower on a shared file"
            fix = Fix(kind="code", text=("the ranks move the same bytes at different speeds: look at what the "
                                         "slow rank does besides (a sync after each write, a busy node, the OSTs "
                                         "its stripes land on: `lfs getstripe`) before changing the program"))
            how = f"the log: the slowest rank's {s(r.slowest_time)} against the mean {s(t_mean)}"
        out.append(Candidate(rule="stragglers", title=title,
                             evidence=Evidence(text=text, counters=counters, files=[r.name],
                                               ranks=[k for k in (r.slowest_rank, r.fastest_rank) if k is not None]),
                             fix=fix, cost=FromLog(sec, how), confidence="medium" if why == "bytes" else "low"))
    # across the ranks' own files (file per process)
    n = ctx.job.nprocs
    own = [r for r in app_view(ctx.recs()) if r.rank >= 0]
    if n > 1 and own and not ctx.job.no_mpi:
        by, t = _per_rank(own, n)
        busy = [k for k in t if t[k] > 0]
        if len(busy) > 1:
            t_mean = sum(t[k] for k in busy) / len(busy)
            b_mean = sum(by[k] for k in busy) / len(busy)
            b_sd = math.sqrt(sum((by[k] - b_mean) ** 2 for k in busy) / len(busy))
            slow = max(busy, key=lambda k: t[k])
            fast = min(busy, key=lambda k: t[k])
            heavy = max(busy, key=lambda k: by[k])
            total = sum(by[k] for k in busy)
            if total and by[heavy] > (1 - 1 / n) * total:
                return out   # one rank moves (nearly) all of it: one_rank's finding, not an imbalance
            why, sec, said = judge(b_mean, b_sd, len(busy), t[slow], t[fast], t_mean, noise, noise_why,
                                   other_op=min(sum(r.bytes_written for r in own), sum(r.bytes_read for r in own)))
            if why is None and said:
                ctx.notes.append(f"the ranks' own files: {said}")
            if why is not None:
                who = heavy if why == "bytes" else slow
                text = (f"rank {heavy} moved {human(by[heavy])} to its own files against a mean of {human(b_mean)} "
                        f"over {len(busy)} ranks." if why == "bytes" else
                        f"rank {slow} spent {s(t[slow])} on its own files against a mean of {s(t_mean)} over "
                        f"{len(busy)} ranks moving the same bytes (rank {fast}: {s(t[fast])}), beyond this "
                        f"system's {100 * (noise or 0):.0f}% ({noise_why}).")
                if why == "bytes":   # the loaded rank's own time on its extra bytes, at its own rate
                    sec = t[heavy] * (by[heavy] - b_mean) / by[heavy] if by[heavy] else 0.0
                verb = "moves more" if why == "bytes" else "slower"
                out.append(Candidate(rule="stragglers", title=f"rank {who} {verb} than the others",
                                     evidence=Evidence(text=text, counters={"BYTES_WRITTEN": sum(
                                         r.bytes_written for r in own if r.rank == who)},
                                         files=names(r for r in own if r.rank == who), ranks=[who]),
                                     fix=Fix(kind="code", text="give every rank the same amount of data to move"
                                             if why == "bytes" else "the ranks move the same bytes at different "
                                             "speeds: look at what the slow rank does besides, and where it runs, "
                                             "before changing the program"),
                                     cost=FromLog(sec, f"the log: rank {who}'s extra time against the mean"),
                                     confidence="medium" if why == "bytes" else "low"))
    return out


RULES = [non_mpi_copies, one_rank, stragglers]
