"""The Lustre dialect: an `lfs setstripe` command (the layout is fixed when a file is created)."""
from __future__ import annotations

import shlex

from pario.model.errors import ParioError
from pario.settings.dialects.mpi import split_words
from pario.settings.dialects.spellings import human, layout_of
from pario.settings.model import Issue, Settings, build

_LFS = {"stripe_count": "-c", "overstripe_count": "-C", "stripe_size": "-S", "stripe_index": "-i",
        "ost_list": "-o", "pool": "-p"}
_LFS_LONG = {"--stripe-count": "-c", "--overstripe-count": "-C", "--stripe-size": "-S", "--stripe-index": "-i",
             "--ost": "-o", "--ost-list": "-o", "--pool": "-p", "--component-end": "-E", "--layout": "-L",
             "-s": "-S"}


def render_lfs(s: Settings, path: str = "DIR", **_) -> str:
    layout = layout_of(s)
    if not layout:
        return ""
    argv = ["lfs", "setstripe"]
    for comp in layout:
        if "extent_end" in comp:
            end = comp["extent_end"]
            argv += ["-E", end if end in ("-1", "eof") else human(end)]
        if comp.get("mdt") == "true":
            argv += ["-L", "mdt"]
        for key, flag in _LFS.items():
            if key in comp:
                argv += [flag, human(comp[key]) if key == "stripe_size" else comp[key]]
    return shlex.join(argv + [path]) + "\n"


def parse_lfs(text: str) -> tuple[Settings, list[Issue]]:
    words = split_words(text.strip(), "lfs setstripe command")
    if words[:2] != ["lfs", "setstripe"]:
        raise ParioError("expected an `lfs setstripe ...` command")
    words = words[2:]
    comps: list[dict[str, str]] = [{}]
    flags = {v: k for k, v in _LFS.items()}
    issues, i = [], 0
    while i < len(words):
        flag = _LFS_LONG.get(words[i], words[i])
        if flag in ("-E", "-L", *flags) and i + 1 < len(words):
            value = words[i + 1]
            if flag == "-E":
                if comps[-1]:
                    comps.append({})
                comps[-1]["extent_end"] = value if value in ("-1", "eof") else value
            elif flag == "-L":
                comps[-1]["mdt"] = "true" if value == "mdt" else value
            else:
                comps[-1][flags[flag]] = value
            i += 2
        elif i == len(words) - 1 and not words[i].startswith("-"):
            i += 1  # the path
        else:
            issues.append(Issue("error", words[i], f"lfs setstripe option {words[i]!r} is not understood"))
            i += 1
    pre = (lambda n: "lustre.") if len(comps) == 1 else (lambda n: f"lustre.{n}.")
    pairs = [(pre(n) + k, v) for n, comp in enumerate(comps) for k, v in comp.items()]
    settings, more = build(pairs)
    return settings, issues + more
