"""Findings that exist only across nodes: collective writes to a shared file funnelled through one
aggregator per node while each node runs several ranks (ROMIO's default cb_config_list "*:1").

The seeds: CSC's BTIO on Lustre (16 nodes, 16 ranks each) gained 1.26x from cb_config_list "*:2"
on top of the striping fix (2,940 to 3,699 MiB/s), and non-blocking PnetCDF 2.5x with "*:4";
ARCHER2 sets aggregators per stripe (cray_cb_nodes_multiplier). How many aggregators per node pay
depends on the nodes' network and the stripes, so the fix is measured (--verify) on nodes, never
assumed: on one machine the figures are that machine's, and the advice says so."""
from __future__ import annotations

from pario.advise.costs import NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan
from pario.advise.rules.collective import _contiguous_per_rank, _typical
from pario.advise.rules.layout import rendered
from pario.model.findings import Evidence, Fix
from pario.model.units import human
from pario.settings import Settings
from pario.settings.equivalence import explain

MORE = 2   # aggregators per node to try first: CSC's *:2 (its *:4 was for non-blocking PnetCDF)


def _writers(ctx: Ctx, r: Rec) -> tuple[int, str] | None:
    """How many ranks wrote the file at the POSIX level (under MPI-IO: the aggregators), from its
    POSIX record reduced over ranks: with k of n ranks writing B bytes in equal shares, the spread
    of the ranks' bytes has variance B^2/(k n) - (B/n)^2, so k = B^2 / (n var + B^2 / n)."""
    for p in ctx.job.records:
        if p.module != "posix" or p.path != r.path or p.rank != -1 or p.variance_bytes is None:
            continue
        total, n = float(p.bytes), max(1, p.nprocs)
        if not total:
            return None
        k = total * total / (n * float(p.variance_bytes) + total * total / n)
        return max(1, round(k)), (f"about {max(1, round(k))} of the {n} ranks that opened it wrote it at the POSIX "
                                  "level (from the spread of the ranks' bytes)")
    return None


def _aggregators(ctx: Ctx, r: Rec, nodes: int) -> tuple[int | None, str]:
    """(aggregators in effect, how it is known) of a file's collective writes: measured at the
    POSIX level where the log allows, else the hints in effect."""
    seen = _writers(ctx, r)
    if seen:
        return seen
    hints = r.hints or {}
    try:
        if hints.get("cb_nodes"):
            return int(hints["cb_nodes"]), f"cb_nodes {hints['cb_nodes']} in effect (MPI_File_get_info)"
    except ValueError:
        pass
    listed = str(hints.get("cb_config_list", "*:1" if r.hints is not None else ""))
    if listed.startswith("*:") and listed[2:].isdigit():
        return int(listed[2:]) * nodes, f"cb_config_list {listed}"
    return None, "the log records no aggregator hints"


