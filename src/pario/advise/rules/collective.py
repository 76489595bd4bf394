"""MPI-IO on shared files: many ranks writing small or scattered pieces independently (collective
calls would let the MPI-IO layer merge them), and the opposite, collective buffering on large
contiguous requests, where each rank writing its own block directly is faster (the seeds' LRZ
table: 3x for sequential 1 MiB writes without it, 15x for strided ones with it). For one file the
advice takes one stance, never both (Candidate.stance; the advisor enforces it). Also: hints that
were requested and are not in effect."""
from __future__ import annotations

from pario.advise.costs import NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, passes, s
from pario.advise.rules.layout import rendered
from pario.model.findings import Evidence, Fix
from pario.model.units import count, human
from pario.settings import Settings
from pario.settings.equivalence import explain


def _typical(r: Rec, op: str) -> int | None:
    sizes = r.write_sizes if op == "write" else r.read_sizes
    dom = sizes.dominant()
    if dom:
        return dom[0]
    n = r.writes if op == "write" else r.reads
    b = r.bytes_written if op == "write" else r.bytes_read
    return int(b / n) if n else None


def _contiguous_per_rank(r: Rec, size: int, ctx: Ctx | None = None) -> bool | None:
    """Does each rank access one contiguous block? From the distance between a rank's request
    starts (pario logs): equal to the size means back to back; else, for independent calls, from
    the POSIX requests under them (Darshan's): most starting where the rank's last one ended.
    None when the log does not say."""
    if r.strides:
        back_to_back = r.strides.get(size, 0)
        return back_to_back >= sum(r.strides.values()) / 2
    if ctx is None or (r.indep_writes or 0) + (r.indep_reads or 0) <= (r.coll_writes or 0) + (r.coll_reads or 0):
        return None   # collective calls: the POSIX requests are the aggregators', not the ranks'
    for p in ctx.recs("posix"):
        if p.path == r.path and p.rank == r.rank and p.consec_writes is not None:
            n = p.writes + p.reads
            consec = (p.consec_writes or 0) + (p.consec_reads or 0)
            firsts = (p.nprocs if p.rank < 0 else 1) * 2 * passes(p)
            return consec >= (n - firsts) / 2 if n > firsts else None
    return None


def _pattern(ctx: Ctx, r: Rec, op: str, size: int, collective: bool, contiguous: bool) -> dict:
    n = r.writes if op == "write" else r.reads
    per_rank = max(1, round(n / max(1, r.nprocs)))
    opts = {"backend": "mpiio", "strategy": "shared", "transfer": size, "ops": [op], "reps": 3,
            "collective": collective}
    if contiguous:
        opts.update(block=size * per_rank, segments=1)
    else:   # the ranks' pieces alternate in the file (IOR's segments)
        opts.update(block=size, segments=per_rank)
    return opts


