"""The value of CephFS's layout attributes (`ceph.file.layout`, `ceph.dir.layout`) as text and back:
what setfattr takes and getfattr prints. Pure text: the settings model compares it with what was
asked, and platform.cephfs reads and sets it on files."""
from __future__ import annotations

from typing import Any

FIELDS = ("stripe_unit", "stripe_count", "object_size", "pool")


def parse_layout(text: str) -> dict[str, Any]:
    """'stripe_unit=1048576 stripe_count=4 object_size=4194304 pool=cephfs_data' -> a dict, numbers
    as ints (getfattr's quotes and a leading 'ceph.file.layout=' are allowed)."""
    text = text.strip()
    if "=" in text.split()[0] and text.split("=", 1)[0].startswith("ceph."):
        text = text.split("=", 1)[1]
    out: dict[str, Any] = {}
    for item in text.strip().strip('"').split():
        key, sep, value = item.partition("=")
        if sep:
            out[key] = int(value) if value.isdigit() else value
    return out


def format_layout(layout: dict[str, Any]) -> str:
    """The value setfattr takes, in Ceph's own order."""
    order = FIELDS + tuple(k for k in layout if k not in FIELDS)
    return " ".join(f"{k}={layout[k]}" for k in order if layout.get(k) not in (None, ""))
