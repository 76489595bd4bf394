"""What IOR's -D, -Y and -T did to a case, from its result document (schemas/result.schema.json):
flags for the notes column and one sentence each for under the table. Pure."""
from __future__ import annotations

from typing import Any

from pario.model.units import human

FLAG_HELP = {
    "stonewalled": "-D stopped a phase before its last transfer: its rates are of the bytes it moved "
                   "(the sentences under the table say how many)",
    "max-time": "-T: the time limit stopped the repetitions early (how many ran: under the table)",
}


def notes(case: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(flags, sentences) of one case."""
    flags: list[str] = []
    lines: list[str] = []
    phases = case.get("phases") or []
    asked = int(case.get("total_bytes") or 0)
    for p in phases:
        wall = p.get("stonewall")
        if not wall:
            continue
        stopped, moved = int(wall.get("ranks_stopped") or 0), int(p.get("bytes") or 0)
        if not stopped and moved >= asked:
            continue
        if "stonewalled" not in flags:
            flags.append("stonewalled")
        how = ", then wear-out" if wall.get("wearout") else ""
        lines.append(f"{p['op']} rep {p.get('rep', 0) + 1}: stonewalled after {wall['deadline_s']:g}s "
                     f"({stopped} rank{'s' if stopped != 1 else ''} stopped{how}): {moved} of {asked} bytes "
                     f"({human(moved)} of {human(asked)})")
    syncs = [int(p["syncs"]) for p in phases if p["op"] == "write" and "syncs" in p]
    if syncs and (case.get("spec") or {}).get("fsync_per_write"):
        lines.append(f"-Y: {syncs[0]} sync calls in the first write phase (all ranks)")
    limit = case.get("max_time")
    if limit:
        reps = (case.get("spec") or {}).get("reps")
        why = "max time reached" if limit.get("stopped") else "all ran within it"
        lines.append(f"-T {limit['minutes']:g} min: {limit['reps_run']} of {reps} repetitions ran ({why})")
        if limit.get("stopped"):
            flags.append("max-time")
    return flags, lines