def independent_pieces(op: str):
    def rule(ctx: Ctx) -> list[Candidate]:
        out = []
        for r in ctx.recs("mpiio"):
            indep = (r.indep_writes if op == "write" else r.indep_reads) or 0
            coll = (r.coll_writes if op == "write" else r.coll_reads) or 0
            if not r.shared or indep <= coll or r.path in ctx.library_files():
                continue   # (a library's MPI-IO calls: rules/libraries.py advises its calls)
            size = _typical(r, op)
            if not size:
                continue
            dom = (r.write_sizes if op == "write" else r.read_sizes).dominant()
            if dom and dom[1] <= r.nprocs:
                continue   # one data request per rank (HDF5's slab each): nothing interleaves
            limit, why = ctx.small_limit(r, op)
            small = limit is not None and size < limit
            contiguous = _contiguous_per_rank(r, size, ctx)
            if contiguous is not False:
                # each rank's pieces back to back (or the log cannot say): one piece per call, far
                # from the other ranks', is nothing collective I/O merges; bigger calls are the fix
                # (the small-requests rule)
                continue
            log_s = r.elapsed(r.write_time if op == "write" else r.read_time)
            shape = "small" if small else "scattered"
            text = (f"{r.name}: {r.nprocs} ranks make {indep:,} independent {op}s of ~{human(size)}"
                    f"{' (smaller than ' + human(limit) + ': ' + why + ')' if small and limit else ''}"
                    f"{', each rank' + chr(39) + 's pieces far apart' if contiguous is False else ''}; "
                    f"{s(log_s)} per rank in them.")
            call = "MPI_File_write_at" if op == "write" else "MPI_File_read_at"
            # the fix is one request per rank describing all its pieces; making each piece's call
            # collective instead is the MPI-IO layer's gamble (measured 14-20x slower under OMPIO
            # on one node, RESULTS.md seed b): not prescribed, and not what is costed
            fix = Fix(kind="code", text=(f"{'write' if op == 'write' else 'read'} all of a rank's pieces in one "
                                         "call: a file view that describes them (MPI_Type_vector or "
                                         f"MPI_Type_create_subarray, MPI_File_set_view), then one {call} of "
                                         "the whole (or its collective form), so the MPI-IO layer makes large "
                                         "contiguous requests of them"))
            out.append(Candidate(rule=f"independent-{op}s", title=f"{shape} independent {op}s to a shared file",
                                 evidence=Evidence(text=text, counters={f"MPIIO_INDEP_{op.upper()}S": indep,
                                                                        f"MPIIO_COLL_{op.upper()}S": coll,
                                                                        "MPIIO_NPROCS": r.nprocs},
                                                   files=[r.name]),
                                 fix=fix, cost=NotCosted("one call per rank through a file view is not a pattern "
                                                         "pario bench replays from the log"),
                                 confidence="medium", stance=(r.name, "collective")))
        return out
    return rule


def _cb_off(ctx: Ctx, op: str) -> Settings:
    if ctx.stack.impl == "ompio":
        return Settings(hints={"collective_buffering": "false"})
    return Settings(hints={f"romio_cb_{op}": "disable"})


def posix_movers(ctx: Ctx, path: str, nprocs: int) -> tuple[float | None, int]:
    """(how many ranks moved the file's bytes at the POSIX level, the bytes): from per-rank records,
    or from a reduced record's fastest and slowest rank and its variance of bytes over ranks (k
    ranks moving equal shares and the others none give var/mean^2 = N/k - 1). None: not known."""
    recs = [r for r in ctx.recs("posix") if r.path == path]
    total = sum(r.bytes for r in recs)
    if not recs or not total:
        return None, 0
    if all(r.rank >= 0 for r in recs):
        return float(len({r.rank for r in recs if r.bytes})), total
    r = next(r for r in recs if r.rank < 0)
    if max(r.slowest_rank_bytes or 0, r.fastest_rank_bytes or 0) >= r.bytes > 0:
        return 1.0, total
    if r.variance_bytes is None or r.nprocs < 2:
        return None, total
    mean = r.bytes / r.nprocs
    return r.nprocs / (1 + r.variance_bytes / (mean * mean)), total


