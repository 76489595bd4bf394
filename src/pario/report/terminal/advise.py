"""`pario advise` in a terminal: each job's findings, most expensive first, in 80 columns. Renders
the advice document (pario.advise.document; schemas/advise.schema.json) and nothing else."""
from __future__ import annotations

import textwrap
from typing import Any

from pario.report import advice_text as text

WIDTH = 80
LABEL = 9   # "   seen  " etc.


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
    right = text.stake(f, run_time)
    left = f"{n}. {f['title']}"
    room = WIDTH - len(right) - 1
    if len(left) > room:
        return textwrap.wrap(left, WIDTH) + [" " * (WIDTH - len(right)) + right]
    return [left + " " * (WIDTH - len(left) - len(right)) + right]


_LABELS = {"seen": "seen", "cost": "cost", "fix": "fix", "check": "check"}   # the others hang under them


def finding_lines(n: int, f: dict[str, Any], run_time: float | None, docs: dict[str, str]) -> list[str]:
    out = _title(n, f, run_time)
    for label, said in text.parts(f, run_time, docs):
        if label == "command":
            out += _cmd(said)
        elif label == "settings":
            out += _wrap("", "  " + said)
        else:
            out += _wrap(_LABELS.get(label, ""), said)
    return out


def _at_slashes(text: str, room: int) -> str:
    """A word longer than a line (a path) split after its '/' into pieces that fit, so that a line
    ends at a directory's end, not inside a name ('.../examp' + 'les/...' was printed); a single name
    longer than a line is still cut (there is no other way to fit it)."""
    words = []
    for word in text.split(" "):
        while len(word) > room and "/" in word[1:room]:
            cut = word.rindex("/", 1, room) + 1
            words.append(word[:cut])
            word = word[cut:]
        words.append(word)
    return " ".join(words)


def _lines(said: str) -> list[str]:
    return textwrap.wrap(_at_slashes(said, WIDTH - 6), WIDTH, initial_indent="  ", subsequent_indent="    ",
                         break_on_hyphens=False)


def job_lines(job: dict[str, Any], docs: dict[str, str]) -> list[str]:
    head = text.header(job)
    out = textwrap.wrap(_at_slashes(head[0], WIDTH - 4), WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    for line in head[1:]:
        out += _lines(line)
    out.append("")
    rt = job.get("run_time")
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
    small = text.minor(job)
    if small:
        out.append("Minor (under 1% of the run):")
        for line in small:
            out += textwrap.wrap(f"- {line}", WIDTH, initial_indent="  ", subsequent_indent="    ")
        out.append("")
    for line in text.trailer(job):
        out += _lines(line)
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
