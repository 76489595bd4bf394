"""Small requests, for POSIX, stdio and MPI-IO reads and writes separately: requests below the
file system's unit and below the size where a call's fixed cost (measured here) is half its
time. Sequential small POSIX and stdio writes are what `pario buffer` coalesces; the rest needs
the program to move bigger pieces."""
from __future__ import annotations

import math
import shlex

from pario.advise.costs import Coalesce, Cost, NotCosted
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, names, ranks_of, s, slowest_rank, strategy_of
from pario.model.findings import Evidence, Fix
from pario.model.units import MIB, count, exact, human

PREFIX = {"posix": "POSIX", "stdio": "STDIO", "mpiio": "MPIIO"}
# the largest buffer advised: what IOBUF's users ran with in the seeds (64 MiB buffers, KAUST)
MAX_TARGET = 64 * MIB


def calls(r: Rec, op: str) -> int:
    return r.writes if op == "write" else r.reads


def op_time(r: Rec, op: str) -> float:
    return r.write_time if op == "write" else r.read_time


def op_bytes(r: Rec, op: str) -> int:
    return r.bytes_written if op == "write" else r.bytes_read


def target_size(ctx: Ctx, rec: Rec, op: str, per_rank_bytes: int) -> int:
    """The request size that makes the fixed cost of a call about 1% of its time here, a
    multiple of the file system's unit, at most the data one rank moves (and 64 MiB)."""
    unit = int(ctx.facts(rec).unit or 4096)
    line = ctx.model.line(rec.module, op) if ctx.model else None
    want = max(unit, int(100 * line.break_even) if line else unit)
    size = 1
    while size < want:
        size <<= 1
    if size % unit:
        size = -(-size // unit) * unit
    cap = max(unit, min(MAX_TARGET, per_rank_bytes))
    while size > cap and size > unit:
        size //= 2
    return max(unit, size - size % unit)


def stream_request(ctx: Ctx, r: Rec, op: str) -> float:
    """The mean size of the requests a stdio stream makes of the file system: the C library
    fills a buffer of the file's st_blksize (the block size, or the stripe size on Lustre) and
    writes or reads it whole, except where the program flushes (fflush counts) first."""
    unit = ctx.facts(r).unit or 8192   # glibc's BUFSIZ where the block size is not known
    nbytes = op_bytes(r, op)
    if not nbytes:
        return 0.0
    flushes = (r.fsyncs or 0) if op == "write" else 0
    return min(float(unit), nbytes / flushes if flushes else float(nbytes))


def _small_of(ctx: Ctx, r: Rec, op: str) -> tuple[int, int, int | None, str, int | None]:
    """(small requests, requests the log cannot place, limit, why, typical small size)."""
    limit, why = ctx.small_limit(r, op)
    if limit is None:
        return 0, 0, None, why, None
    sizes = r.write_sizes if op == "write" else r.read_sizes
    n = calls(r, op)
    if r.module == "stdio" and n and (op == "read" or 2 * (r.fsyncs or 0) < n) and \
            stream_request(ctx, r, op) >= min(ctx.facts(r).unit or 4096, limit):
        # the C library's buffer joins them: the file system sees whole blocks of the stream's buffer
        # (st_blksize); only flushes after (nearly) every call undo that. A bigger buffer saves only
        # calls on blocks: measured no faster, 0.98x on 20,000 fprintf lines (RESULTS.md)
        return 0, 0, limit, why, None
    if not sizes.buckets and not sizes.exact:
        # no histogram (Darshan's STDIO module): the mean size is all the log says
        mean = op_bytes(r, op) / n if n else 0
        return (n, 0, limit, why, int(mean)) if n and mean < limit else (0, 0, limit, why, None)
    small, unknown = sizes.below(limit)
    smalls = {size: c for size, c in sizes.exact.items() if size < limit}
    typical = max(smalls, key=lambda k: smalls[k]) if smalls else None
    if typical is None and small:
        others = op_bytes(r, op) - sum(sz * c for sz, c in sizes.exact.items())
        rest = n - sum(sizes.exact.values())
        typical = int(others / rest) if rest > 0 else None
    return small, unknown, limit, why, typical


def _sequential(r: Rec, op: str) -> bool:
    consec = r.consec_writes if op == "write" else r.consec_reads
    n = calls(r, op)
    if consec is None:
        return r.module == "stdio" and not r.seeks   # stdio streams without fseek are written in order
    return n <= 1 or consec >= (n - 1) / 2


def _seeks_between(recs: list[Rec]) -> int:
    """lseek calls on these files made between consecutive writes (every write starting where
    the last ended, a seek before each): IOR's POSIX backend seeks to each transfer's offset.
    pario buffer takes a seek to where the pending bytes end as none (csrc/buffer/take_posix.c)."""
    return sum(min(r.seeks or 0, r.writes) for r in recs if r.module == "posix")


def _fix(ctx: Ctx, module: str, op: str, target: int, sequential: bool, buffered: bool = False,
         flushes: int = 0) -> Fix:
    t = exact(target, "gmk")
    cmd = shlex.join(ctx.job.argv) if ctx.job.argv else (ctx.job.command or "./app")
    if flushes:
        # a stream keeps its semantics under pario buffer too: fflush writes it out, whatever its size
        return Fix(kind="code", text=f"flush the stream when the data must be in the file (a checkpoint's end, "
                                     f"before a reader looks), not after each write: each of the {flushes:,} "
                                     "fflush calls is a write(2) of what the stream holds, and no buffer can "
                                     "join them")
    if op == "write" and module in ("posix", "stdio") and sequential and not buffered:
        # -n for an MPI job only: a program's child processes are not ranks ('pario buffer -n 51' of a
        # python3 whose launcher script forked 50 times would start 51 copies)
        launch = f"-n {ctx.job.nprocs} " if ctx.job.nprocs > 1 and not ctx.job.no_mpi else ""
        text = (f"coalesce the writes into {human(target)} pieces without changing the program: pario buffer "
                f"keeps them in memory and writes {human(target)} at a time (flushing on fsync, close and exit; "
                f"SIGKILL loses at most {human(target)} per file)")
        if module == "stdio":
            text += f"; or in the program: setvbuf(fp, NULL, _IOFBF, {target}) after fopen"
        if launch:
            text += "; in a job script that starts its own launcher, pario buffer --env prints the exports"
        return Fix(kind="buffer", text=text, command=f"pario buffer {launch}--size {t} -- {cmd}")
    if op == "write" and module in ("posix", "stdio") and not sequential and not buffered:
        return Fix(kind="code", text=f"gather the pieces in memory and write {human(target)} or more per call, in "
                                     "file order: these writes jump from one offset to another, and a buffer "
                                     "cannot join them (pario buffer writes its bytes out at every seek elsewhere)")
    if module == "stdio":
        return Fix(kind="code", text=f"give the stream a {human(target)} buffer: setvbuf(fp, NULL, _IOFBF, {target}) "
                                     f"after fopen, so that each {op}(2) moves {human(target)}")
    verb = "gather the pieces in memory and write" if op == "write" else "read"
    how = " (one call with a derived datatype or a file view, for MPI-IO)" if module == "mpiio" else ""
    return Fix(kind="code", text=f"{verb} {human(target)} or more per call instead{how}: each call costs a fixed "
                                 "time on top of its bytes")


def small_requests(module: str, op: str):
    def rule(ctx: Ctx) -> list[Candidate]:
        recs = [r for r in ctx.recs(module) if calls(r, op)]
        if module == "posix":   # files reached through MPI-IO are judged at the MPI-IO layer
            through = {r.path for r in ctx.recs("mpiio")}
            recs = [r for r in recs if r.path not in through]
        # a request alone in its file (per rank) joins nothing: 2,000 files written once each are
        # many files, not small writes (a buffer measured 0.90x on them)
        recs = [r for r in recs if calls(r, op) > (r.nprocs if r.rank < 0 else 1)]
        if op == "write" and module in ("posix", "stdio") and ctx.job.buffered is not None:
            # recorded under pario buffer: judged on the writes the file system saw
            return buffered_writes(ctx, module, recs)
        hits: list[tuple[Rec, int, int, int, str, int]] = []
        for r in recs:
            small, unknown, limit, why, typical = _small_of(ctx, r, op)
            if small and limit and typical:
                hits.append((r, small, unknown, limit, why, typical))
        if not hits:
            return []
        by_rec = {id(h[0]): h for h in hits}
        p = PREFIX[module]

        def small_time(r: Rec) -> float:
            _, small, _, _, _, _ = by_rec[id(r)]
            share = small / calls(r, op)
            return op_time(r, op) * share

        rank, log_s, crit = slowest_rank([h[0] for h in hits], small_time)
        n_small = sum(h[1] for h in hits)
        n_all = sum(calls(h[0], op) for h in hits)
        unknown = sum(h[2] for h in hits)
        limit, why = hits[0][3], hits[0][4]
        sizes: dict[int, int] = {}
        for h in hits:
            sizes[h[5]] = sizes.get(h[5], 0) + h[1]
        typical = max(sizes, key=lambda k: sizes[k])
        crit_calls = sum(by_rec[id(r)][1] / (r.nprocs if r.rank < 0 else 1) for r in crit)
        crit_bytes = int(crit_calls * typical)
        per_rank_bytes = max(op_bytes(r, op) / (r.nprocs if r.rank < 0 else 1) for r in crit)
        target = target_size(ctx, crit[0], op, int(per_rank_bytes))
        sequential = all(_sequential(h[0], op) for h in hits)
        files = names(h[0] for h in hits)
        where = "rank" if ctx.job.nprocs > 1 and not ctx.job.no_mpi else "process"
        text = (f"{n_small:,} of {n_all:,} {op}s ({100 * n_small / n_all:.0f}%) to {count(len(hits), 'file')} are "
                f"smaller than {human(limit)} ({why}); most are {human(typical)}"
                f"{', in file order' if sequential else ', not in file order'}. The busiest {where} spent "
                f"{s(log_s)} in them.")
        if unknown:
            text += f" {unknown:,} more fall in a histogram bucket that straddles {human(limit)}: not counted."
        seeks = _seeks_between([h[0] for h in hits]) if op == "write" else 0
        if seeks and sequential:
            text += (f" The program seeks before {'each' if seeks >= n_all else 'many'} of them ({seeks:,} lseek "
                     "calls) to where the last write ended: pario buffer takes such a seek as none.")
        counters: dict[str, float] = {f"{p}_{op.upper()}S": n_all}
        for h in hits[:1]:
            sz = h[0].write_sizes if op == "write" else h[0].read_sizes
            for b in sz.buckets:
                if b.hi is not None and b.hi < limit:
                    counters[f"{p}_SIZE_{op.upper()}_{_bucket_name(b.lo, h[0])}"] = b.count
        flushes = sum(h[0].fsyncs or 0 for h in hits) if module == "stdio" and op == "write" else 0
        fix = _fix(ctx, module, op, target, sequential, flushes=flushes if 2 * flushes >= n_all else 0)
        cost: Cost
        if crit_calls < 1:
            cost = NotCosted("the log does not say how many calls one rank made")
        else:
            cost = Coalesce(log_s=log_s, calls=int(crit_calls), nbytes=crit_bytes, size=typical, target=target,
                            module=module, op=op)
        plan = None
        if module == "posix":
            users = len({h[0].rank for h in hits if h[0].rank >= 0}) or max(h[0].nprocs for h in hits)
            strategy = strategy_of([h[0] for h in hits], ctx.job.nprocs)
            plan = coalesce_plan(ctx.ranks_here(users) if strategy != "serial" else 1,
                                 "fpp" if strategy == "serial" else strategy, op, typical, target, crit_calls, log_s)
        title = f"small {module if module != 'mpiio' else 'MPI-IO'} {op}s ({human(typical)})"
        return [Candidate(rule=f"{module}-small-{op}s", title=title,
                          evidence=Evidence(text=text, counters=counters, files=files, ranks=ranks_of(crit)[:8]),
                          fix=fix, cost=cost, confidence="high" if not unknown else "medium", plan=plan)]
    return rule


def buffered_writes(ctx: Ctx, module: str, recs: list[Rec]) -> list[Candidate]:
    """A log made under pario buffer: the program's small writes are what it asked; the file
    system saw the buffer's. Small writes the file system still saw are the finding, with why
    the buffer wrote them out (its flush reasons); never pario buffer again as the fix."""
    seen = ctx.job.buffered or {}
    out: list[tuple[Rec, dict]] = []
    for r in recs:
        fs = seen.get(r.path)
        limit, _ = ctx.small_limit(r, "write")
        if fs is None or limit is None or fs["sys_writes"] <= (r.nprocs if r.rank < 0 else 1):
            continue
        if fs["sys_bytes"] / fs["sys_writes"] < limit:
            out.append((r, fs))
    if not out:
        return []
    r, fs = max(out, key=lambda h: h[1]["write_time"])
    limit, why = ctx.small_limit(r, "write")
    mean = fs["sys_bytes"] / fs["sys_writes"]
    reasons = sorted(fs["flush_reasons"].items(), key=lambda kv: -kv[1])
    said = ", ".join(f"{n:,} at a {why_}" for why_, n in reasons[:3]) or "no reason recorded"
    text = (f"recorded under pario buffer: the program made {r.writes:,} writes to {r.name}; the file system saw "
            f"{fs['sys_writes']:,} writes of ~{human(int(mean))} (smaller than {human(int(limit or 0))}: {why}). "
            f"The buffer wrote its bytes out {said}.")
    top = reasons[0][0] if reasons else ""
    if top in ("seek", "switch", "read", "stat", "sync"):
        fix = Fix(kind="code", text=f"the buffer is written out at each {top}: write in file order without "
                                    f"{top}s between the writes (or gather the pieces in memory and write them "
                                    "together), so that consecutive writes can be joined")
    else:
        fix = Fix(kind="code", text=f"write {human(int(limit or 0))} or more per call in the program; the buffer's "
                                    f"size ({human(int(fs['size']))}) did not make the file system's writes larger")
    cost = Coalesce(log_s=fs["write_time"] / max(1, r.nprocs if r.rank < 0 else 1), calls=fs["sys_writes"],
                    nbytes=fs["sys_bytes"], size=int(mean), target=target_size(ctx, r, "write", fs["sys_bytes"]),
                    module=module, op="write")
    return [Candidate(rule=f"{module}-small-writes", title=f"small writes reach the file system under pario buffer "
                      f"({human(int(mean))})",
                      evidence=Evidence(text=text, counters={f"{PREFIX[module]}_WRITES": r.writes},
                                        files=names(h[0] for h in out), ranks=ranks_of(h[0] for h in out)[:8]),
                      fix=fix, cost=cost, confidence="medium")]


def coalesce_plan(ranks: int, strategy: str, op: str, size: int, target: int, count: float, log_s: float) -> Plan:
    """The job's requests of `size` against the same bytes in `target` requests. The engine moves
    whole multiples of 8 bytes, so a size that is not is rounded (and the plan says so)."""
    xfer = max(8, round(size / 8) * 8)
    step = math.lcm(xfer, target)
    block = max(step, round(count * xfer / step) * step)
    base = {"backend": "posix", "strategy": strategy, "ops": [op], "reps": 3}
    what = f"{human(xfer)} {op}s vs {human(target)} {op}s, same bytes"
    if xfer != size:
        what += f" ({human(size)} rounded to {xfer} B: the engine moves multiples of 8 bytes)"
    return Plan(ranks=ranks, before=dict(base, transfer=xfer, block=block),
                after=dict(base, transfer=target, block=block), log_s=log_s, what=what)


def _bucket_name(lo: int, rec: Rec) -> str:
    edges = {0: "0_100", 100: "100_1K", 101: "100_1K", 1024: "1K_10K", 1025: "1K_10K", 10240: "10K_100K",
             10241: "10K_100K", 102400: "100K_1M", 102401: "100K_1M", 1048576: "1M_4M", 1048577: "1M_4M"}
    return edges.get(lo, str(lo))


RULES = [small_requests(m, op) for m in ("posix", "stdio", "mpiio") for op in ("write", "read")]
