"""How the job walks its files: out of order where it could go in order, the same bytes read
again and again, data read back right after it was written, and a sync after every write."""
from __future__ import annotations

from pario.advise.costs import FromLog, PerOp, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, names, ranks_of, s, slowest_rank, strategy_of
from pario.model.findings import Evidence, Fix
from pario.model.units import human


def _random(r: Rec, op: str) -> int:
    n = r.writes if op == "write" else r.reads
    seq = r.seq_writes if op == "write" else r.seq_reads
    firsts = r.nprocs if r.rank < 0 else 1   # each rank's first request has no predecessor
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
                          confidence="medium", plan=plan)]
    return rule


def redundant_reads(ctx: Ctx) -> list[Candidate]:
    """More bytes read than the file's read extent holds: the same bytes read several times."""
    out = []
    for r in ctx.recs("posix"):
        if not r.bytes_read or r.max_byte_read is None or r.max_byte_read < 0:
            continue
        extent = r.max_byte_read + 1
        times = r.bytes_read / extent
        if times <= 1:
            continue
        if r.shared and times <= r.nprocs + 1e-9 and times > r.nprocs / 2:
            what = (f"each of its {r.nprocs} ranks reads it whole ({human(r.bytes_read)} read, extent "
                    f"{human(extent)})")
            fix = Fix(kind="code", text="read it once and share it: one rank reads and MPI_Bcast()s it, or a "
                                        "collective MPI_File_read_all lets MPI-IO read each byte once")
            save = r.elapsed(r.read_time) * (1 - 1 / times)
        else:
            what = f"{human(r.bytes_read)} read from an extent of {human(extent)}: {times:.1f} times over"
            fix = Fix(kind="code", text="keep what was read in memory instead of reading it again")
            save = r.elapsed(r.read_time) * (1 - 1 / times)
        out.append(Candidate(rule="redundant-reads", title=f"the same bytes read {times:.1f} times",
                             evidence=Evidence(text=f"{r.path}: {what}.",
                                               counters={"POSIX_BYTES_READ": r.bytes_read,
                                                         "POSIX_MAX_BYTE_READ": r.max_byte_read},
                                               files=[r.path], ranks=[r.rank] if r.rank >= 0 else []),
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
    text = (f"{len(hits)} file(s) are read back by the process that wrote them "
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
    libs = ctx.library_files()   # an I/O library's file: only the syncs the program asked of the library count
    hits = [r for r in ctx.recs("posix") if (r.fsyncs or 0) > 1 and r.writes and
            (r.path not in libs or ctx.library_syncs(r.path) > 1)]
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


RULES = [random_access("write"), random_access("read"), redundant_reads, read_back, sync_every_write]
