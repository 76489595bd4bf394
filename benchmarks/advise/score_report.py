"""How score.py shows a score: a line per log for the terminal, a table per case for RESULTS.md.
A claim is written +id (true), ~id (tolerated), -id (false), with ! after it when its fix is wrong;
a defect the log could show and no claim named is written miss:kind."""
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
    lines = [f"{'case':20} {'log':7} {'tool':7} {'found':5} {'at stake/job':16} claims"] if header else []
    for s in scores:
        head = f"{s.case[:20]:20} {s.log:7} {s.tool:7} {len(s.found)}/{len(s.visible):<3} {seconds(s):16} "
        body = textwrap.wrap(marks(s), 80 - len(head), break_on_hyphens=False) or [""]
        lines.append(head + body[0])
        lines += [" " * len(head) + b for b in body[1:]]
        lines += [" " * len(head) + n for n in s.notes]
    return "\n".join(lines)


def summary_table(summary: dict[str, Any]) -> str:
    lines = [f"{'tool':8} {'logs':14} {'precision':14} {'recall':14} {'fixes ok/bad/?':15} {'over':5} errors"]
    for tool, parts in summary.items():
        for which, t in parts.items():
            lines.append(f"{tool:8} {which.split()[0] + ' (' + str(t['logs']) + ')':14} "
                         f"{_fmt(t['precision']) + ' (' + str(t['true']) + '/' + str(t['true'] + t['false']) + ')':14} "
                         f"{_fmt(t['recall']) + ' (' + str(t['found']) + '/' + str(t['visible']) + ')':14} "
                         f"{str(t['right']) + '/' + str(t['wrong']) + '/' + str(t['unjudged']):15} "
                         f"{t['over_time']:<5} {t['errors']}")
    return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def markdown(doc: dict[str, Any], scores: list[LogScore]) -> str:
    out = [f"Score `{doc['stamp']}` (commit {doc['commit']}, load average {doc['load']['min']:.1f}-"
           f"{doc['load']['max']:.1f}): `{doc['command']}`", "",
           "| tool | logs | precision | recall | fixes right | fixes wrong | unjudged | over the job's time | errors |",
           "|---|---|---|---|---|---|---|---|---|"]
    for tool, parts in doc["summary"].items():
        for which, t in parts.items():
            shown = t["true"] + t["false"]
            out.append(f"| {tool} | {which} ({t['logs']}) | {_fmt(t['precision'])} ({t['true']}/{shown})"
                       f" | {_fmt(t['recall'])} ({t['found']}/{t['visible']}) | {t['right']} | {t['wrong']} | "
                       f"{t['unjudged']} | {t['over_time']} | {t['errors']} |")
    out += ["", "| case | log | tool | found | at stake / job | claims |", "|---|---|---|---|---|---|"]
    for s in scores:
        note = ("; " + "; ".join(s.notes)) if s.notes else ""
        out.append(f"| {s.case} | {s.log} | {s.tool} | {len(s.found)}/{len(s.visible)} | {seconds(s)} | "
                   f"{marks(s)}{note} |")
    return "\n".join(out) + "\n"
