"""How the job walks its files: out of order where it could go in order, the same bytes read
again and again, data read back right after it was written, and a sync after every write."""
from __future__ import annotations

from pario.advise.costs import FromLog, PerOp, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import (
    Candidate,
    Ctx,
    Plan,
    names,
    passes,
    ranks_of,
    s,
    slowest_rank,
    strategy_of,
)
from pario.model.findings import Evidence, Fix
from pario.model.units import count, human


def _random(r: Rec, op: str) -> int:
    n = r.writes if op == "write" else r.reads
    seq = r.seq_writes if op == "write" else r.seq_reads
    # each rank's first request of each pass has no predecessor it follows: a pass over the file
    # again (IOR's -i, or a file read five times over) starts over at its beginning
    top = r.max_byte_written if op == "write" else r.max_byte_read
    moved = r.bytes_written if op == "write" else r.bytes_read
    over = int(moved // (top + 1)) if moved and top is not None and top >= 0 else 1
    firsts = (r.nprocs if r.rank < 0 else 1) * max(passes(r), over)
    if seq is None or n <= firsts:
        return 0
    return max(0, n - firsts - seq)


def random_access(op: str):
    def rule(ctx: Ctx) -> list[Candidate]:
        # files reached through MPI-IO: the order underneath is the MPI-IO layer's, not the program's
        through = {r.path for r in ctx.recs("mpiio")}
        hits = [(r, _random(r, op)) for r in ctx.recs("posix") if r.path not in through]
        hits = [(r, k) for r, k in hits if k > 0]
        if not hits:
            return []
        share = {id(r): k / ((r.writes if op == "write" else r.reads) or 1) for r, k in hits}

        def t(r: Rec) -> float:
            return (r.write_time if op == "write" else r.read_time) * share[id(r)]

        rank, log_s, crit = slowest_rank([r for r, _ in hits], t)
        n = sum(k for _, k in hits)
        total = sum((r.writes if op == "write" else r.reads) for r, _ in hits)
        sizes: dict[int, int] = {}
        for r, _ in hits:
            for size, c in (r.write_sizes if op == "write" else r.read_sizes).exact.items():
                sizes[size] = sizes.get(size, 0) + c
        typical = max(sizes, key=lambda k: sizes[k]) if sizes else None
        text = (f"{n:,} of {total:,} {op}s ({100 * n / total:.0f}%) start before the end of the previous one: "
                f"the file is {'written' if op == 'write' else 'read'} out of order"
                f"{f' in {human(typical)} pieces' if typical else ''}; the busiest rank spent {s(log_s)} in them.")
        plan, cost = None, Ratio(log_s=log_s, what=f"the same {op}s in file order")
        if typical and typical % 8 == 0:
            calls = max((r.writes if op == "write" else r.reads) / (r.nprocs if r.rank < 0 else 1) for r in crit)
            ranks = ctx.ranks_here(len(ranks_of(r for r, _ in hits)) or max(r.nprocs for r, _ in hits))
            strategy = strategy_of([r for r, _ in hits], ctx.job.nprocs)
            base = {"backend": "posix", "strategy": "fpp" if strategy == "serial" else strategy, "ops": [op],
                    "transfer": typical, "block": typical * max(2, int(calls)), "reps": 3}
            plan = Plan(ranks=ranks, before=dict(base, pattern="random"), after=dict(base, pattern="segmented"),
                        log_s=log_s, what=f"{human(typical)} {op}s in random order vs in order")
        verb = "write" if op == "write" else "read"
        fix = Fix(kind="code", text=(f"{verb} in file order: sort the requests by offset (gather the pieces in "
                                     "memory first if they are produced out of order)" if op == "write" else
                                     "read the region in file order once and take the pieces from memory"))
        return [Candidate(rule=f"random-{op}s", title=f"{op}s out of file order",
                          evidence=Evidence(text=text, counters={f"POSIX_{op.upper()}S": total,
                                                                 f"POSIX_SEQ_{op.upper()}S": total - n},
                                            files=names(r for r, _ in hits), ranks=ranks_of(crit)[:8]),
                          fix=fix, cost=cost if plan else FromLog(0.0, "not measurable: no exact request size"),
                          confidence="medium", plan=plan, veto=False)]
    return rule


def repeats(r: Rec, extent: int) -> tuple[float, int]:
    """(times the extent was read within one pass, passes): bytes read over the extent, divided
    by the read passes the writes between them can explain (at most one per rewrite of the
    extent, plus the first)."""
    # a read pass after writes may read what they put there: IOR's -i 3 writes then reads three
    # times, and no byte is read twice without a write between
    n = passes(r)
    if r.bytes_written and extent:
        n = min(n, 1 + r.bytes_written // extent)
    else:
        n = 1
    return r.bytes_read / extent / n, n


def redundant_reads(ctx: Ctx) -> list[Candidate]:
    """More bytes read than the file's read extent holds, within a pass with no write between:
    the same bytes read again. Files reached through MPI-IO are judged on the program's MPI-IO
    reads (the POSIX reads under them are the library's), against the extent the file system saw."""
    out = []
    mpiio = {(r.path, r.rank): r for r in ctx.recs("mpiio")}
    for p in ctx.recs("posix"):
        if p.max_byte_read is None or p.max_byte_read < 0:
            continue
        r = mpiio.get((p.path, p.rank), p)
        if r is p and any(path == p.path for path, _ in mpiio):
            continue   # reached through MPI-IO, but not by this record's ranks: no program view to judge
        if not r.bytes_read:
            continue
        extent = p.max_byte_read + 1
        times, n_passes = repeats(r, extent)
        reads = r.reads or 1
        # at least one read's worth read again, and a figure that says so (1.0 times is not a repeat:
        # a library reading its header twice)
        if times < 1.05 or (times - 1) * extent * n_passes < r.bytes_read / reads:
            continue
        layer = "MPI-IO" if r.module == "mpiio" else "POSIX"
        between = f" in each of {n_passes} passes with writes between them" if n_passes > 1 else ""
        what = (f"{human(r.bytes_read)} read through {layer} from an extent of {human(extent)}{between}: "
                f"{times:.1f} times over")
        if r.nprocs > 1 and r.rank < 0:
            what += f" ({r.nprocs} ranks)"
        if r.rank < 0 and r.nprocs > 1:
            fix = Fix(kind="code", text="read each byte once: if every rank needs the whole file, one rank reads "
                                        "it and MPI_Bcast()s it; otherwise keep what was read in memory instead of "
                                        "reading it again")
        else:
            fix = Fix(kind="code", text="keep what was read in memory instead of reading it again")
        save = r.elapsed(r.read_time) * (1 - 1 / times)
        p_ = "MPIIO" if r.module == "mpiio" else "POSIX"
        out.append(Candidate(rule="redundant-reads", title=f"the same bytes read {times:.1f} times",
                             evidence=Evidence(text=f"{r.name}: {what}.",
                                               counters={f"{p_}_BYTES_READ": r.bytes_read,
                                                         "POSIX_MAX_BYTE_READ": p.max_byte_read,
                                                         f"{p_}_RW_SWITCHES": r.rw_switches or 0},
                                               files=[r.name], ranks=[r.rank] if r.rank >= 0 else []),
                             fix=fix, cost=FromLog(save, f"the log: {s(r.elapsed(r.read_time))} reading it; all but "
                                                         f"1/{times:.1f} of that is a repeat"),
                             confidence="high"))
    return out


def read_back(ctx: Ctx) -> list[Candidate]:
    """A file written and then read back by the same process within the job."""
    hits = [r for r in ctx.recs("posix") if r.bytes_written and r.bytes_read and not r.shared
            and r.max_byte_read is not None and r.max_byte_written is not None
            and r.max_byte_read <= r.max_byte_written]
    if not hits:
        return []
    rank, log_s, crit = slowest_rank(hits, lambda r: r.read_time)
    text = (f"{count(len(hits), 'file')} {'is' if len(hits) == 1 else 'are'} read back by the process that wrote them "
            f"({human(sum(r.bytes_read for r in hits))} read after {human(sum(r.bytes_written for r in hits))} "
            f"written); the busiest rank spent {s(log_s)} reading.")
    return [Candidate(rule="read-back", title="data read back after writing it",
                      evidence=Evidence(text=text, counters={
                          "POSIX_BYTES_READ": sum(r.bytes_read for r in hits),
                          "POSIX_RW_SWITCHES": sum(r.rw_switches or 0 for r in hits)},
                                        files=names(hits), ranks=ranks_of(crit)[:8]),
                      fix=Fix(kind="code", text="keep the data in memory after writing it, if it is still there: "
                                                "reading it back costs a second pass over the file"),
                      cost=FromLog(log_s, f"the log: {s(log_s)} reading back what was written (all of it saved "
                                          "if the data can stay in memory)"),
                      confidence="low")]


def sync_every_write(ctx: Ctx) -> list[Candidate]:
    # after (nearly) every write: at least one sync for every two writes a rank makes (a reduced
    # record's syncs may all be one rank's: slow-rank's rank 3 syncs each of its writes); a few
    # syncs of many writes (a library's flushes, checkpoints) are not this, nor syncs a library
    # makes when it flushes and closes a file (HDF5: two per open); an I/O library's file: only the
    # syncs the program asked of the library count
    hits = [r for r in ctx.recs("posix") if ctx.syncs_each_write(r)]
    if not hits:
        return []
    rank, _, crit = slowest_rank(hits, lambda r: float(r.fsyncs or 0))
    syncs = int(sum((r.fsyncs or 0) / (r.nprocs if r.rank < 0 else 1) for r in crit))
    writes = int(sum(r.writes / (r.nprocs if r.rank < 0 else 1) for r in crit))
    cap = sum(r.elapsed(r.meta_time + r.write_time) for r in crit)
    text = (f"{syncs:,} fsync/fdatasync calls for {writes:,} writes on the busiest rank: each waits for the device. "
            "A sync is needed once, when the data must be safe (a checkpoint's end), not after every write.")
    return [Candidate(rule="sync-every-write", title=f"{syncs:,} syncs for {writes:,} writes",
                      evidence=Evidence(text=text, counters={"POSIX_FSYNCS": sum(r.fsyncs or 0 for r in hits),
                                                             "POSIX_WRITES": sum(r.writes for r in hits)},
                                        files=names(hits), ranks=ranks_of(crit)[:8]),
                      fix=Fix(kind="code", text="sync once after the last write of the file (or at close), not "
                                                "after each write"),
                      cost=PerOp(count=max(0, syncs - 1), op="fsync", cap_s=cap, what="syncs"),
                      confidence="medium")]


def seek_per_transfer(ctx: Ctx) -> list[Candidate]:
    """An lseek before (nearly) every read or write of a file, on transfers small enough that a
    call's fixed cost matters: two system calls where pread or pwrite at the offset make one (IOR's
    POSIX backend seeks before every transfer: 14% of a 512 B run). Files reached through MPI-IO
    are the MPI-IO layer's calls, not the program's."""
    through = {r.path for r in ctx.recs("mpiio")}
    hits = []
    for r in ctx.recs("posix"):
        n = r.reads + r.writes
        if r.path in through or r.seeks is None or n < 2:
            continue
        # one transfer per rank and pass may go without a seek (the first after an open); and a seek
        # matters where a call's fixed cost does: before transfers smaller than ctx.small_limit (a
        # seek before each 1 MiB transfer is a thousandth of its time)
        op = "write" if r.writes >= r.reads else "read"
        limit, _ = ctx.small_limit(r, op)
        if r.seeks >= n - (r.nprocs if r.rank < 0 else 1) * passes(r) and limit and r.bytes / n < limit:
            hits.append(r)
    if not hits:
        return []

    def seek_s(r: Rec) -> float:
        # the log keeps the seeks' time with the other metadata calls: their share by count, an
        # upper bound (an open or a sync costs more than a seek)
        others = 2 * r.opens + (r.stats or 0) + (r.fsyncs or 0 if ctx.job.format == "pario" else 0)
        return r.meta_time * (r.seeks or 0) / max(1, (r.seeks or 0) + others)

    rank, log_s, crit = slowest_rank(hits, seek_s)
    seeks = sum(r.seeks or 0 for r in hits)
    n = sum(r.reads + r.writes for r in hits)
    ops = " and ".join(op for op, k in (("write", sum(r.writes for r in hits)), ("read", sum(r.reads for r in hits)))
                       if k)
    calls = "pwrite" if "write" in ops and "read" not in ops else "pread" if "read" in ops and "write" not in ops \
        else "pread/pwrite"
    text = (f"{seeks:,} lseek calls for {n:,} {ops}s of {count(len(hits), 'file')}: a seek before every transfer, "
            f"one more system call each; the busiest rank spent up to {s(log_s)} in them (the log keeps seeks with the "
            "other metadata calls: their share by count).")
    return [Candidate(rule="seek-per-transfer", title=f"a seek before every {ops} ({seeks:,} seeks)",
                      evidence=Evidence(text=text, counters={"POSIX_SEEKS": seeks, "POSIX_WRITES": sum(
                          r.writes for r in hits), "POSIX_READS": sum(r.reads for r in hits)},
                                        files=names(hits), ranks=ranks_of(crit)[:8]),
                      fix=Fix(kind="code", text=f"use {calls}(fd, buf, count, offset) at the offset instead of lseek "
                                                "then write/read: one system call per transfer instead of two"),
                      cost=FromLog(log_s, f"the log: up to {s(log_s)} of the busiest rank's metadata time is these "
                                          "seeks (their share by count of its seeks, opens, closes, stats and "
                                          "syncs); pwrite/pread drops them"),
                      confidence="medium")]


RULES = [random_access("write"), random_access("read"), redundant_reads, read_back, sync_every_write,
         seek_per_transfer]
