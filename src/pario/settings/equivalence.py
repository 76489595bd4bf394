"""Settings that a stack treats the same are the same: `canonical(settings, stack)` maps a setting to
what the detected MPI-IO implementation will actually do, so that a search never measures one
configuration twice and a report can say why a requested setting did not apply.

Each rule names its source (anchors-tuning.md read these in MPICH main, Open MPI v4.1/v5.0).

`stack` is a small dict (see `view`): impl (romio | ompio | cray), fs (lustre, gpfs, ext4, ...),
ranks, hosts, stripe_count (of a new file in the directory, Lustre), ops (the case's operations).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pario.settings import hints as hintlib
from pario.settings import knobs
from pario.settings.model import Settings


@dataclass(frozen=True)
class Applied:
    rule: str
    key: str
    before: str | None
    after: str | None          # None: the setting has no effect on this stack
    text: str
    source: str

    def reason(self) -> str:
        return f"{self.text} [{self.source}]"


STRIPING = ("striping_factor", "striping_unit", "start_iodevice", "stripe_size", "stripe_width")
STRIPING_FS = ("lustre", "pvfs2")   # drivers that set a layout at creation (ad_lustre, ad_pvfs2; OMPIO fs/lustre)
LAYOUT_FS = ("lustre", "cephfs")    # where pario sets a layout itself (lfs setstripe; setfattr ceph.file.layout)
OMPIO_KEYS = {"cb_buffer_size", "cb_nodes", "collective_buffering", "striping_unit", "striping_factor",
              "stripe_size", "stripe_width", "OMPIO_SHAREDFP_RELAXED_ORDERING"}
OMPIO_ALIAS = {"stripe_size": "striping_unit", "stripe_width": "striping_factor"}
OMPIO_DEFAULTS = {"cb_buffer_size": "33554432", "collective_buffering": "true"}


def view(stack: dict[str, Any] | None = None, **over) -> dict[str, Any]:
    """The facts the rules need, from a `pario stack` document (or a plain dict) plus overrides."""
    stack = stack or {}
    mpi, fs = stack.get("mpi") or {}, stack.get("fs") or {}
    out = {"impl": stack.get("impl") or mpi.get("mpiio"), "fs": stack.get("fs_name") or fs.get("type"),
           "ranks": stack.get("ranks"), "hosts": stack.get("hosts") or 1,
           "stripe_count": stack.get("stripe_count") or ((stack.get("lustre") or {}).get("dir_layout") or {})
           .get("stripe_count"), "ops": stack.get("ops")}
    out.update({k: v for k, v in over.items() if v is not None})
    return out


def _per_host(config: str) -> int | None:
    """Aggregators per host of a `*:N` cb_config_list (None when it names hosts)."""
    config = config.strip()
    if config in ("*", "*:*"):
        return None if config == "*:*" else 1
    if config.startswith("*:"):
        tail = config[2:]
        return int(tail) if tail.isdigit() else None
    return None


def explain(settings: Settings, stack: dict[str, Any]) -> tuple[Settings, list[Applied]]:
    """(the canonical settings, the rules that changed them)."""
    out, applied = settings.copy(), []
    impl, fs = stack.get("impl"), (stack.get("fs") or "").lower()
    h = out.hints

    def drop(key, rule, text, source, after=None):
        applied.append(Applied(rule, key, h.get(key), after, text, source))
        if after is None:
            h.pop(key, None)
        else:
            h[key] = after

    # OMPIO's alias names are the canonical ones since Open MPI PR #10135.
    for alias, name in OMPIO_ALIAS.items():
        if alias in h and impl == "ompio":
            value = h.pop(alias)
            h.setdefault(name, value)
            applied.append(Applied("alias", alias, value, value, f"{alias} is OMPIO's alias of {name}",
                                   "common_ompio_file_open.c"))
    for key in sorted(h):
        why = hintlib.ignored_here(key, impl, fs)
        if why:
            drop(key, "not-read-here", why, "MPI-4.0 14.2.8; ad_gpfs_hints.c")
    if impl == "ompio":
        for key in sorted(h):
            if key not in OMPIO_KEYS and not key.startswith(("gpfs", "sioxAccessRange")):
                drop(key, "ompio-ignores", f"ompio ignores {'ROMIO' if _romio_only(key) else 'this'} hint "
                     "(run with --io romio321, or use its MCA parameter)", "io_ompio_component.c")
        # An info key and its MCA parameter are one setting; the info key wins.
        for hint, param in knobs.HINT_TO_MCA.items():
            if param in out.mca:
                value = out.mca.pop(param)
                if hint not in h:
                    h[hint] = value
                applied.append(Applied("mca-equals-hint", f"mca.{param}", value, h[hint],
                                       f"OMPIO reads {hint} from {param} when the info key is absent",
                                       "common_ompio_file_open.c"))
        for key, default in OMPIO_DEFAULTS.items():
            if h.get(key) == default:
                drop(key, "default", f"{key}={default} is OMPIO's default", "io_ompio_component.c")
    elif impl in ("romio", "cray"):
        for key in sorted(h):
            row = hintlib.lookup(key)
            if row and impl not in row.impls:
                drop(key, "romio-ignores", f"{impl.upper() if impl == 'romio' else 'Cray MPICH'} does not read "
                     f"{key} (an {'/'.join(i for i in row.impls)} key)", "ad_hints.c")
        for param in sorted(out.mca):
            if param != "io":
                applied.append(Applied("romio-ignores-mca", f"mca.{param}", out.mca.pop(param), None,
                                       "MCA parameters of OMPIO do nothing under ROMIO", "anchors-tuning.md (b)"))
        _romio_rules(h, stack, drop)
    if fs and fs not in STRIPING_FS:
        for key in STRIPING:
            if key in h:
                drop(key, "striping-not-here", f"{key} ignored on {fs} (not Lustre): striping applies at "
                     "creation on Lustre only" + ("; on CephFS the layout is an attribute of the file or its "
                                                  "directory: pario settings render --dialect ceph"
                                                  if fs == "cephfs" else ""), "ad_fstype.c, ad_ufs (no layout)")
        if out.layout and fs not in LAYOUT_FS:
            applied.append(Applied("layout-not-here", "lustre", "set", None,
                                   f"not Lustre ({fs}): layout not applied", "statfs f_type"))
            out.layout = []
    return out, applied


def _romio_only(key: str) -> bool:
    row = hintlib.lookup(key)
    return bool(row and hintlib.OMPIO not in row.impls)


def _romio_rules(h: dict[str, str], stack: dict[str, Any], drop) -> None:
    ranks, hosts, fs = stack.get("ranks"), stack.get("hosts") or 1, (stack.get("fs") or "").lower()
    if fs != "gpfs":  # the GPFS driver has other defaults (romio_cb_read/write enable, ind_wr 4 MiB)
        for key in sorted(h):
            row = hintlib.lookup(key)
            if row and row.default is not None and row.kind != "output" and key not in STRIPING \
                    and h[key].lower() == row.default.lower():
                drop(key, "default", f"{key}={h[key]} is ROMIO's default", "adioi.h, ad_hints.c")
    if "cb_nodes" in h and ranks:
        n = int(h["cb_nodes"])
        if n > ranks or n <= 0:
            drop("cb_nodes", "cb_nodes-range", f"cb_nodes outside 1..{ranks} (the ranks that open the file) is "
                 f"reset to {ranks}",
                 "ad_hints.c", after=str(ranks))
    if "cb_nodes" in h:
        per_host = _per_host(h.get("cb_config_list", "*:1"))
        if per_host is not None and int(h["cb_nodes"]) > per_host * hosts:
            clip = per_host * hosts
            drop("cb_nodes", "cb_config_list-clip",
                 f"cb_nodes clipped to cb_config_list {h.get('cb_config_list', '*:1')}: {per_host} aggregator"
                 f"{'s' if per_host > 1 else ''} per host x {hosts} host{'s' if hosts > 1 else ''}",
                 "ad_open.c:build_cb_config_list", after=str(clip))
    if ranks and "cb_nodes" in h:
        per_host = _per_host(h.get("cb_config_list", "*:1"))
        default = min(ranks, per_host * hosts) if per_host is not None else ranks
        if int(h["cb_nodes"]) == default:
            drop("cb_nodes", "default", f"cb_nodes={default} is what ROMIO picks by default here",
                 "ad_open.c:build_cb_config_list")
    ops = stack.get("ops") or []
    count = stack.get("stripe_count")
    if fs == "lustre" and ops and set(ops) <= {"write"}:
        if "cb_buffer_size" in h:
            drop("cb_buffer_size", "lustre-write-buffer", "cb_buffer_size does not act on ROMIO's Lustre "
                 "collective writes (each round writes one stripe per aggregator)", "ad_lustre_wrcoll.c")
        if "cb_nodes" in h and count and int(count) > 0:
            n, count = int(h["cb_nodes"]), int(count)
            ratio = int(h.get("romio_lustre_co_ratio", "1"))
            eff = count * min(n // count, ratio) if n >= count else max(d for d in range(1, n + 1) if count % d == 0)
            if eff != n:
                drop("cb_nodes", "lustre-stripe-clip", f"cb_nodes {n} becomes {eff} write aggregators on a file "
                     f"of stripe count {count} (co_ratio {ratio})",
                     "ad_lustre_aggregate.c:ADIOI_LUSTRE_Get_striping_info", after=str(eff))


def canonical(settings: Settings, stack: dict[str, Any]) -> Settings:
    """What the stack will do with `settings`, as settings: equal results mean equal configurations."""
    return explain(settings, stack)[0]
