"""MPI-IO on shared files: many ranks writing small or scattered pieces independently (collective
calls would let the MPI-IO layer merge them), and the opposite, collective buffering on large
contiguous requests, where each rank writing its own block directly is faster (the seeds' LRZ
table: 3x for sequential 1 MiB writes without it, 15x for strided ones with it). For one file the
advice takes one stance, never both (Candidate.stance; the advisor enforces it). Also: hints that
were requested and are not in effect."""
from __future__ import annotations

from pario.advise.costs import NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan, s
from pario.advise.rules.layout import rendered
from pario.model.findings import Evidence, Fix
from pario.model.units import human
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


def _contiguous_per_rank(r: Rec, size: int) -> bool | None:
    """Does each rank access one contiguous block? From the distance between a rank's request
    starts (pario logs): equal to the size means back to back. None when the log does not say."""
    if not r.strides:
        return None
    back_to_back = r.strides.get(size, 0)
    return back_to_back >= sum(r.strides.values()) / 2


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
            limit, why = ctx.small_limit(r, op)
            small = limit is not None and size < limit
            contiguous = _contiguous_per_rank(r, size)
            if not small and contiguous is not False:
                continue
            log_s = r.elapsed(r.write_time if op == "write" else r.read_time)
            shape = "small" if small else "scattered"
            text = (f"{r.path}: {r.nprocs} ranks make {indep:,} independent {op}s of ~{human(size)}"
                    f"{' (smaller than ' + human(limit) + ': ' + why + ')' if small and limit else ''}"
                    f"{', each rank' + chr(39) + 's pieces far apart' if contiguous is False else ''}; "
                    f"{s(log_s)} per rank in them.")
            ranks = ctx.ranks_here(r.nprocs)
            interleaved = contiguous is False or contiguous is None
            plan = None
            if size % 8 == 0:
                plan = Plan(ranks=ranks, before=_pattern(ctx, r, op, size, False, not interleaved),
                            after=_pattern(ctx, r, op, size, True, not interleaved), log_s=log_s,
                            what=f"{human(size)} {op}s by {ranks} ranks, independent vs collective")
            call = "MPI_File_write_at_all" if op == "write" else "MPI_File_read_at_all"
            fix = Fix(kind="code", text=(f"make the {op}s collective ({call}, same arguments, every rank calling), "
                                         "ideally one call per rank through a file view (MPI_Type_vector / "
                                         "MPI_Type_create_subarray and MPI_File_set_view): the MPI-IO layer "
                                         "then merges the pieces into large contiguous requests"))
            out.append(Candidate(rule=f"independent-{op}s", title=f"{shape} independent {op}s to a shared file",
                                 evidence=Evidence(text=text, counters={f"MPIIO_INDEP_{op.upper()}S": indep,
                                                                        f"MPIIO_COLL_{op.upper()}S": coll,
                                                                        "MPIIO_NPROCS": r.nprocs},
                                                   files=[r.path]),
                                 fix=fix, cost=Ratio(log_s=log_s, what=f"collective {op}s") if plan else
                                 NotCosted("no request size the engine can replay"),
                                 confidence="medium", plan=plan, stance=(r.path, "collective")))
        return out
    return rule


def _cb_off(ctx: Ctx, op: str) -> Settings:
    if ctx.stack.impl == "ompio":
        return Settings(hints={"collective_buffering": "false"})
    return Settings(hints={f"romio_cb_{op}": "disable"})


def collective_buffering(op: str):
    """Collective calls on large requests that each rank makes back to back: two-phase I/O only adds
    the exchange. Measured before it is advised: with --no-calibrate it is listed as a question."""
    def rule(ctx: Ctx) -> list[Candidate]:
        out = []
        for r in ctx.recs("mpiio"):
            coll = (r.coll_writes if op == "write" else r.coll_reads) or 0
            indep = (r.indep_writes if op == "write" else r.indep_reads) or 0
            if not r.shared or coll <= indep:
                continue
            size = _typical(r, op)
            limit, _ = ctx.small_limit(r, op)
            if not size or limit is None or size < limit or _contiguous_per_rank(r, size) is False:
                continue
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
            text = (f"{r.path}: {r.nprocs} ranks make {coll:,} collective {op}s of ~{human(size)} (not small "
                    f"here){', each rank its own contiguous block' if _contiguous_per_rank(r, size) else ''}; "
                    f"{key} is {(r.hints or {}).get(key, 'not set (automatic)')}; {s(log_s)} per rank in them.")
            out.append(Candidate(rule=f"collective-buffering-{op}s", title=f"collective buffering on large {op}s",
                                 evidence=Evidence(text=text, counters={f"MPIIO_COLL_{op.upper()}S": coll,
                                                                        "MPIIO_NPROCS": r.nprocs}, files=[r.path]),
                                 fix=Fix(kind="settings", text=(f"turn collective buffering off for this file ("
                                         f"{key}={off.hints[key]}): each rank then writes its own block directly, "
                                         "without the exchange through aggregators"),
                                         settings=dict(off.hints), rendered=rendered(ctx, off)),
                                 cost=Ratio(log_s=log_s, what=f"{op}s without collective buffering") if plan else
                                 NotCosted("no request size the engine can replay"),
                                 confidence="medium", plan=plan, stance=(r.path, "independent")))
        return out
    return rule


def hints_not_in_effect(ctx: Ctx) -> list[Candidate]:
    out = []
    for r in ctx.recs("mpiio"):
        ours = ctx.library_hints(r.path)
        req = {k: v for k, v in (r.hints_requested or {}).items() if k not in ours}
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
        text = f"{r.path}: " + "; ".join(f"{k}={v} requested, {'in effect: ' + h if h is not None else 'not in effect'}"
                                          f" ({w})" for k, v, h, w in lost)
        out.append(Candidate(rule="hints-not-in-effect", title=f"{len(lost)} requested hint(s) not in effect",
                             evidence=Evidence(text=text + ".", counters={}, files=[r.path]),
                             fix=Fix(kind="settings", text="drop these hints or spell them the way this MPI-IO "
                                     "layer reads them (`pario settings check` explains each one)",
                                     settings={k: v for k, v, _, _ in lost}),
                             cost=NotCosted("a hint that did not apply changed nothing: there is no time to win "
                                            "back, only a setting that does not do what was meant"),
                             confidence="high"))
    return out


RULES = [independent_pieces("write"), independent_pieces("read"), collective_buffering("write"),
         collective_buffering("read"), hints_not_in_effect]
