"""Stored runs in the terminal: the list of `pario results`, one run's environment and table
(`pario results show`), and the comparison of two runs (`pario results compare`)."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from pario.analysis.summary import OPS, summarize
from pario.report.terminal.cells import num, rate
from pario.report.terminal.fit import Col, print_fit
from pario.report.terminal.hints import print_hints
from pario.report.terminal.tables import print_summary


def print_runs(console: Console, runs: list[dict], filtered: bool = False) -> None:
    if not runs:
        console.print("no stored run matches these filters" if filtered
                      else "no runs stored yet; `pario bench` makes one")
        return
    cols = [Col("id", "num", "right"), Col("created (UTC)", "num"), Col("kind", "id"), Col("status", "id"),
            Col("command", "path"), Col("summary", "text", aside=True)]
    has_tags = any(run.get("tags") for run in runs)
    if has_tags:
        cols.insert(4, Col("tags", "id"))
    rows = []
    for run in runs:
        row = [str(run["id"]), run["created"].replace("T", " ")[:16], run["kind"], run["status"], run["command"],
               run.get("headline", "")]
        if has_tags:
            row.insert(4, " ".join(run.get("tags") or []))
        rows.append(row)
    print_fit(console, cols, rows)
    console.print("`pario results show ID` for one run, `pario results compare ID ID` for two.")


def print_compare(console: Console, cmp: list[dict], title: str | None = None) -> None:
    if not cmp:
        console.print("nothing to compare: both runs have no cases")
        return
    cols = [Col("case (A -> B)", "id"), Col("op", "id"), Col("A MiB/s\nmedian [min-max]", "num", "right"),
            Col("B MiB/s\nmedian [min-max]", "num", "right"), Col("B/A", "num", "right"), Col("verdict", "text")]
    rows = []
    for entry in cmp:
        if entry["name_a"] == entry["name_b"]:
            name = entry["name_a"]
        else:
            name = f"{entry['name_a'] or '-'} -> {entry['name_b'] or '-'}"
        if entry["matched_by"] not in ("name", "shape"):
            name += f" ({entry['matched_by']})"
        ops = [op for op in OPS if entry[op]]
        if not ops:
            rows.append([name, "", "", "", "", ""])
        for i, op in enumerate(ops):
            c = entry[op]
            rows.append([name if i == 0 else "", op, rate({"bw_mib": c["a"]}), rate({"bw_mib": c["b"]}),
                         "-" if c["ratio"] is None else f"{c['ratio']:.2f}", c["verdict"]])
    print_fit(console, cols, rows, title)
    console.print("within noise: the min-max ranges over repetitions overlap, so the difference "
                  "is not established.")


def env_lines(run: dict) -> list[str]:
    env, result = run.get("env") or {}, run.get("result") or {}
    mpi = result.get("mpi") or {}
    lines = [f"[bold]run {run['id']}[/bold]  {run['created']}  {run['kind']}  {run['status']}",
             f"command: {escape(run['command'])}"]
    flavour = " ".join(str(env[k]) for k in ("mpi_flavour", "mpi_version") if env.get(k))
    library = mpi.get("library") or env.get("mpi") or flavour
    if library:
        lines.append(f"MPI: {escape(str(library).splitlines()[0].split(',')[0])}")
    facts = []
    if env.get("io_component"):
        facts.append(f"io component: {env['io_component']}")
    ranks = env.get("ranks") or mpi.get("ranks")
    if ranks:
        facts.append(f"ranks: {ranks}")
    hosts = env.get("hosts") or mpi.get("hosts")
    if hosts:
        names = [h.get("name", "?") if isinstance(h, dict) else str(h) for h in hosts]
        facts.append(f"hosts: {', '.join(names[:4])}{' ...' if len(names) > 4 else ''}")
    if env.get("dir"):
        facts.append(f"dir: {escape(str(env['dir']))}")
    if facts:
        lines.append("  ".join(facts))
    ceiling = env.get("ceiling") or {}
    if ceiling.get("write_mib") or ceiling.get("read_mib"):
        lines.append(f"device ceiling (written and read with O_DIRECT): write {num(ceiling.get('write_mib'))} MiB/s, "
                     f"read {num(ceiling.get('read_mib'))} MiB/s")
    if result.get("error"):
        err = result["error"]
        lines.append(f"[red]error[/red]: {escape(str(err.get('message', err)))}")
    return lines


def print_run(console: Console, run: dict, rows: list[dict] | None = None) -> None:
    """One stored run: what ran where, its summary table, and requested vs effective hints."""
    if rows is None:
        rows = summarize(run.get("result") or {}, run.get("env"))
    for line in env_lines(run):
        console.print(line)
    print_summary(console, rows)
    print_hints(console, (run.get("result") or {}).get("cases") or [])
