"""The CephFS dialect: a `setfattr -n ceph.dir.layout` command (the layout new files in a directory
get; `ceph.file.layout` on an empty file), and back from it or from `getfattr -n ceph.file.layout`
output. The same layout as `lfs setstripe` in Ceph's words: stripe_unit is Lustre's stripe size,
object_size is CephFS's own (bytes per object before the next set of objects starts), and CephFS
has no composite (PFL) layouts, no first-OST index and no OST lists."""
from __future__ import annotations

import re

from pario.model.errors import ParioError
from pario.settings import knobs
from pario.settings.dialects.mpi import split_words
from pario.settings.dialects.spellings import layout_of
from pario.settings.model import Issue, Settings, build

_OWN = {own: ceph for ceph, own in knobs.CEPH_LAYOUT.items()}   # layout field -> Ceph's name
# stripe_count -1 (Lustre: every OST) has no CephFS value: the number of object servers, asked at run time.
ALL_SERVERS = "$(ceph osd ls | wc -l)"
_ATTR = re.compile(r"^ceph\.(file|dir)\.layout(?:\.(\w+))?$")


def layout_value(comp: dict[str, str]) -> str:
    """The value of ceph.*.layout for one layout component (its CephFS fields, 0 = keep the default)."""
    items = []
    for own, ceph in _OWN.items():
        value = comp.get(own)
        if value is None or value == "0":
            continue
        items.append(f"{ceph}={ALL_SERVERS if own == 'stripe_count' and value == '-1' else value}")
    return " ".join(items)


def render_ceph(s: Settings, path: str = "DIR", **_) -> str:
    layout = layout_of(s)
    if len(layout) != 1:  # nothing, or a composite layout CephFS cannot hold
        return ""
    value = layout_value(layout[0])
    if not value:
        return ""
    attr = "ceph.file.layout" if path == "FILE" else "ceph.dir.layout"
    quoted = f'"{value}"'  # double quotes: the shell expands ALL_SERVERS
    return f"setfattr -n {attr} -v {quoted} {path}\n"


def parse_ceph(text: str) -> tuple[Settings, list[Issue]]:
    """`setfattr -n ceph.{file,dir}.layout[.FIELD] -v VALUE PATH` lines, or getfattr's
    `ceph.file.layout="..."` lines (its `# file:` lines and blank lines are skipped)."""
    pairs: list[tuple[str, str]] = []
    issues: list[Issue] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^(ceph\.(?:file|dir)\.layout(?:\.\w+)?)="?(.*?)"?$', line)
        if m:
            attr, value = m.groups()
        else:
            words = split_words(line.replace(ALL_SERVERS, "-1"), "setfattr command")
            if words[:1] != ["setfattr"] or "-n" not in words or "-v" not in words:
                raise ParioError("expected `setfattr -n ceph.dir.layout -v VALUE PATH` lines (or getfattr output)")
            attr = words[words.index("-n") + 1] if words.index("-n") + 1 < len(words) else ""
            value = words[words.index("-v") + 1] if words.index("-v") + 1 < len(words) else ""
        value = value.replace(ALL_SERVERS, "-1")
        a = _ATTR.match(attr)
        if not a:
            issues.append(Issue("error", attr, f"{attr!r} is not a CephFS layout attribute "
                                               "(ceph.file.layout, ceph.dir.layout or one of their fields)"))
            continue
        fields = [(a.group(2), value)] if a.group(2) else [tuple(kv.split("=", 1)) for kv in value.split() if "=" in kv]
        for name, val in fields:
            if name == "pool_namespace":
                continue  # a namespace within the pool: not a setting pario has
            if name not in knobs.CEPH_LAYOUT:
                issues.append(Issue("error", name, f"'{name}' is not a CephFS layout field "
                                                   f"({', '.join(knobs.CEPH_LAYOUT)})"))
                continue
            pairs.append((f"ceph.{name}", val))
    settings, more = build(pairs)
    return settings, issues + more
