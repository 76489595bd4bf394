"""pario advise's findings in words and figures, the same for the terminal (report/terminal/advise.py
wraps them to 80 columns) and the HTML page (report/html: the findings section): one job document
(pario.advise.document; schemas/advise.schema.json) in, labelled texts out. A figure is formatted
here once, so the page cannot say 0.0227 s where the terminal says 22.7 ms, nor 0.00x for 0.04x
(tests/python/test_page_terminal_parity.py compares every figure of the two)."""
from __future__ import annotations

from typing import Any

from pario.model.units import count, seconds


def ratio(x: float | None) -> str:
    """'2.83x', '0.041x' (two significant digits below 0.1: never '0.00x'), '-' for none."""
    if x is None:
        return "-"
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def stake(f: dict[str, Any], run_time: float | None) -> str:
    """'13.7 ms at stake (1% of the run)', or 'not costed'."""
    sec = f.get("seconds_at_stake")
    if sec is None:
        return "not costed"
    share = f" ({100 * sec / run_time:.0f}% of the run)" if run_time else ""
    return f"{seconds(sec)} at stake{share}"


def counter(name: str, value: Any, docs: dict[str, str]) -> str:
    shown = f"{value:,}" if isinstance(value, int) else f"{value:.4g}"
    doc = docs.get(name)
    return f"{name} = {shown}" + (f" ({doc})" if doc else "")


COUNTERS = 4   # counters shown per finding (--json has them all)


def verification(v: dict[str, Any]) -> str:
    gain = v["before_s"] / v["after_s"] if v.get("after_s") else None
    text = f"as it is {seconds(v['before_s'])}, with the fix {seconds(v['after_s'])}"
    if gain:
        text += f": {ratio(gain)}"
    runs = v.get("runs") or []
    if runs:
        text += f" (run{'s' if len(runs) > 1 else ''} {', '.join(map(str, runs))})"
    return text + ". " + (v.get("note") or "")


def parts(f: dict[str, Any], run_time: float | None, docs: dict[str, str]) -> list[tuple[str, str]]:
    """A finding below its title, as (label, text): seen, a file, ranks, a counter, cost, fix, command
    (to copy), dialect, settings (a line of the dialect), check (--verify). The first dialect is the
    job's own MPI-IO dialect; the others are named ("also as ... in --json")."""
    ev = f["evidence"]
    out = [("seen", ev["text"])]
    out += [("file", path) for path in ev.get("files") or []]
    ranks = ev.get("ranks") or []
    if ranks:
        out.append(("ranks", "ranks: " + ", ".join(map(str, ranks[:16])) + (" ..." if len(ranks) > 16 else "")))
    out += [("counter", counter(k, v, docs)) for k, v in list((ev.get("counters") or {}).items())[:COUNTERS]]
    out.append(("cost", f"{f['estimate']} [confidence: {f['confidence']}]"))
    fix = f["fix"]
    out.append(("fix", fix["text"]))
    if fix.get("command"):
        out.append(("command", fix["command"]))
    rendered = fix.get("rendered") or {}
    if rendered:
        dialect, text = next(iter(rendered.items()))
        others = [d for d in rendered if d != dialect]
        out.append(("dialect", f"{dialect}:" + (f" (also as {', '.join(others)} in --json)" if others else "")))
        out += [("settings", line) for line in text.splitlines()]
    v = f.get("verification")
    if v:
        out.append(("check", verification(v)))
    return out


def jobs_of(findings: list[Any]) -> list[dict[str, Any]]:
    """Job documents as given, or findings (model.findings.Finding, or their dicts) without their job:
    one document holding them, the costed ones first, largest time at stake first."""
    if all(isinstance(f, dict) and "findings" in f for f in findings):
        return list(findings)
    docs = [f if isinstance(f, dict) else f.to_dict() for f in findings]
    docs.sort(key=lambda f: -(f.get("seconds_at_stake") or 0.0))
    return [{"source": None, "format": "", "nprocs": 0, "run_time": None,
             "findings": [f for f in docs if f.get("seconds_at_stake") is not None],
             "not_costed": [f for f in docs if f.get("seconds_at_stake") is None],
             "minor": [], "no_gain": [], "notes": []}]


