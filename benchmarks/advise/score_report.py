"""How score.py shows a score: a line per log for the terminal, a table per case for RESULTS.md.
A claim is written +id (true), ~id (tolerated), -id (false), with ! after it when its fix is wrong;
a defect the log could show and no claim named is written miss:kind. A log passes (ok) when every
defect it can show was found, nothing false was claimed, no fix was wrong, the seconds claimed fit
in the job's time, and a foreign log's advice used no local measurement."""
from __future__ import annotations

import textwrap
from typing import Any

from corpus_score import LogScore


def marks(s: LogScore) -> str:
    sign = {"true": "+", "tolerated": "~", "false": "-"}
    parts = [f"{sign[c.verdict]}{c.id}{'!' if c.fix == 'wrong' else ''}" for c in s.claims]
    parts += [f"miss:{k}" for k in s.visible if k not in s.found]
    if s.error:
        parts.append(f"ERROR {s.error}")
    return " ".join(parts) or "nothing"


def seconds(s: LogScore) -> str:
    if s.tool != "pario" or s.job_s is None:
        return ""
    out = f"{s.at_stake_s:.3g}/{s.job_s:.3g} s"
    return out + (" OVER" if s.over_time else "")


def table(scores: list[LogScore], header: bool = True) -> str:
    lines = [f"{'case':19} {'log':7} {'tool':7} {'ok':2} {'at stake/job':16} claims"] if header else []
    for s in scores:
        head = f"{s.case[:19]:19} {s.log:7} {s.tool:7} {'ok' if s.passed else '--'} {seconds(s):16} "
        body = textwrap.wrap(marks(s), 80 - len(head), break_on_hyphens=False) or [""]
        lines.append(head + body[0])
        lines += [" " * len(head) + b for b in body[1:]]
        lines += [" " * len(head) + n for n in s.notes]
    return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def summary_table(summary: dict[str, Any]) -> str:
    lines = [f"{'tool':8} {'logs':13} {'passed':7} {'precision':14} {'recall':13} {'fixes ok/bad':12} over err"]
    for tool, parts in summary.items():
        for which, t in parts.items():
            lines.append(f"{tool:8} {which.split()[0] + ' (' + str(t['logs']) + ')':13} {t['passed']:<7} "
                         f"{_fmt(t['precision']) + ' (' + str(t['true']) + '/' + str(t['true'] + t['false']) + ')':14} "
                         f"{_fmt(t['recall']) + ' (' + str(t['found']) + '/' + str(t['visible']) + ')':13} "
                         f"{str(t['right']) + '/' + str(t['wrong']):12} {t['over_time']:<4} {t['errors']}")
    return "\n".join(lines)


def _cell(s: LogScore | None) -> str:
    if s is None:
        return ""
    out = ("**ok** " if s.passed else "") + marks(s)
    if s.tool == "pario" and s.job_s is not None:
        out += f" ({seconds(s)}"
        if s.fixed_saving_s is not None:
            out += f"; true findings {s.matched_stake_s or 0:.3g} s, the fix measured {s.fixed_saving_s:.3g} s"
        out += ")"
    notes = [n for n in s.notes if not n.startswith("checked, not advised")]
    return out + ("; " + "; ".join(notes) if notes else "")


def markdown(doc: dict[str, Any], scores: list[LogScore]) -> str:
    out = [f"Score `{doc['stamp']}` (commit {doc['commit']}, load average {doc['load']['min']:.1f}-"
           f"{doc['load']['max']:.1f}): `{doc['command']}`", "",
           "| tool | logs | passed | precision | recall | fixes right | fixes wrong | unjudged | over the job's time "
           "| errors |", "|---|---|---|---|---|---|---|---|---|---|"]
    for tool, parts in doc["summary"].items():
        for which, t in parts.items():
            shown = t["true"] + t["false"]
            out.append(f"| {tool} | {which} ({t['logs']}) | {t['passed']} | "
                       f"{_fmt(t['precision'])} ({t['true']}/{shown}) | {_fmt(t['recall'])} "
                       f"({t['found']}/{t['visible']}) | {t['right']} | {t['wrong']} | "
                       f"{t['unjudged']} | {t['over_time']} | {t['errors']} |")
    issue = doc.get("issue_cases") or {}
    if issue and not isinstance(next(iter(issue.values())), dict):
        issue = {"25": issue}   # a results file from before the cases were grouped by issue
    for number, got in sorted(issue.items()):
        failing = sorted(k for k, ok in got.items() if not ok)
        tail = f"; not: {', '.join(failing)}." if failing else "."
        out += ["", f"The cases that stand for a wording of issue {number} (truth.toml `issue`): pario passes every "
                    f"log of {len(got) - len(failing)} of {len(got)}{tail}"]
    out += ["", "| case | defects | pario advise, pario log | pario advise, Darshan log | Drishti |",
            "|---|---|---|---|---|"]
    by: dict[str, dict[str, LogScore]] = {}
    for s in scores:
        by.setdefault(s.case, {})[f"{s.tool}/{s.log}"] = s
    for case, got in by.items():
        first = next(iter(got.values()))
        defects = ", ".join(sorted(set(first.visible) | {k for s in got.values() for k in s.visible})) or "none"
        out.append(f"| {case} | {defects} | {_cell(got.get('pario/pario'))} | {_cell(got.get('pario/darshan'))} | "
                   f"{_cell(got.get('drishti/darshan'))} |")
    return "\n".join(out) + "\n"
