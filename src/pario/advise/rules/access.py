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


def read_passes(r: Rec) -> int:
    """How many times the file may have been read with a write before it: runs of reads
    separated by writes (RW_SWITCHES counts the changes between reading and writing; a
    reduced record sums them over its ranks, which work side by side). A read pass after
    writes may read what those writes put there: IOR's -i 3 writes then reads three times,
    and no byte is read twice without a write between."""
    per_rank = int((r.rw_switches or 0) / (r.nprocs if r.rank < 0 else 1))
    return (per_rank + 2) // 2   # the most the switches allow (a first read before any write counts)


def repeats(r: Rec, extent: int) -> tuple[float, int]:
    """(times the extent was read within one pass, passes): bytes read over the extent, divided
    by the read passes the writes between them can explain (at most one per rewrite of the
    extent, plus the first)."""
    passes = read_passes(r)
    if r.bytes_written and extent:
        passes = min(passes, 1 + r.bytes_written // extent)
    else:
        passes = 1
    return r.bytes_read / extent / passes, passes


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
        times, passes = repeats(r, extent)
        if times <= 1 + 1e-9:
            continue
        layer = "MPI-IO" if r.module == "mpiio" else "POSIX"
        between = f" in each of {passes} passes with writes between them" if passes > 1 else ""
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
                             evidence=Evidence(text=f"{r.path}: {what}.",
                                               counters={f"{p_}_BYTES_READ": r.bytes_read,
                                                         "POSIX_MAX_BYTE_READ": p.max_byte_read,
                                                         f"{p_}_RW_SWITCHES": r.rw_switches or 0},
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
    hits = [r for r in ctx.recs("posix") if (r.fsyncs or 0) > 1 and r.writes]
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
