"""What bench shows of nodes and aggregators (analysis/nodes.py): the aggregators in effect beside
the hints that asked for them, and, for a run over several nodes, each node's share and timing."""
from __future__ import annotations

from typing import Any

from rich.console import Console

from pario.model.units import human
from pario.report.terminal.fit import Col, print_fit

RATIO_NOTE = 1.05   # the aggregators moved noticeably more bytes than the case's data


def _relevant(row: dict[str, Any]) -> bool:
    """Cases whose writers may differ from their ranks: collective calls, a group's leaders, asked
    aggregators, ADIOS2's own aggregation."""
    return bool(row.get("collective") or "+agg" in str(row.get("strategy")) or row.get("asked")
                or row.get("backend") == "adios2")


def _asked_note(row: dict[str, Any], op: str, m: dict[str, Any], io: str | None) -> str:
    asked = row.get("asked") or {}
    if not asked:
        return ""
    said = ", ".join(f"{k} {v}" for k, v in asked.items())
    note = f" (asked: {said})"
    ompio = io in ("ompio", "default")   # "default": Open MPI's own choice, ompio in Open MPI 4 and 5
    if ompio and "cb_config_list" in asked:
        note += (f"; {'ompio' if io == 'ompio' else 'Open MPI' + chr(39) + 's default MPI-IO, ompio,'} ignores "
                 "cb_config_list: --io romio321 (OMPI_MCA_io=romio321) reads it")
    want = str(asked.get("cb_config_list", ""))
    if want.startswith("*:") and want[2:].isdigit() and m.get("hosts", 1) > 1 and m["ranks"] and op == "write" \
            and not ompio and m.get("on_node"):
        k = int(want[2:])
        expected = sum(min(k, n) for n in m["ranks_on_node"].values())
        cap = str(asked.get("cb_nodes", ""))
        if cap.isdigit():   # cb_nodes caps the total: ROMIO takes them node by node
            expected = min(expected, int(cap))
        short = [h for h, n in m["on_node"].items() if n < min(k, m["ranks_on_node"].get(h, k))]
        if len(m["ranks"]) < expected and short:
            note += (f"; fewer than asked ({len(m['ranks'])} of {expected}; none or fewer on {', '.join(short)}): "
                     "an aggregator whose share of the file holds no data writes nothing")
    return note


def aggregator_lines(rows: list[dict[str, Any]], io: str | None) -> list[str]:
    """One line per case and operation: which ranks moved the data at the file system."""
    out = []
    for row in rows:
        agg = row.get("aggregators") or {}
        if not agg or not _relevant(row):
            continue
        for op, m in agg.items():
            line = f"{row['name']} {op}: {m['text']}{_asked_note(row, op, m, io)}"
            ratio = m.get("ratio")
            if ratio and ratio > RATIO_NOTE:
                line += f"; {ratio:.2f}x the data reached the file system"
                if op == "write" and m.get("other_bytes"):
                    line += (f" and {human(int(m['other_bytes']))} was read back (read-modify-write of the "
                             "gaps between the ranks' pieces)")
            mode = (row.get("cb_mode") or {}).get(op)
            if row.get("collective") and m["ranks"] and len(m["ranks"]) == m["of"] > 1 and mode == "automatic":
                line += (f"; ROMIO did not aggregate (romio_cb_{op} automatic: the ranks' pieces did not "
                         f"interleave); --hint romio_cb_{op}=enable makes it")
            if m.get("minor"):
                line += f"; ranks {', '.join(map(str, m['minor']))} moved a few bytes (metadata)"
            out.append(line + ".")
    return out


def print_aggregators(console: Console, rows: list[dict[str, Any]], io: str | None) -> None:
    lines = aggregator_lines(rows, io)
    if not lines:
        return
    console.print("Aggregators in effect: the ranks that wrote or read the file system (counted at the POSIX "
                  "calls under the I/O library, whatever the hints asked):", highlight=False)
    for line in lines:
        console.print("  " + line, highlight=False)


def node_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    out = []
    for row in rows:
        for op, b in (row.get("nodes") or {}).items():
            first = True
            for n in b["nodes"]:
                label = f"{row['name']} {op}" if first else ""
                imbalance = f"{b['imbalance']:.2f}" if first and b.get("imbalance") else ""
                fs = "-" if n.get("fs_bytes") is None else human(int(n["fs_bytes"]))
                out.append([label, n["node"], str(len(n["ranks"])), fs, f"{n['done_s']:.3f}", imbalance])
                first = False
    return out


def print_nodes(console: Console, rows: list[dict[str, Any]]) -> None:
    """Each node of a run over several: its ranks, the bytes they moved at the file system and when
    its last rank was done (median over repetitions), and the imbalance between nodes."""
    cells = node_rows(rows)
    if not cells:
        return
    cols = [Col("case op", "name"), Col("node", "name"), Col("ranks", "num", "right"),
            Col("at the fs", "num", "right"), Col("last done s", "num", "right"),
            Col("node\nimbalance", "num", "right")]
    print_fit(console, cols, cells, "By node (median over repetitions)",
              caption=["at the fs: bytes its ranks wrote or read at the file system; node imbalance: the last "
                       "node's done time / the first node's"])


def _med(phases: list[dict[str, Any]], key: str, r: int) -> float | None:
    from statistics import median
    vals = [p["ranks"][key][r] for p in phases if r < len(p["ranks"].get(key) or [])]
    return median(vals) if vals else None


def rank_rows(result: dict[str, Any]) -> list[list[str]]:
    """Each rank of each case and operation: its node, the bytes it asked the I/O library to move and
    the bytes it moved at the file system, its transfer time and when it was done (medians over the
    repetitions); the node that finished last is marked."""
    from pario.analysis.nodes import by_node, rank_hosts
    hosts = rank_hosts(result) or []
    out = []
    for case in result.get("cases") or []:
        for op, col in (("write", "fs_written"), ("read", "fs_read")):
            phases = [p for p in case.get("phases") or [] if p.get("op") == op and (p.get("ranks") or {}).get("done")]
            if not phases:
                continue
            last = (by_node(case, op, hosts) or {}).get("last") if hosts else None
            for r in range(len(phases[0]["ranks"]["done"])):
                fs = _med(phases, col, r)
                node = hosts[r] if r < len(hosts) else "?"
                out.append([f"{case['name']} {op}" if r == 0 else "", str(r),
                            node + (" (last)" if node == last else ""), human(int(_med(phases, "bytes", r) or 0)),
                            "-" if fs is None else human(int(fs)), f"{_med(phases, 'xfer', r) or 0:.3f}",
                            f"{_med(phases, 'done', r) or 0:.3f}"])
    return out


def print_per_rank(console: Console, result: dict[str, Any]) -> None:
    rows = rank_rows(result)
    if not rows:
        console.print("No per-rank figures in this run.", highlight=False)
        return
    cols = [Col("case op", "name"), Col("rank", "num", "right"), Col("node", "name"), Col("asked", "num", "right"),
            Col("at the fs", "num", "right"), Col("xfer s", "num", "right"), Col("done s", "num", "right")]
    print_fit(console, cols, rows, "Per rank (median over repetitions)",
              caption=["asked: bytes the rank passed to the I/O library; at the fs: bytes its process wrote or read "
                       "at the file system (aggregators move the others'); (last): the node whose last rank was "
                       "done last"])
