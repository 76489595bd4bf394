"""What `pario bench` prints after a run: the tables of its cases (tables.py, layers.py), where
verify found bad data, the settings in effect, what was kept, the device ceiling, the stored id."""
from __future__ import annotations

from rich.console import Console

from pario.analysis.nodes import ONE_MACHINE, one_machine
from pario.model.result import RunRecord, SummaryRow
from pario.model.units import count
from pario.report.terminal.hints import print_hints
from pario.report.terminal.layers import print_bench
from pario.report.terminal.nodes import print_aggregators, print_nodes
from pario.report.terminal.servers import print_servers


def verify_lines(rows: list[SummaryRow]) -> list[str]:
    """Where each checked phase first differed from what was written: per operation, its first
    failing phase with that phase's own count (a read and a verify are counted apart)."""
    out = []
    for r in rows:
        v = r.get("verify") or {}
        failing = [p for p in v.get("by_phase") or [] if p.get("errors")]
        for op in dict.fromkeys(p["op"] for p in failing):
            mine = [p for p in failing if p["op"] == op]
            p, first = mine[0], mine[0].get("first_error") or {}
            where = (f"; first on rank {first.get('rank')}, file {first.get('file')}, offset {first.get('offset')}: "
                     f"expected {first.get('expected')}, got {first.get('got')}") if first else ""
            more = f" (and in {len(mine) - 1} more {op} phase{'s' if len(mine) > 2 else ''})" if len(mine) > 1 else ""
            out.append(f"{r['name']}: {op} rep {p.get('rep')} found {p['errors']} bad 8-byte word(s) of "
                       f"{p.get('checked_bytes', 0) // 8} checked{where}{more}.")
    return out


def ceiling_line(ceiling: dict) -> str:
    """The device ceiling the run was judged by, and when it was measured (a cached probe is a day old
    at most: platform.ceiling.MAX_AGE)."""
    if not ceiling.get("write_mib"):
        return f"No device ceiling: {ceiling.get('source', 'not measured')}."
    streams = ceiling.get("streams") or 1
    source = str(ceiling.get("source"))
    when = str(ceiling.get("measured") or "")[:16].replace("T", " ")
    how = {"probe": "measured now",
           "cached probe": f"measured {when} UTC" if when else "measured earlier"}.get(source, source)
    return (f"Device ceiling (written and read with O_DIRECT, {streams} stream{'s' if streams != 1 else ''}, "
            f"{how}): write {ceiling['write_mib']:.0f} MiB/s, read {ceiling.get('read_mib') or 0:.0f} MiB/s.")


def where(mpi: dict, env: dict) -> str:
    """'vm', or '3 nodes (node1, node2, node3)' for a run over several (the engine's processor names)."""
    hosts = [str(h.get("name")) for h in mpi.get("hosts") or []]
    if len(hosts) > 1:
        names = ", ".join(hosts[:4]) + (", ..." if len(hosts) > 4 else "")
        return f"{len(hosts)} nodes ({names})" + (" of one machine" if one_machine({"mpi": mpi}) else "")
    return str(hosts[0] if hosts else env.get("hostname"))


CURES = (" (-e syncs them inside the timed phase)", " (--drop-caches evicts them)")   # bench's flags


def measured_line(cases: list[dict], cures: tuple[str, str] = CURES) -> str:
    """What the figures are of, from the cases that ran: the storage (writes synced inside the timed
    phase, reads of evicted files) or, in part, the page cache; "" without data cases. cures: what
    syncs the writes and evicts the reads, after "not synced" and "not evicted first" (a preset's
    cases are its file's: bench's -e and --drop-caches are not its cure)."""
    specs = [c.get("spec") or {} for c in cases]
    specs = [s for s in specs if s.get("workload", "data") == "data" and s.get("backend") != "null"]
    writers = [s for s in specs if "write" in (s.get("ops") or ())]
    readers = [s for s in specs if {"read", "verify"} & set(s.get("ops") or ())]
    if not writers and not readers:
        return ""
    said, cache = [], []
    for group, synced, what, yes, no in (
            (writers, lambda s: s.get("fsync") or s.get("odirect"), "writes", "synced inside the timed phase",
             "not synced" + cures[0]),
            (readers, lambda s: s.get("evict") or s.get("odirect"), "reads", "of files evicted from the page cache",
             "not evicted first" + cures[1])):
        if not group:
            continue
        done = sum(1 for s in group if synced(s))
        if done == len(group):
            said.append(f"{what} {yes}")
        else:
            cache.append(f"{what} {no}" + ("" if not done else f" in {len(group) - done} of {len(group)} cases"))
    if not cache:
        return "These figures are of the storage: " + ", ".join(said) + "."
    return ("These figures may be of the page cache: " + "; ".join(cache)
            + (f" ({', '.join(said)})" if said else "") + ".")


def show(console: Console, record: RunRecord, rows: list[SummaryRow], run_id: int | None) -> None:
    result, env, status = record.result, record.env, record.status
    if rows:
        mpi = result.get("mpi") or {}
        title = (f"pario bench: {count(mpi.get('ranks', '?'), 'rank')} on {where(mpi, env)}, "
                 f"{record.directory} ({env.get('fs_name') or env.get('fs_type') or 'fs ?'})")
        measured = measured_line(result.get("cases") or [])
        if measured:   # the header: what the figures are of, before any of them
            console.print(measured, highlight=False)
        print_bench(console, rows, result, title=title)  # data table, then layers and metadata tables
        for line in verify_lines(rows):
            console.print(line, highlight=False)
        print_hints(console, result.get("cases") or [])  # requested vs effective settings, with the means used
        print_servers(console, result.get("cases") or [])  # each file server's bytes, the placement's prediction
        print_aggregators(console, rows, env.get("io_component"))
        print_nodes(console, rows)
        if one_machine(result):
            console.print(ONE_MACHINE[0].upper() + ONE_MACHINE[1:] + ".", highlight=False)
        kept = [c["name"] for c in (result.get("cases") or []) if (c.get("spec") or {}).get("keep")]
        if kept and status in ("complete", "verify failed"):  # the files stay either way
            console.print(f"Kept the files of {', '.join(kept)} in {record.directory} ({record.prefix}.*).")
    console.print(ceiling_line(env.get("ceiling") or {}))
    if run_id is not None:
        console.print(f"Stored as run {run_id} ({status}): pario results show {run_id}")
