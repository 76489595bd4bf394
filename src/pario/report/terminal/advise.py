"""`pario advise` in a terminal: each job's findings, most expensive first, in 80 columns. Renders
the advice document (pario.advise.document; schemas/advise.schema.json) and nothing else."""
from __future__ import annotations

import textwrap
from typing import Any

from pario.model.units import seconds

WIDTH = 80
LABEL = 9   # "   seen  " etc.


_s = seconds


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def _wrap(label: str, text: str, width: int = WIDTH) -> list[str]:
    head = f"   {label:<{LABEL - 3}}"
    return textwrap.wrap(text, width=width, initial_indent=head, subsequent_indent=" " * LABEL,
                         break_long_words=True, break_on_hyphens=False) or [head.rstrip()]


def _cmd(command: str, width: int = WIDTH) -> list[str]:
    """A command to copy into a shell: continued with a backslash where it is too long. A word
    longer than a line is cut with a backslash too, its rest at the start of the next line (a
    shell joins the two halves again; indenting them would split the word)."""
    lines, cur = [], " " * LABEL + "$ "
    for word in command.split(" "):
        if len(cur) + len(word) + 2 > width and cur.strip() not in ("$", ""):
            lines.append(cur.rstrip() + " \\")
            cur = " " * (LABEL + 2)
        while len(cur) + len(word) + 2 > width:
            room = width - len(cur) - 1
            lines.append(cur + word[:room] + "\\")
            cur, word = "", word[room:]
        cur += word + " "
    lines.append(cur.rstrip())
    return lines


def _title(n: int, f: dict[str, Any], run_time: float | None) -> list[str]:
    sec = f.get("seconds_at_stake")
    right = ""
    if sec is not None:
        right = f"{_s(sec)} at stake"
        if run_time:
            right += f" ({100 * sec / run_time:.0f}% of the run)"
    else:
        right = "not costed"
    left = f"{n}. {f['title']}"
    room = WIDTH - len(right) - 1
    if len(left) > room:
        return textwrap.wrap(left, WIDTH) + [" " * (WIDTH - len(right)) + right]
    return [left + " " * (WIDTH - len(left) - len(right)) + right]


def finding_lines(n: int, f: dict[str, Any], run_time: float | None, docs: dict[str, str]) -> list[str]:
    out = _title(n, f, run_time)
    ev = f["evidence"]
    out += _wrap("seen", ev["text"])
    for path in ev.get("files") or []:
        out += _wrap("", path)
    for name, value in list((ev.get("counters") or {}).items())[:4]:
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.4g}"
        doc = docs.get(name)
        out += _wrap("", f"{name} = {shown}" + (f" ({doc})" if doc else ""))
    out += _wrap("cost", f"{f['estimate']} [confidence: {f['confidence']}]")
    fix = f["fix"]
    out += _wrap("fix", fix["text"])
    if fix.get("command"):
        out += _cmd(fix["command"])
    rendered = fix.get("rendered") or {}
    if rendered:   # the first is the job's own MPI-IO dialect; --json has them all
        dialect, text = next(iter(rendered.items()))
        others = [d for d in rendered if d != dialect]
        out += _wrap("", f"{dialect}:" + (f" (also as {', '.join(others)} in --json)" if others else ""))
        for line in text.splitlines():
            out += _wrap("", "  " + line)
    v = f.get("verification")
    if v:
        gain = v["before_s"] / v["after_s"] if v.get("after_s") else None
        text = f"as it is {_s(v['before_s'])}, with the fix {_s(v['after_s'])}"
        if gain:
            text += f": {gain:.2f}x"
        runs = v.get("runs") or []
        if runs:
            text += f" (run{'s' if len(runs) > 1 else ''} {', '.join(map(str, runs))})"
        out += _wrap("check", text + ". " + v.get("note", ""))
    return out


