"""Every known setting as one row (`pario settings keys`): the MPI-IO hints, the MCA parameters,
the Lustre layout (and its CephFS spelling) and the library knobs, with type, default and who honours each."""
from __future__ import annotations

from typing import Any

from pario.settings import hints as hintlib
from pario.settings import knobs


def rows() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"key": h.name, "kind": h.kind, "default": h.default, "honoured_by": list(h.impls),
                                  "doc": h.doc} for h in hintlib.CATALOGUE.values()]
    out += [{"key": f"mca.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": ["ompio"], "doc": k.doc}
            for k in knobs.MCA.values()]
    out += [{"key": f"lustre.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": ["lustre"],
             "doc": k.doc} for k in knobs.LAYOUT.values() if k.name not in knobs.CEPH_ONLY]
    out += [{"key": f"ceph.{name}", "kind": knobs.LAYOUT[own].kind, "default": None, "honoured_by": ["cephfs"],
             "doc": f"CephFS layout field (= lustre.{own})" if name != "object_size" else knobs.LAYOUT[own].doc}
            for name, own in knobs.CEPH_LAYOUT.items()]
    out += [{"key": f"{lib}.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": [lib], "doc": k.doc}
            for lib, table in knobs.LIB.items() for k in table.values()]
    return out