def one_aggregator(ctx: Ctx) -> list[Candidate]:
    """Collective calls on a shared file whose every rank moves its data at the MPI-IO level, while
    at the POSIX level one rank moved all of the file's bytes: two-phase I/O through one aggregator
    (Open MPI's OMPIO and ROMIO pick one per node: one on a one-node job). Every other rank's data
    crosses to it, and one process does all the file system's calls. The fix, measured where the
    job ran: independent calls when each rank's data is one contiguous block, else more aggregators.
    A fact of the log: it is reported at the seconds measured, none if the fix gains nothing there."""
    out = []
    for r in ctx.recs("mpiio"):
        coll = (r.coll_writes or 0) + (r.coll_reads or 0)
        if not r.shared or r.nprocs < 2 or coll <= (r.indep_writes or 0) + (r.indep_reads or 0):
            continue
        movers, total = posix_movers(ctx, r.path, r.nprocs)
        mpiio_even = r.variance_bytes is not None and r.bytes and \
            r.variance_bytes <= (0.1 * r.bytes / r.nprocs) ** 2
        if movers is None or movers >= 1.5 or not (mpiio_even or (r.fastest_rank_bytes or 0) > 0):
            continue
        op = "write" if r.write_time >= r.read_time else "read"
        size = _typical(r, op)
        contiguous = _contiguous_per_rank(r, size) if size else None
        log_s = r.elapsed(r.write_time + r.read_time)
        ranks = ctx.ranks_here(r.nprocs)
        agg = Settings(hints={"cb_nodes": str(r.nprocs)})
        plan = None
        if size and size % 8 == 0:
            before = _pattern(ctx, r, op, size, True, contiguous is not False)
            after = dict(before, collective=False) if contiguous is not False else \
                dict(before, hints=dict(agg.hints))
            other = "independent" if contiguous is not False else f"collective with {r.nprocs} aggregators"
            plan = Plan(ranks=ranks, before=before, after=after, log_s=r.elapsed(op_time(r, op)),
                        what=f"{human(size)} {op}s by {ranks} ranks, collective vs {other}")
        how = ("independent calls (MPI_File_write_at / MPI_File_read_at, same arguments): each rank's data is its "
               "own contiguous block, so each can move it itself; or " if contiguous is not False else "")
        fix = Fix(kind="settings", text=f"{how}more aggregators for collective buffering: cb_nodes={r.nprocs} (Open "
                                        f"MPI's OMPIO: io_ompio_num_aggregators={r.nprocs}), so that the ranks' "
                                        "data does not all cross to one process",
                  settings=dict(agg.hints), rendered=rendered(ctx, agg))
        text = (f"{r.name}: {r.nprocs} ranks make {coll:,} collective calls and each moves its own data at the "
                f"MPI-IO level ({human(r.bytes)} in all), but at the POSIX level one rank moved all "
                f"{human(total)}: collective buffering through one aggregator; {s(log_s)} per rank in these calls.")
        out.append(Candidate(rule="one-aggregator", title=f"one aggregator for {r.nprocs} ranks' collective I/O",
                             evidence=Evidence(text=text, counters={"MPIIO_COLL_WRITES": r.coll_writes or 0,
                                                                    "MPIIO_COLL_READS": r.coll_reads or 0,
                                                                    "MPIIO_BYTES_WRITTEN": r.bytes_written,
                                                                    "POSIX_SLOWEST_RANK_BYTES": total},
                                               files=[r.name]),
                             fix=fix, cost=Ratio(log_s=plan.log_s, what=plan.what.split(" vs ", 1)[-1] + f" {op}s")
                             if plan else
                             NotCosted("no request size the engine can replay"),
                             confidence="medium", plan=plan, stance=(r.name, "independent"), veto=False))
    return out


def op_time(r: Rec, op: str) -> float:
    return r.write_time if op == "write" else r.read_time


def collective_buffering(op: str):
    """Collective calls on large requests that each rank makes back to back: two-phase I/O only adds
    the exchange. Measured before it is advised: with --no-calibrate it is listed as a question."""
    def rule(ctx: Ctx) -> list[Candidate]:
        out = []
        one = {c.evidence.files[0] for c in one_aggregator(ctx)}   # the same calls, named by their cause
        for r in ctx.recs("mpiio"):
            coll = (r.coll_writes if op == "write" else r.coll_reads) or 0
            indep = (r.indep_writes if op == "write" else r.indep_reads) or 0
            if not r.shared or coll <= indep or r.name in one:
                continue
            size = _typical(r, op)
            limit, _ = ctx.small_limit(r, op)
            if not size or limit is None or size < limit or _contiguous_per_rank(r, size) is False:
                continue
            sizes = r.write_sizes if op == "write" else r.read_sizes
            if sum(c for sz, c in sizes.exact.items() if sz >= limit) <= indep:
                continue   # the large requests may all be the independent ones: the collective calls are small
                #            (a library's metadata: HDF5 under netCDF-4 writes it collectively)
            movers, _ = posix_movers(ctx, r.path, r.nprocs)
            if movers is not None and movers > r.nprocs - 0.5:
                continue   # every rank moved its own share at the POSIX level: no data crossed between ranks
                #            (ROMIO leaves blocks that do not interleave to their ranks), no exchange to save
            off = _cb_off(ctx, op)
            if r.hints and all(r.hints.get(k) == v for k, v in off.hints.items()):
                continue   # already off
            log_s = r.elapsed(r.write_time if op == "write" else r.read_time)
            ranks = ctx.ranks_here(r.nprocs)
            plan = None
            if size % 8 == 0:
                before = _pattern(ctx, r, op, size, True, True)
                plan = Plan(ranks=ranks, before=before, after=dict(before, hints=dict(off.hints)), log_s=log_s,
                            what=f"{human(size)} collective {op}s by {ranks} ranks, with and without collective "
                                 "buffering")
            key = next(iter(off.hints))
            text = (f"{r.name}: {r.nprocs} ranks make {coll:,} collective {op}s of ~{human(size)} (not small "
                    f"here){', each rank its own contiguous block' if _contiguous_per_rank(r, size) else ''}; "
                    f"{key} is {(r.hints or {}).get(key, 'not set (automatic)')}; {s(log_s)} per rank in them.")
            out.append(Candidate(rule=f"collective-buffering-{op}s", title=f"collective buffering on large {op}s",
                                 evidence=Evidence(text=text, counters={f"MPIIO_COLL_{op.upper()}S": coll,
                                                                        "MPIIO_NPROCS": r.nprocs}, files=[r.name]),
                                 fix=Fix(kind="settings", text=(f"turn collective buffering off for this file ("
                                         f"{key}={off.hints[key]}): each rank then {op}s its own block directly, "
                                         "without the exchange through aggregators"),
                                         settings=dict(off.hints), rendered=rendered(ctx, off)),
                                 cost=Ratio(log_s=log_s, what=f"{op}s without collective buffering") if plan else
                                 NotCosted("no request size the engine can replay"),
                                 confidence="medium", plan=plan, stance=(r.name, "independent")))
        return out
    return rule


