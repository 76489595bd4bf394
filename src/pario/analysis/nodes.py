"""Where the ranks ran and what each node did, from a result document: the rank-to-node map, the
ranks that moved data at the file system (the aggregators in effect, counted by the engine at the
POSIX calls below the I/O library: MPI_File_get_info only echoes what was asked), and how the nodes
compare (imbalance by node). Pure: no printing, no files."""
from __future__ import annotations

import statistics
from typing import Any

# A rank that moved less than this share of the busiest rank's bytes did not aggregate: HDF5's
# superblock or OMPIO's few bytes of bookkeeping, not the case's data.
MOVER_SHARE = 0.01
# The hints that ask for aggregators (ROMIO's, Cray MPICH's), shown beside what took effect.
ASKED = ("cb_nodes", "cb_config_list", "cray_cb_nodes_multiplier", "striping_factor")
COLUMN = {"write": "fs_written", "read": "fs_read"}


def rank_hosts(result: dict[str, Any]) -> list[str] | None:
    """The host of every rank (index = rank), from the engine's placement; None when not known."""
    mpi = result.get("mpi") or {}
    placed = (mpi.get("placement") or {}).get("ranks") or []
    if placed and all(isinstance(p, dict) and p.get("host") for p in placed):
        return [str(p["host"]) for p in sorted(placed, key=lambda p: p.get("rank", 0))]
    hosts = mpi.get("hosts") or []
    if len(hosts) == 1 and mpi.get("ranks"):
        return [str(hosts[0].get("name"))] * int(mpi["ranks"])
    return None


def one_machine(result: dict[str, Any]) -> bool:
    """Whether the run's several hosts are one machine: every rank saw the same kernel boot id (the
    namespaced nodes of scripts/local-cluster.sh), so their rates share one disk, page cache and CPUs."""
    placed = ((result.get("mpi") or {}).get("placement") or {}).get("ranks") or []
    boots = {p.get("boot") for p in placed if isinstance(p, dict)}
    hosts = {p.get("host") for p in placed if isinstance(p, dict)}
    return len(hosts) > 1 and len(boots) == 1 and None not in boots


ONE_MACHINE = ("the nodes are one machine (one kernel boot id: scripts/local-cluster.sh's namespaces): where the "
               "ranks ran and which ranks aggregated is as on a cluster; the rates are this machine's (one disk, "
               "one page cache, its cores shared by every node), not a cluster's")


def host_order(rank_host: list[str]) -> list[str]:
    """The hosts in order of their first rank."""
    return list(dict.fromkeys(rank_host))


def ranks_text(ranks: list[int]) -> str:
    """'0, 2, 4'; runs of three or more as ranges: '0-3, 8-11'."""
    parts: list[str] = []
    i = 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        parts += [f"{ranks[i]}-{ranks[j]}"] if j - i >= 2 else [str(r) for r in ranks[i:j + 1]]
        i = j + 1
    return ", ".join(parts)


def per_node_text(ranks: list[int], rank_host: list[str]) -> str:
    """How `ranks` sit on the run's hosts: '1 per node', or '2 on node1, 1 on node2, none on node3'."""
    order = host_order(rank_host)
    counts = {h: 0 for h in order}
    for r in ranks:
        if r < len(rank_host):
            counts[rank_host[r]] += 1
    values = set(counts.values())
    if len(values) == 1:
        (k,) = values
        return f"{k} per node" if len(order) > 1 else f"{k} on {order[0]}"
    return ", ".join(f"{k or 'none'} on {h}" for h, k in counts.items())


