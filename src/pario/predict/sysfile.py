"""A system file as `pario predict --calibrate` writes it back. A new file is written whole
(dump). An existing one is edited line by line: each figure the calibration fitted or read
replaces its own line (a comment after it stays) or joins its section, and every other line of
the author's file (comments, order, figures untouched) is kept as it was. The edited text is read
back and must give the very figures calibrated; where it does not (a figure written over several
lines, a dotted key), the file is written whole and the caller says that its comments are gone."""
from __future__ import annotations

import json
import math
import re
from typing import Any

from pario.predict import system as systems

HEADER = "# Written by `pario predict --calibrate`: calibrated figures say when, where and how."
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def dump(sys_: systems.System) -> str:
    """The system as a TOML file: every figure that is not pario's default, with its provenance."""
    lines = [HEADER, "", "[system]", f"name = {json.dumps(sys_.name)}"]
    if sys_.description:
        lines.append(f"description = {json.dumps(sys_.description)}")
    for section in systems.SECTIONS[1:]:
        lines += ["", f"[{section}]"]
        lines += [line for name, line in _lines(sys_).items() if systems.SPECS[name].section == section]
    return "\n".join(lines) + "\n"


def rewrite(text: str, before: systems.System, after: systems.System) -> str | None:
    """The author's file `text` (read as `before`) with the figures that differ in `after` on their
    own lines; None when the edited text would not read back as `after`."""
    old, new = _lines(before), _lines(after)
    lines = text.splitlines()
    for name, line in new.items():
        if old.get(name) == line:
            continue
        section = systems.SPECS[name].section
        start, end = _section(lines, section)
        if start is None:
            lines += ["", f"[{section}]", line]
            continue
        at = next((i for i in range(start + 1, end) if (m := _KEY.match(lines[i])) and m.group(1) == name), None)
        if at is not None:
            comment = _comment(lines[at])
            lines[at] = line + (f"  {comment}" if comment else "")
        else:
            last = max((i for i in range(start + 1, end) if _KEY.match(lines[i])), default=start)
            lines.insert(last + 1, line)
    out = "\n".join(lines) + "\n"
    try:
        from pario.model.formats import parse_toml
        back = systems.from_dict(parse_toml(out, after.path), after.path)
    except Exception:  # noqa: BLE001 - any failure to read it back: the caller writes the file whole
        return None
    return out if _lines(back) == new else None


def _lines(sys_: systems.System) -> dict[str, str]:
    """name -> its line, for every figure a file of this system holds (not defaults, not derived)."""
    out = {}
    for name in systems.SPECS:
        p = sys_.params.get(name)
        if p is None or p.status == "default" or p.source.startswith("as "):
            continue
        meta: dict[str, Any] = {"value": p.value, "status": p.status}
        meta.update({k: getattr(p, k) for k in ("source", "when", "where", "how") if getattr(p, k)})
        if p.spread > 1:
            meta["spread"] = p.spread
        out[name] = f"{name} = {{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in meta.items()) + " }"
    return out


def _section(lines: list[str], name: str) -> tuple[int | None, int]:
    """(index of [name]'s header, index where the section ends); (None, 0) when it is absent."""
    start = None
    for i, line in enumerate(lines):
        m = _SECTION.match(line)
        if m and start is not None:
            return start, i
        if m and m.group(1) == name:
            start = i
    return (start, len(lines)) if start is not None else (None, 0)


def _comment(line: str) -> str:
    """The comment after a key's value ('' when none): a # outside the line's strings."""
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "#":
            return line[i:].rstrip()
        i += 1
    return ""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "0"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))