def _want(per_node: int, nodes: int, stripes: int | None) -> int:
    """Aggregators per node to try: MORE, or enough for one per stripe when the file has more
    stripes than that covers; never more than the node's ranks."""
    k = MORE
    if stripes and nodes * k < stripes:
        k = -(-stripes // nodes)
    return max(1, min(k, per_node))


def _settings(ctx: Ctx, k: int, nodes: int) -> tuple[Settings, str]:
    """The fix in the job's MPI-IO layer's terms: ROMIO (and Cray MPICH, ROMIO-based) place
    aggregators per node with cb_config_list; OMPIO ignores it and takes a total (cb_nodes, its
    io_ompio_num_aggregators)."""
    if ctx.stack.impl == "ompio":
        return (Settings(hints={"cb_nodes": str(k * nodes)}),
                f"OMPIO ignores cb_config_list: ask for {k * nodes} aggregators in all (cb_nodes, "
                "io_ompio_num_aggregators), or run ROMIO (OMPI_MCA_io=romio321) with cb_config_list *:" + str(k))
    return Settings(hints={"cb_config_list": f"*:{k}"}), f"cb_config_list *:{k}: {k} aggregators on every node"


def aggregators_per_node(ctx: Ctx) -> list[Candidate]:
    nodes = len(ctx.job.hosts)
    if nodes < 2:
        return []
    out = []
    for r in ctx.recs("mpiio"):
        coll, indep = r.coll_writes or 0, r.indep_writes or 0
        per_node = r.nprocs // nodes
        if not r.shared or coll <= indep or per_node < 2 or r.path in ctx.library_files():
            continue
        size = _typical(r, "write")
        agg, known = _aggregators(ctx, r, nodes)
        if not size or agg is None or agg > nodes:
            continue   # already more than one per node (or not known)
        mode = (r.hints or {}).get("romio_cb_write", "automatic")
        interleaved = _contiguous_per_rank(r, size) is False
        if _writers(ctx, r) is None and (mode == "disable" or (mode == "automatic" and not interleaved
                                                                and ctx.stack.impl != "ompio")):
            continue   # ROMIO writes such blocks without aggregating: the aggregators are not in the way
        stripes = ctx.facts(r).stripe_count
        k = _want(per_node, nodes, int(stripes) if stripes else None)
        if k <= max(1, agg // nodes):
            continue
        settings, how = _settings(ctx, k, nodes)
        view = {"impl": ctx.stack.impl, "fs": "lustre" if ctx.facts(r).lustre else "", "ranks": r.nprocs,
                "hosts": nodes, "stripe_count": stripes, "ops": ["write"]}
        canon, applied = explain(settings, view)
        log_s = r.elapsed(r.write_time)
        text = (f"{r.name}: {r.nprocs} ranks on {nodes} nodes ({per_node} per node) write it collectively "
                f"({coll:,} writes of ~{human(size)}) through {agg} aggregator{'s' if agg != 1 else ''} "
                f"({known}): every node's {per_node} ranks send their data through "
                f"{'one rank' if agg <= nodes else str(agg // nodes) + ' ranks'}; {r.elapsed(r.write_time):.3g} s "
                "per rank in these writes.")
        plan = _plan(ctx, r, size, agg, k, nodes, per_node, canon, log_s, interleaved)
        note = "; ".join(a.reason() for a in applied)
        out.append(Candidate(
            rule="aggregators-per-node", title=f"one aggregator per node for {per_node} ranks per node",
            evidence=Evidence(text=text, counters={"MPIIO_COLL_WRITES": coll, "MPIIO_NPROCS": r.nprocs,
                                                   "nodes": nodes}, files=[r.name]),
            fix=Fix(kind="settings", text=f"{how} (CSC measured 1.26x from *:2 on 16 Lustre nodes; measure it: "
                                          f"pario advise --verify on {nodes if plan else 'several'} nodes)"
                                          f"{': ' + note if note else ''}",
                    settings=canon.hints, rendered=rendered(ctx, canon)),
            cost=Ratio(log_s=log_s, what=f"writes with {k} aggregators per node") if plan else
            NotCosted(_why_not(ctx, nodes)),
            confidence="low", plan=plan))
    return out


def _why_not(ctx: Ctx, nodes: int) -> str:
    return (f"measuring aggregators per node needs several nodes; this machine reaches {ctx.nodes_here} (run "
            "advise inside `salloc -N 2` or more, or with a hostfile: scripts/local-cluster.sh env)")


def _plan(ctx: Ctx, r: Rec, size: int, agg: int, k: int, nodes: int, per_node: int, canon: Settings,
          log_s: float, interleaved: bool) -> Plan | None:
    """The job's collective writes on min(its nodes, the nodes here) nodes, as they are and with k
    aggregators per node; None when fewer than two nodes can be had here."""
    here = min(nodes, ctx.nodes_here)
    if here < 2 or size % 8:
        return None
    ranks_per = max(2, min(per_node, ctx.max_ranks // here))
    writes = max(1, round((r.coll_writes or 0) / max(1, r.nprocs)))
    opts = {"backend": "mpiio", "strategy": "shared", "transfer": size, "ops": ["write"], "reps": 3,
            "collective": True}
    if interleaved:
        opts.update(block=size, segments=writes)
    else:
        opts.update(block=size * writes, segments=1)
    force = {} if ctx.stack.impl == "ompio" else {"romio_cb_write": "enable"}   # the job's ROMIO aggregated
    now = {"cb_config_list": f"*:{max(1, agg // nodes)}"} if ctx.stack.impl != "ompio" else {"cb_nodes": str(agg)}
    before = dict(opts, hints={**force, **now})
    after = dict(opts, hints={**force, **canon.hints})
    if ctx.stack.impl == "romio" and ctx.stack.flavour == "openmpi":
        before["_io"] = after["_io"] = "romio321"   # the job's component: OMPIO would ignore the hint
    on = f"{here} of the job's {nodes} nodes" if here < nodes else f"{nodes} nodes"
    return Plan(ranks=here * min(ranks_per, per_node), before=before, after=after, log_s=log_s, nodes=here,
                what=f"{human(size)} collective writes on {on}, {max(1, agg // nodes)} against {k} aggregators "
                     "per node (on one machine's nodes: its rates, not a cluster's)")


RULES = [aggregators_per_node]