def job_lines(job: dict[str, Any], docs: dict[str, str]) -> list[str]:
    out = textwrap.wrap(f"pario advise: {job['source']} ({job['format']} log)", WIDTH, subsequent_indent="  ",
                        break_on_hyphens=False)
    if job.get("command"):
        out += textwrap.wrap(job["command"], WIDTH, initial_indent="  ", subsequent_indent="    ")
    rt, io = job.get("run_time"), job.get("io_time") or 0.0
    procs = f"{job['nprocs']} {'rank' if job['nprocs'] > 1 else 'process'}{'es' if job['nprocs'] == 1 else 's'}"
    if job["nprocs"] == 1:
        procs = "1 process"
    if job.get("copies"):
        procs = f"never called MPI_Init: {job['copies']} independent copies"
    elif job.get("missing_ranks"):
        procs = f"{job['nprocs']} of {job['launched']} ranks logged"
    line = f"  {procs}, {_s(rt)} run" + (f", {_s(io)} of it in I/O calls ({100 * io / rt:.0f}%)" if rt else "")
    out.append(line)
    st = job.get("stack") or {}
    for fs in st.get("file_systems") or []:
        unit = f": requests judged against {_size(fs['unit'])} ({fs['unit_source']})" if fs.get("unit") else ""
        out += textwrap.wrap(f"{fs['files']} file(s) on {fs.get('fs') or 'an unknown file system'}{unit}",
                             WIDTH, initial_indent="  ", subsequent_indent="    ")
    if st.get("impl"):
        out += textwrap.wrap(f"MPI-IO: {st['impl']} ({st['impl_source']})", WIDTH, initial_indent="  ",
                             subsequent_indent="    ")
    elif st.get("impl_source"):
        out += textwrap.wrap(f"MPI-IO: {st['impl_source']}", WIDTH, initial_indent="  ", subsequent_indent="    ")
    cal = job.get("calibration")
    system = st.get("system") or {}
    if cal and cal.get("write"):
        w = cal["write"]
        text = (f"costs: write(2) {w['call_us']:.2f} us per call + {w['mib_s']:.0f} MiB/s, from the "
                f"{cal['where']}")
        out += textwrap.wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    ")
    elif system.get("why"):
        out += textwrap.wrap(f"costs: none measured: {system['why']}", WIDTH, initial_indent="  ",
                             subsequent_indent="    ")
    total = job.get("at_stake")
    if total and rt:
        out += textwrap.wrap(f"at stake in all: {_s(total['seconds'])} of the {_s(rt)} run ({total['how']})", WIDTH,
                             initial_indent="  ", subsequent_indent="    ")
    for p in job.get("partial") or []:
        out += textwrap.wrap(f"partial: {p}", WIDTH, initial_indent="  ", subsequent_indent="    ")
    for group, paths in (job.get("apart_files") or {}).items():
        if paths:
            out += textwrap.wrap(f"left out: {len(paths)} {group}, e.g. {paths[0]}", WIDTH, initial_indent="  ",
                                 subsequent_indent="    ")
    out.append("")
    n = 0
    if not job["findings"] and not job["not_costed"]:
        out.append("No finding worth changing: nothing this job does costs it measurable time.")
    for f in job["findings"]:
        n += 1
        out += finding_lines(n, f, rt, docs) + [""]
    if job["not_costed"]:
        out.append("Not costed (no measurement here can say how much they cost):")
        for f in job["not_costed"]:
            n += 1
            out += finding_lines(n, f, rt, docs) + [""]
    if job["minor"]:
        out.append("Minor (under 1% of the run):")
        for f in job["minor"]:
            out += textwrap.wrap(f"- {f['title']}: {_s(f['seconds_at_stake'])} at stake", WIDTH,
                                 initial_indent="  ", subsequent_indent="    ")
        out.append("")
    for g in job.get("no_gain") or []:
        out += textwrap.wrap(f"checked, not advised: {g['title']}: {g['why']}", WIDTH, initial_indent="  ",
                             subsequent_indent="    ")
    for note in job.get("notes") or []:
        out += textwrap.wrap(f"note: {note}", WIDTH, initial_indent="  ", subsequent_indent="    ")
    return out


def render(doc: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for i, job in enumerate(doc["jobs"]):
        if i:
            out += ["", "-" * WIDTH, ""]
        out += job_lines(job, doc.get("counter_docs") or {})
    return [line.rstrip() for line in out]


def show(doc: dict[str, Any]) -> None:
    for line in render(doc):
        print(line)
