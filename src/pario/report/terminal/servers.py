"""The bytes each file server moved in each case's phases (their own counters, pario.run.servers),
and the time their placement predicts beside the time measured: the busiest server's bytes over
its bandwidth cap."""
from __future__ import annotations

from statistics import median
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from pario.model.units import short
from pario.report.terminal.cells import new_table


def summary(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Per operation of the case: servers' median bytes per phase, predicted and measured seconds
    (medians over the repetitions), the busiest server and its cap, the bytes the phases carried."""
    by_op: dict[str, list[dict[str, Any]]] = {}
    for ph in case.get("phases") or []:
        if ph.get("servers") and ph.get("rep", 0) >= 0:
            by_op.setdefault(str(ph["op"]), []).append(ph)
    caps = (case.get("servers") or {}).get("caps") or {}
    out = []
    for op, phases in by_op.items():
        names = sorted({s for ph in phases for s in ph["servers"]["bytes"]}, key=_server_order)
        moved = {s: int(median(ph["servers"]["bytes"].get(s, 0) for ph in phases)) for s in names}
        ops = {s: int(median((ph["servers"].get("ops") or {}).get(s, 0) for ph in phases)) for s in names}
        # a window that holds untimed steps too (a metadata phase) predicts no phase time
        preds = [ph["servers"]["predicted_s"] for ph in phases
                 if "predicted_s" in ph["servers"] and "since" not in ph["servers"]]
        times = [ph["open_to_close_s"] for ph in phases if ph.get("open_to_close_s")]
        busiest = phases[len(phases) // 2]["servers"].get("busiest")
        direction = phases[0]["servers"]["direction"]
        out.append({"op": op, "bytes": moved, "ops": ops, "predicted_s": median(preds) if preds else None,
                    "measured_s": median(times) if times else None, "busiest": busiest,
                    "cap": (caps.get(busiest) or {}).get(direction) if busiest else None,
                    "phase_bytes": int(median(ph.get("bytes") or 0 for ph in phases)), "reps": len(phases)})
    return out


def _mib(n: int) -> str:
    """Bytes as MiB in a narrow cell: '128', '0.5', '0' (a server's few bytes of metadata: '0.0')."""
    mib = n / (1 << 20)
    return "0" if n == 0 else f"{mib:.0f}" if mib >= 9.95 else f"{mib:.1f}"


def _server_order(name: str) -> tuple[int, str]:
    tail = name.rpartition(".")[2]
    return (int(tail), name) if tail.isdigit() else (1 << 30, name)


def servers_table(cases: list[dict[str, Any]]) -> tuple[str, list[str], list[list[str]], list[tuple[str, str]]]:
    """(title, columns, rows, notes as (text, "warn" or "")): a row per case and operation, a column per
    server, the predicted and measured times; the terminal and the HTML page both draw it. The
    metadata cases are metadata_table's."""
    rows = [(case, r) for case in cases if case.get("workload") != "metadata" and
            (case.get("spec") or {}).get("workload") != "metadata" for r in summary(case)]
    if not rows:
        return "", [], [], []
    names = list(dict.fromkeys(n for _, r in rows for n in r["bytes"]))
    means = next((c.get("servers") or {}).get("means") for c, _ in rows)
    title = (f"file servers: MiB each moved per phase (median over the repetitions), their own counters ({means}); "
             "time predicted by the busiest server and its cap, and measured")
    ops = len({r["op"] for _, r in rows}) > 1
    columns = ["case", *(["op"] if ops else []), *names, "predicted", "measured"]
    cells = []
    for case, r in rows:
        pred = f"{r['predicted_s']:.2f} s" if r["predicted_s"] is not None else "-"
        meas = f"{r['measured_s']:.2f} s" if r["measured_s"] is not None else "-"
        if r["predicted_s"] and r["measured_s"]:
            meas += f" {r['measured_s'] / r['predicted_s']:.2f}x"
        cells.append([case["name"], *([r["op"]] if ops else []), *[_mib(r["bytes"].get(n, 0)) for n in names],
                      pred, meas])
    notes: list[tuple[str, str]] = []
    capped = [(c, r) for c, r in rows if r["busiest"] and r["cap"]]
    if capped:
        caps = sorted({r["cap"] for _, r in capped})
        notes.append((f"predicted: the busiest server's bytes over its cap ({'/'.join(short(c) for c in caps)}/s): "
                      "the servers' time; measured above it is time spent elsewhere (the client, MPI-IO's "
                      "aggregation)", ""))
    elif all(r["predicted_s"] is None for _, r in rows):
        notes.append(("no prediction: the servers have no bandwidth cap pario can read (scripts/local-pfs.sh "
                      "start --cap RATE sets one)", ""))
    for case, r in rows:
        got = sum(r["bytes"].values())
        if r["op"] == "write" and r["phase_bytes"] and got < 0.9 * r["phase_bytes"]:
            notes.append((f"{case['name']} {r['op']}: the servers got {short(got)} of the phase's "
                          f"{short(r['phase_bytes'])} before it ended: the rest was still in the client's cache "
                          "(-e makes the phase include the flush)", "warn"))
    return title, columns, cells, notes


def metadata_table(cases: list[dict[str, Any]]) -> tuple[str, list[str], list[list[str]], list[tuple[str, str]]]:
    """The metadata cases: the operations each server handled per phase (median over repetitions),
    counted from the case's previous phase (a metadata phase has no start event), and its bytes."""
    rows = [(case, r) for case in cases if (case.get("spec") or {}).get("workload") == "metadata"
            for r in summary(case)]
    if not rows:
        return "", [], [], []
    names = list(dict.fromkeys(n for _, r in rows for n in r["bytes"]))
    title = ("file servers, metadata phases: operations each handled (and MiB) per phase, their own counters, "
             "counted from the case's previous phase")
    cells = [[case["name"], r["op"], *[f"{r['ops'].get(n, 0)} ({_mib(r['bytes'].get(n, 0))})" for n in names],
              f"{r['measured_s']:.2f} s" if r["measured_s"] is not None else "-"] for case, r in rows]
    return title, ["case", "op", *names, "measured"], cells, []


def print_servers(console: Console, cases: list[dict[str, Any]]) -> None:
    """The servers' tables (servers_table, metadata_table) with their notes."""
    for title, columns, cells, notes in (servers_table(cases), metadata_table(cases)):
        if not cells:
            continue
        table = new_table(escape(title))
        for col in columns:
            table.add_column(col, justify="left" if col in ("case", "op") else "right",
                             overflow="fold" if col == "case" else "ellipsis", no_wrap=col != "case")
        for row in cells:
            table.add_row(*[Text(c) for c in row])
        console.print(table)
        for text, level in notes:
            console.print("  " + escape(text), style="yellow" if level else None, highlight=False)