STREAMS = ("<STDIN>", "<STDOUT>", "<STDERR>")   # Darshan's names of the standard streams


def _where(fs: dict[str, Any]) -> str:
    """Where a group of files lies: its file system, or what its files are when the log names none (the
    program's stdout is no file system: it was said to be on 'an unknown file system')."""
    if fs.get("fs"):
        return f"on {fs['fs']}"
    paths = fs.get("paths") or []
    if paths and all(p in STREAMS or p.startswith(("/dev/", "/proc/")) for p in paths):
        return f"not on a file system: the program's standard streams or devices ({', '.join(paths)})"
    return "on a file system the log does not name" + (f" ({', '.join(paths)})" if paths else "")


def header(job: dict[str, Any]) -> list[str]:
    """The job's lines above its findings: what ran, for how long, where, what calibrated the costs."""
    out = [f"pario advise: {job['source']} ({job['format']} log)"]
    if job.get("command"):
        out.append(job["command"])
    rt, io = job.get("run_time"), job.get("io_time") or 0.0
    procs = "1 process" if job["nprocs"] == 1 else f"{job['nprocs']} ranks"
    if job.get("no_mpi") and not job.get("copies") and job["nprocs"] > 1:   # a script and its children: not ranks
        procs = f"{job['nprocs']} processes (the program and its children; none called MPI_Init)"
    if job.get("copies"):
        procs = f"never called MPI_Init: {job['copies']} independent copies"
    elif job.get("missing_ranks"):
        procs = f"{job['nprocs']} of {job['launched']} ranks logged"
    out.append(f"{procs}, {seconds(rt)} run" + (f", {seconds(io)} of it in I/O calls ({100 * io / rt:.0f}%)"
                                                if rt else ""))
    st = job.get("stack") or {}
    for fs in st.get("file_systems") or []:
        unit = f": requests judged against {size(fs['unit'])} ({fs['unit_source']})" if fs.get("unit") else ""
        out.append(f"{count(fs['files'], 'file')} {_where(fs)}{unit}")
    if st.get("impl"):
        out.append(f"MPI-IO: {st['impl']} ({st['impl_source']})")
    elif st.get("impl_source"):   # the log uses MPI-IO and does not say which
        out.append(f"MPI-IO: {st['impl_source']}")
    cal = job.get("calibration")
    system = st.get("system") or {}
    if cal and cal.get("write"):   # the calibration of the system the job ran on (advise/systems.py)
        w = cal["write"]
        out.append(f"costs: write(2) {w['call_us']:.2f} us per call + {w['mib_s']:.0f} MiB/s, from the "
                   f"{cal['where']}")
    elif system.get("why"):
        out.append(f"costs: none measured: {system['why']}")
    total = job.get("at_stake")
    if total and rt:   # every second counted once (advise/overlap.py)
        out.append(f"at stake in all: {seconds(total['seconds'])} of the {seconds(rt)} run ({total['how']})")
    out += [f"partial: {p}" for p in job.get("partial") or []]
    return out + left_out(job)


def left_out(job: dict[str, Any]) -> list[str]:
    """One line per group of files advise set apart (advise/apart.py): how many, and one of them."""
    apart = job.get("apart_files") or {}
    ignored = job.get("ignored_files") or []
    if ignored and not apart:
        apart = {"MPI implementation helper files": ignored}
    out = []
    for group, paths in apart.items():
        if paths:
            one = group.replace(" files", " file").replace("directories", "directory") if len(paths) == 1 \
                else group   # '1 MPI ... helper files' was
            out.append(f"left out: {len(paths)} {one}, e.g. {paths[0]}")
    return out


def minor(job: dict[str, Any]) -> list[str]:
    """The findings under 1% of the run, one line each."""
    return [f"{f['title']}: {seconds(f['seconds_at_stake'])} at stake" for f in job.get("minor") or []]


def trailer(job: dict[str, Any]) -> list[str]:
    """The lines below a job's findings: what was checked and not advised, and the notes."""
    out = [f"checked, not advised: {g['title']}: {g['why']}" for g in job.get("no_gain") or []]
    return out + [f"note: {note}" for note in job.get("notes") or []]