def movers(case: dict[str, Any], op: str, rank_host: list[str] | None) -> dict[str, Any] | None:
    """The ranks that moved `op`'s data at the file system, over the case's phases of `op`; None
    when the engine did not count (an older engine, a metadata case)."""
    phases = [p for p in case.get("phases") or [] if p.get("op") == op
              and isinstance((p.get("ranks") or {}).get(COLUMN[op]), list)]
    if not phases:
        return None
    n = max(len(p["ranks"][COLUMN[op]]) for p in phases)
    totals = [0.0] * n
    for p in phases:
        for r, b in enumerate(p["ranks"][COLUMN[op]]):
            totals[r] += float(b or 0)
    biggest = max(totals, default=0.0)
    ranks = [r for r, b in enumerate(totals) if biggest and b >= MOVER_SHARE * biggest]
    minor = [r for r, b in enumerate(totals) if 0 < b < MOVER_SHARE * biggest]
    data = statistics.median(float(p.get("bytes") or 0) for p in phases)
    moved = sum(totals) / len(phases)
    other = "fs_read" if op == "write" else "fs_written"   # e.g. ROMIO's read-modify-write in a write
    also = sum(float(b or 0) for p in phases for b in (p["ranks"].get(other) or [])) / len(phases)
    out: dict[str, Any] = {"ranks": ranks, "minor": minor, "of": n, "fs_bytes": moved, "data_bytes": data,
                           "ratio": moved / data if data else None, "other_bytes": also}
    if rank_host and len(rank_host) == n:
        out["per_node"] = per_node_text(ranks, rank_host)
        out["hosts"] = len(host_order(rank_host))
        out["on_node"] = {h: sum(1 for r in ranks if rank_host[r] == h) for h in host_order(rank_host)}
        out["ranks_on_node"] = {h: rank_host.count(h) for h in host_order(rank_host)}
    return out


def asked(case: dict[str, Any]) -> dict[str, str]:
    """The aggregator hints the case asked for (as requested, not as echoed)."""
    requested = (case.get("hints") or {}).get("requested") or {}
    return {k: str(requested[k]) for k in ASKED if k in requested}


def text(m: dict[str, Any]) -> str:
    """'ranks 0, 2, 4: 1 per node', 'all 6 ranks', 'rank 0: 1 of 6'."""
    ranks = m["ranks"]
    if not ranks:
        return "no rank (nothing reached the file system through the counted calls)"
    if len(ranks) == m["of"] and m["of"] > 1:
        where = f": {m['per_node']}" if m.get("hosts", 1) > 1 else ""
        return f"all {m['of']} ranks{where}"
    head = f"rank{'s' if len(ranks) > 1 else ''} {ranks_text(ranks)}"
    return f"{head}: {m['per_node']}" if m.get("per_node") else f"{head} of {m['of']}"


def by_node(case: dict[str, Any], op: str, rank_host: list[str]) -> dict[str, Any] | None:
    """Each node's ranks, bytes at the file system and when its last rank was done (the median over
    the phases of `op`), and the imbalance between nodes: the last node's time / the first node's."""
    phases = [p for p in case.get("phases") or [] if p.get("op") == op
              and isinstance((p.get("ranks") or {}).get("done"), list)]
    order = host_order(rank_host)
    if not phases or len(order) < 2:
        return None
    rows: list[dict[str, Any]] = []
    for h in order:
        mine = [r for r, name in enumerate(rank_host) if name == h]
        done = [max((p["ranks"]["done"][r] for r in mine if r < len(p["ranks"]["done"])), default=0.0)
                for p in phases]
        fs = [sum(float(p["ranks"].get(COLUMN[op], [0] * len(rank_host))[r] or 0) for r in mine
                  if r < len(p["ranks"].get(COLUMN[op]) or [])) for p in phases]
        counted = any(isinstance(p["ranks"].get(COLUMN[op]), list) for p in phases)
        rows.append({"node": h, "ranks": mine, "done_s": statistics.median(done),
                     "fs_bytes": statistics.median(fs) if counted else None})
    times: list[float] = [float(r["done_s"]) for r in rows if r["done_s"] > 0]
    imbalance = max(times) / min(times) if times and min(times) > 0 else None
    return {"nodes": rows, "imbalance": imbalance,
            "last": max(rows, key=lambda r: float(r["done_s"]))["node"]}


def figures(case: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """What a summary row keeps of the case's nodes: {"aggregators": {op: ...}, "nodes": {op: ...},
    "asked": {...}}; empty parts are left out."""
    rank_host = rank_hosts(result)
    out: dict[str, Any] = {}
    agg = {op: m for op in COLUMN if (m := movers(case, op, rank_host)) is not None}
    if agg:
        for m in agg.values():
            m["text"] = text(m)
        out["aggregators"] = agg
    if asked(case):
        out["asked"] = asked(case)
    effective = (case.get("hints") or {}).get("effective") or {}
    modes = {op: str(effective[f"romio_cb_{op}"]) for op in COLUMN if f"romio_cb_{op}" in effective}
    if modes:
        out["cb_mode"] = modes   # ROMIO's collective buffering per direction: enable, disable, automatic
    if rank_host and len(host_order(rank_host)) > 1:
        nodes = {op: b for op in COLUMN if (b := by_node(case, op, rank_host)) is not None}
        if nodes:
            out["nodes"] = nodes
    return out
