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
from pario.model.units import MIB, exact, human

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


def _small_of(ctx: Ctx, r: Rec, op: str) -> tuple[int, int, int | None, str, int | None]:
    """(small requests, requests the log cannot place, limit, why, typical small size)."""
    limit, why = ctx.small_limit(r, op)
    if limit is None:
        return 0, 0, None, why, None
    sizes = r.write_sizes if op == "write" else r.read_sizes
    n = calls(r, op)
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


def _fix(ctx: Ctx, module: str, op: str, target: int, sequential: bool) -> Fix:
    t = exact(target, "gmk")
    cmd = shlex.join(ctx.job.argv) if ctx.job.argv else (ctx.job.command or "./app")
    if op == "write" and module in ("posix", "stdio") and sequential:
        launch = f"-n {ctx.job.nprocs} " if ctx.job.nprocs > 1 else ""
        text = (f"coalesce the writes into {human(target)} pieces without changing the program: pario buffer "
                f"keeps them in memory and writes {human(target)} at a time (flushing on fsync, close and exit; "
                f"SIGKILL loses at most {human(target)} per file)")
        if module == "stdio":
            text += f"; or in the program: setvbuf(fp, NULL, _IOFBF, {target}) after fopen"
        if launch:
            text += "; in a job script that starts its own launcher, pario buffer --env prints the exports"
        return Fix(kind="buffer", text=text, command=f"pario buffer {launch}--size {t} -- {cmd}")
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
        if module == "mpiio":   # many ranks writing pieces of one file independently: collective.py
            recs = [r for r in recs if not (r.shared and op == "write" and (r.indep_writes or 0) > (r.coll_writes or 0))
                    and not (r.shared and op == "read" and (r.indep_reads or 0) > (r.coll_reads or 0))]
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
        where = "rank" if ctx.job.nprocs > 1 else "process"
        text = (f"{n_small:,} of {n_all:,} {op}s ({100 * n_small / n_all:.0f}%) to {len(hits)} file(s) are smaller "
                f"than {human(limit)} ({why}); most are {human(typical)}"
                f"{', in file order' if sequential else ', not in file order'}. The busiest {where} spent "
                f"{s(log_s)} in them.")
        if unknown:
            text += f" {unknown:,} more fall in a histogram bucket that straddles {human(limit)}: not counted."
        counters: dict[str, float] = {f"{p}_{op.upper()}S": n_all}
        for h in hits[:1]:
            sz = h[0].write_sizes if op == "write" else h[0].read_sizes
            for b in sz.buckets:
                if b.hi is not None and b.hi < limit:
                    counters[f"{p}_SIZE_{op.upper()}_{_bucket_name(b.lo, h[0])}"] = b.count
        fix = _fix(ctx, module, op, target, sequential)
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
