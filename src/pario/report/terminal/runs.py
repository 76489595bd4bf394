"""Stored runs in the terminal: the list of `pario results`, one run's environment and table
(`pario results show`), and the comparison of two runs (`pario results compare`)."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from pario.analysis.summary import OPS, summarize
from pario.report.terminal.cells import num, spread
from pario.report.terminal.fit import Col, print_fit
from pario.report.terminal.hints import print_hints
from pario.report.terminal.tables import print_summary


def print_runs(console: Console, runs: list[dict], filtered: bool = False) -> None:
    if not runs:
        console.print("no stored run matches these filters" if filtered
                      else "no runs stored yet; `pario bench` makes one")
        return
    cols = [Col("id", "num", "right"), Col("created (UTC)", "num"), Col("kind", "id"), Col("status", "id"),
            Col("command", "id"), Col("summary", "text", aside=True)]
    has_tags = any(run.get("tags") for run in runs)
    if has_tags:
        cols.insert(4, Col("tags", "id"))
    rows = []
    for run in runs:
        if "session" in run and "runs" in run:   # a tuning session's trials, folded (cli.results.fold_sessions)
            ids = sorted(run["runs"])
            n = len(ids)
            span = f"{ids[0]}-{ids[-1]}" if ids[-1] - ids[0] + 1 == n and n > 1 else str(ids[0]) if n == 1 else \
                f"{n} runs"
            said = (f"tuning session {run['session']}: {n} trial run{'s' if n != 1 else ''} "
                    f"(`pario results --kind tune` lists them); {run.get('headline') or ''}").rstrip("; ")
            row = [span, run["created"].replace("T", " ")[:16], "tune", run["status"], run["command"], said]
        else:
            row = [str(run["id"]), run["created"].replace("T", " ")[:16], run.get("family") or run["kind"],
                   run["status"], run["command"], run.get("headline", "")]
        if has_tags:
            row.insert(4, " ".join(run.get("tags") or []))
        rows.append(row)
    print_fit(console, cols, rows)
    console.print("`pario results show ID` for one run, `pario results compare ID ID` for two.")


def _cells(c: dict) -> tuple[str, str, str]:
    """A, B, and B/A [interval] over the verdict, of one compared operation."""
    ratio = "-" if c.get("ratio") is None else f"{c['ratio']:.2f}"
    if c.get("low") is not None:
        ratio += f" [{c['low']:.2f}-{c['high']:.2f}]"
    return spread(c.get("a")), spread(c.get("b")), f"{ratio}\n{c['verdict']}" if ratio != "-" else c["verdict"]


def _name(entry: dict) -> str:
    """The case as the table names it: its name, or its strategy/backend when A and B name it differently."""
    if entry["name_a"] == entry["name_b"]:
        return entry["name_a"]
    return entry["label"] if entry["name_a"] and entry["name_b"] else (entry["name_a"] or entry["name_b"])


def _table(unit: str) -> list[Col]:
    """Columns of a comparison table (fit.py: at 80 columns nothing is cut; a case name breaks only
    after '.', '-' or '_': 'shared/mpiio' stays whole)."""
    return [Col("case", "name"), Col("op" if unit == "MiB/s" else "phase", "id"),
            Col(f"A {unit}\nmedian [min-max]", "num", "right"), Col(f"B {unit}\nmedian [min-max]", "num", "right"),
            Col("B/A [95% interval]\nverdict", "text", "right")]


def _differences(diffs: list[dict]) -> tuple[str, str]:
    """('what A vs B; ...' of the facts both recorded, 'what, ...' of those one side did not)."""
    known = [d for d in diffs if "?" not in (d["a"], d["b"])]
    unknown = [d["what"] for d in diffs if "?" in (d["a"], d["b"])]
    return "; ".join(f"{d['what']} {d['a']} vs {d['b']}" for d in known), ", ".join(unknown)


def print_compare(console: Console, cmp: dict, title: str | None = None) -> None:
    """`pario results compare`: what differs between the runs, then the data cases in MiB/s and
    the metadata cases in files/s, with the noise verdict, and why pario and IOR differ."""
    cases = cmp.get("cases") or []
    if not cases:
        console.print("nothing to compare: both runs have no cases")
        return
    if title:
        console.print(escape(title))
    known, unknown = _differences(cmp.get("differences") or [])
    if known:
        console.print("[bold]A and B differ in[/bold]: " + escape(known))
    if unknown:
        console.print(escape(f"Not recorded by one of them: {unknown}."))
    if not cmp.get("comparable", True):
        console.print("The figures below are not like for like: a ratio says how the two setups compare, not "
                      "that one does the same job faster.")
    data: list[list[str]] = []
    meta: list[list[str]] = []
    notes = []
    for entry in cases:
        name = _name(entry)
        if entry["name_a"] and entry["name_b"] and entry["name_a"] != entry["name_b"]:
            notes.append(f"{name}: A {entry['name_a']}, B {entry['name_b']} (matched by {entry['matched_by']})")
        ops = [op for op in OPS if entry.get(op)]
        for i, op in enumerate(ops):
            data.append([name if i == 0 else "", op, *_cells(entry[op])])
            notes += [f"{name} {op}: {why}" for why in entry[op].get("explain") or []]
        for i, (phase, c) in enumerate((entry.get("metadata") or {}).items()):
            meta.append([name if i == 0 else "", phase, *_cells(c)])
        differs, missing = _differences(entry.get("differences") or [])
        if differs:
            notes.append(f"{name}: {differs}")
    for unit, rows in (("MiB/s", data), ("files/s", meta)):
        if rows:
            print_fit(console, _table(unit), rows)
    for line in notes:
        console.print(escape(line))
    console.print("B faster / B slower: the 95% bootstrap interval of the ratio of medians excludes 1; within "
                  "noise: it includes 1; at least 3 repetitions a side are needed for either.")


def mpi_name(run: dict) -> str:
    """The MPI library as the run's tables name it: 'Open MPI v4.1.4' (its version string's first part)."""
    env, mpi = run.get("env") or {}, (run.get("result") or {}).get("mpi") or {}
    flavour = " ".join(str(env[k]) for k in ("mpi_flavour", "mpi_version") if env.get(k))
    library = mpi.get("library") or env.get("mpi") or flavour
    return str(library).splitlines()[0].split(",")[0] if library else ""


def memory(run: dict) -> str:
    """'23.54 GiB per node', or '' when the run did not record it."""
    from pario.model.units import human

    mem = (run.get("env") or {}).get("mem_total")
    return f"{human(mem)} per node" if isinstance(mem, (int, float)) and mem > 0 else ""


def env_lines(run: dict) -> list[str]:
    env, result = run.get("env") or {}, run.get("result") or {}
    mpi = result.get("mpi") or {}
    lines = [f"[bold]run {run['id']}[/bold]  {run['created']}  {run['kind']}  {run['status']}",
             f"command: {escape(run['command'])}"]
    library = mpi_name(run)
    if library:
        lines.append(f"MPI: {escape(library)}")
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
    mem = memory(run)
    if mem:
        facts.append(f"memory: {mem}")
    if facts:
        lines.append("  ".join(facts))
    where = slurm_line(env.get("slurm") or {}, mpi.get("placement") or {})
    if where:
        lines.append(escape(where))
    ceiling = env.get("ceiling") or {}
    if ceiling.get("write_mib") or ceiling.get("read_mib"):
        streams = ceiling.get("streams") or 1
        lines.append(f"device ceiling (written and read with O_DIRECT, {streams} stream{'s' if streams != 1 else ''}): "
                     f"write {num(ceiling.get('write_mib'))} MiB/s, "
                     f"read {num(ceiling.get('read_mib'))} MiB/s")
    if result.get("error"):
        err = result["error"]
        lines.append(f"[red]error[/red]: {escape(str(err.get('message', err)))}")
    return lines


def slurm_line(slurm: dict, placement: dict) -> str:
    """Where a run ran in Slurm's terms: the job, the launch, and the ranks per node."""
    parts = []
    if slurm.get("job"):
        where = ", ".join(f"{k} {slurm[k]}" for k in ("cluster", "partition") if slurm.get(k))
        parts.append(f"Slurm job {slurm['job']}" + (f" ({where})" if where else ""))
    if slurm.get("launcher") == "srun":
        parts.append(f"srun --mpi={slurm.get('mpi_plugin') or 'none'}")
    ranks = placement.get("ranks") or []
    if ranks:
        hosts: dict[str, list[int]] = {}
        for r in ranks:
            hosts.setdefault(r.get("host", "?"), []).append(r.get("rank"))
        spread = "; ".join(f"{h}: {len(rs)}" for h, rs in list(hosts.items())[:4]) + ("; ..." if len(hosts) > 4 else "")
        cpus = {r.get("cpus") for r in ranks}
        bound = ("each rank on CPUs " + ",".join(sorted(c for c in cpus if c)) if len(cpus) == len(ranks) > 1
                 else f"CPUs {next(iter(cpus))} each" if len(cpus) == 1 else "")
        parts.append(f"ranks per node ({placement.get('source')} placement): {spread}"
                     + (f", {bound}" if bound else ""))
    return "; ".join(parts)


def print_run(console: Console, run: dict, rows: list[dict] | None = None) -> None:
    """One stored run: what ran where, its summary table, and requested vs effective hints."""
    if rows is None:
        rows = summarize(run.get("result") or {}, run.get("env"))
    for line in env_lines(run):
        console.print(line)
    print_summary(console, rows)
    print_hints(console, (run.get("result") or {}).get("cases") or [])
    from pario.report.terminal.nodes import print_aggregators, print_nodes
    print_aggregators(console, rows, (run.get("env") or {}).get("io_component"))
    print_nodes(console, rows)