LIBRARY_KEYS = ("nc_", "pnetcdf_")


def hints_not_in_effect(ctx: Ctx) -> list[Candidate]:
    out = []
    for r in ctx.recs("mpiio"):
        # PnetCDF hands MPI_File_open the info object its own keys travel in (nc_*, pnetcdf_*, and
        # what its library record reports): they are read by PnetCDF, not by the MPI-IO layer
        ours = ctx.library_hints(r.path)
        req = {k: v for k, v in (r.hints_requested or {}).items() if not k.startswith(LIBRARY_KEYS) and k not in ours}
        if not req:
            continue
        eff = r.hints or {}
        view = {"impl": ctx.stack.impl, "fs": ctx.facts(r).fs, "ranks": r.nprocs, "hosts": ctx.stack.hosts or 1,
                "stripe_count": ctx.facts(r).stripe_count,
                "ops": [o for o, n in (("write", r.writes), ("read", r.reads)) if n]}
        _, applied = explain(Settings(hints=dict(req)), view)
        # a requested default or an alias is honoured; every other rule means the key is ignored or changed
        why = {a.key: a.reason() for a in applied if a.rule not in ("default", "alias")}
        lost = []
        for key, value in sorted(req.items()):
            have = eff.get(key)
            if key in why:
                # OMPIO reports back whatever it was given: what it does with a key is the rules' say
                lost.append((key, value, None if ctx.stack.impl == "ompio" else have, why[key]))
            elif have is not None and have.lower() != value.lower():
                lost.append((key, value, have, "the MPI-IO layer reports another value"))
            elif have is None and ctx.stack.impl in ("romio", "cray"):
                lost.append((key, value, None, "the MPI-IO layer does not report it"))
        if not lost:
            continue
        text = f"{r.name}: " + "; ".join(f"{k}={v} requested, {'in effect: ' + h if h is not None else 'not in effect'}"
                                          f" ({w})" for k, v, h, w in lost)
        out.append(Candidate(rule="hints-not-in-effect", title=f"{count(len(lost), 'requested hint')} not in effect",
                             evidence=Evidence(text=text + ".", counters={}, files=[r.name]),
                             fix=Fix(kind="settings", text="drop these hints or spell them the way this MPI-IO "
                                     "layer reads them (`pario settings check` explains each one)",
                                     settings={k: v for k, v, _, _ in lost}),
                             cost=NotCosted("a hint that did not apply changed nothing: there is no time to win "
                                            "back, only a setting that does not do what was meant"),
                             confidence="high"))
    return out


RULES = [independent_pieces("write"), independent_pieces("read"), one_aggregator, collective_buffering("write"),
         collective_buffering("read"), hints_not_in_effect]
