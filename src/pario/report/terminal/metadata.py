"""The metadata workload in the terminal: files per second of each phase (median [min-max] over
repetitions) and the exact counts."""
from __future__ import annotations

from rich.console import Console

from pario.model.units import count, human
from pario.report.terminal.cells import iops, spread
from pario.report.terminal.fit import Col, print_fit


def print_metadata(console: Console, rows: list[dict], title: str | None = None) -> None:
    """Files per second of each phase (median [min-max] over repetitions) and the exact counts."""
    cols = [Col("case", "name"), Col("phase", "id"), Col("files/s\nmedian [min-max]", "num", "right"),
            Col("files", "num", "right"), Col("notes", "text", aside=True)]
    cells = []
    for row in rows:
        md = row["metadata"]
        tree = (f"{'shared tree' if md.get('shared_dir', True) else 'tree per rank'}, {md.get('files_per_dir')} "
                f"files/dir" + (f", depth {md['depth']} x {md.get('branching')}" if md.get("depth") else "")
                + (f", {human(md['file_size'])} each" if md.get("file_size") else ", empty files"))
        case_notes = [tree, f"created {md.get('created', '?')}, removed {md.get('removed', '?')}"]
        if md.get("left_behind"):
            case_notes.append(f"{md['left_behind']} left behind")
        case_notes += [f for f in row["flags"] if f != "verify-errors"]
        for i, (op, ph) in enumerate(md["phases"].items()):
            notes = list(case_notes) if i == 0 else []
            v = row.get("verify")
            if op == "read_small" and v:
                notes.append(f"verified {human(v['checked_bytes'])}" if not v["errors"]
                             else f"{v['errors']} words differ")
            files = ph.get("files")
            cells.append([row["name"] if i == 0 else "", op, spread(ph.get("files_per_s"), iops),
                          "-" if files is None else f"{files:.0f}", "; ".join(notes)])
    # case names are file-name-like (md-shared-100f-300k): broken after '-' at most, never inside
    print_fit(console, cols, cells, title or "metadata workload: files per second of each phase")
    first = rows[0]["metadata"]
    console.print(f"files/s: files handled by all ranks / time from the first rank's start to the last rank's end "
                  f"of the phase ({count(first.get('files_per_rep'), 'file')} in "
                  f"{count(first.get('dirs_per_rep'), 'directory')} "
                  "per repetition" + (" in the first case)." if len(rows) > 1 else ")."))
