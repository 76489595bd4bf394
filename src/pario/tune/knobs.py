"""The default space of `pario tune`: the knobs that exist and take effect for this case on this stack
(the MPI-IO layer, collective or independent calls, aggregators and collective buffers, ROMIO's
collective buffering and data sieving, Lustre striping, the file strategy, the library layers'
knobs), the ones left out and why; and a user's --space / --space-file narrowing it."""
from __future__ import annotations

from typing import Any

from pario.model.case import Case
from pario.model.errors import ParioError, did_you_mean
from pario.model.tuning import Dropped
from pario.settings import hints as hintlib
from pario.settings.knobs import LIBRARIES, library_options
from pario.settings.model import check_one, parse_bytes
from pario.tune.space import DEFAULT, HINT_LAYERS, Config, Context, Knob, Space, strategy_label

POWERS = (1, 2, 4, 8, 16, 32, 64)
MIB = 1 << 20


def context(case: Case, ranks: int, stack: dict[str, Any], caps: list[str], objective: str,
            io: str | None, nodes: int | None = None) -> Context:
    """The facts of a space from the case as given and a `pario stack` document; `nodes`: the trials'
    --nodes, which decides the hosts over the allocation's."""
    mpi = stack.get("mpi") or {}
    comps = mpi.get("io_components") or []
    romio = next((c for c in ("romio321", "romio341") if c in comps), None)
    slurm = stack.get("slurm") or {}
    hosts = int(slurm.get("nodes") or 1) if str(slurm.get("nodes") or "1").isdigit() else 1
    hosts = nodes or hosts
    lustre = stack.get("lustre") or {}
    return Context(
        backend=case["backend"], strategy=strategy_label(case), collective=bool(case.get("collective")),
        ops=tuple(case.get("ops") or ()), objective=objective, ranks=ranks, xfer=int(case.get("xfer") or MIB),
        pattern=case.get("pattern", "segmented"), view=bool(case.get("view")), segments=int(case.get("segments", 1)),
        odirect=bool(case.get("odirect")), block=int(case.get("block") or 0), hosts=hosts,
        flavour=mpi.get("flavour") or "unknown", impl=mpi.get("mpiio") or "romio", romio_component=romio,
        io_fixed=io, fs=((stack.get("fs") or {}).get("type") or "unknown"),
        osts=int(lustre.get("ost_count") or (stack.get("cephfs") or {}).get("servers") or 0),
        caps=frozenset(caps), lib={str(k): str(v) for k, v in (case.get("lib") or {}).items()})


def build(ctx: Context, only: list[str] | None = None, values: dict[str, list[str]] | None = None) -> Space:
    """The space; `only`: the knobs to search (the others keep the default configuration's value);
    `values`: the values to try per knob (a space file)."""
    sp = Space(ctx)
    _strategy(sp)
    _collective(sp)
    _mpiio(sp)
    _lustre(sp)
    _library(sp)
    if ctx.backend == "posix" and ctx.xfer % 4096 == 0 and ctx.block % 4096 == 0:
        sp.knobs.append(Knob("odirect", _first(str(ctx.odirect).lower(), ("true", "false")), "case",
                             doc="POSIX O_DIRECT: no page cache"))
    if only is not None or values:
        _narrow(sp, only, values or {})
    _drop_inert(sp)
    return sp


def _first(value: str, choices: tuple[str, ...]) -> tuple[str, ...]:
    return (value,) + tuple(c for c in choices if c != value)


def _strategy(sp: Space) -> None:
    ctx = sp.ctx
    if ctx.backend not in ("posix", "mpiio", "null"):
        sp.dropped.append(Dropped("strategy", f"not searched for the {ctx.backend} layer (one shared file or "
                                               "directory is its point); compare layers with --suite layers"))
        return
    if ctx.strategy == "serial":
        return
    if ctx.ranks == 1:   # shared, fpp and shared+agg were one file three ways
        sp.dropped.append(Dropped("strategy", "1 rank: one file whatever the strategy (shared, fpp and an "
                                              "aggregated file are the same file)"))
        return
    choices = ["shared", "fpp"] + (["nfiles:2"] if ctx.ranks >= 4 else [])
    if ctx.hosts > 1:
        choices += ["per-node", "per-node+agg"]
    else:
        choices += ["shared+agg"]
        sp.dropped.append(Dropped("strategy=per-node", "one host: a file per node is the one shared file"))
    sp.knobs.append(Knob("strategy", _first(ctx.strategy, tuple(choices)), "case",
                         doc="files: one shared, one per rank, K, per node; +agg: a leader per file gathers"))


def _collective(sp: Space) -> None:
    ctx = sp.ctx
    if "collective" not in ctx.caps:
        return
    sp.knobs.append(Knob("collective", _first(str(ctx.collective).lower(), ("true", "false")), "case",
                         when=lambda c: not sp.strategy(c).endswith("+agg") and sp.strategy(c) != "serial",
                         doc="collective (*_all) or independent calls"))


def _mpiio(sp: Space) -> None:
    ctx = sp.ctx
    if ctx.backend not in HINT_LAYERS:
        return
    op = ctx.objective
    if ctx.flavour == "openmpi":
        if ctx.io_fixed:
            sp.dropped.append(Dropped("mca.io", f"fixed by --io {ctx.io_fixed}"))
        elif ctx.impl == "ompio" and ctx.romio_component:
            sp.knobs.append(Knob("mca.io", (DEFAULT, ctx.romio_component), "io", doc="Open MPI's MPI-IO layer"))
        elif ctx.impl == "romio":
            sp.knobs.append(Knob("mca.io", (DEFAULT, "ompio"), "io", doc="Open MPI's MPI-IO layer"))
        else:
            sp.dropped.append(Dropped("mca.io", "this Open MPI has no ROMIO io component (ompi_info)"))
    else:   # said, so that a reader of the README's Open MPI knobs sees why they are missing here
        why = (f"Open MPI's MCA parameters; this MPI is {ctx.flavour}, whose MPI-IO is ROMIO, tuned through "
               "its hints")
        sp.dropped += [Dropped("mca.io", why), Dropped("mca.fcoll", why)]
    has_romio = ctx.flavour != "openmpi" or ctx.impl == "romio" or bool(ctx.romio_component and not ctx.io_fixed)
    romio = lambda c: sp.impl(c) in ("romio", "cray")  # noqa: E731
    ompio = lambda c: sp.impl(c) == "ompio"  # noqa: E731
    coll = sp.collective
    sp.knobs.append(Knob(f"romio_cb_{op}", (DEFAULT, "enable", "disable"), "hint",
                         when=lambda c: romio(c) and coll(c), doc="ROMIO two-phase collective buffering"))
    if ctx.flavour == "openmpi":
        fcoll = ("vulcan", "individual") if ctx.fs == "lustre" else ("dynamic", "individual")
        sp.knobs.append(Knob("mca.fcoll", (DEFAULT,) + fcoll, "mca", when=lambda c: ompio(c) and coll(c),
                             doc="OMPIO's collective algorithm (individual: no aggregation)"))
    if ctx.pattern == "subarray" or (ctx.view and ctx.segments > 1):
        sp.knobs.append(Knob(f"romio_ds_{op}", (DEFAULT, "enable", "disable"), "hint",
                             when=lambda c: romio(c) and not sp.two_phase(c), doc="ROMIO data sieving"))
    elif has_romio:
        sp.dropped.append(Dropped(f"romio_ds_{op}", "contiguous requests: ROMIO sieves noncontiguous independent "
                                                     "requests only (ad_write_str.c, ad_read_str.c)"))
    per_host = -(-ctx.ranks // max(ctx.hosts, 1))
    lists = tuple(f"*:{n}" for n in POWERS[1:] if n <= per_host)
    if lists:
        sp.knobs.append(Knob("cb_config_list", (DEFAULT,) + lists, "hint",
                             when=lambda c: romio(c) and sp.two_phase(c), doc="ROMIO aggregators per host"))
    nodes = tuple(str(n) for n in POWERS if n <= ctx.ranks)[:5]
    if ctx.hosts > 1 or ctx.flavour == "openmpi":
        sp.knobs.append(Knob("cb_nodes", (DEFAULT,) + nodes, "hint",
                             when=lambda c: sp.two_phase(c) and (ompio(c) or ctx.hosts > 1),
                             doc="aggregators (ROMIO: clipped by cb_config_list)"))
    if ctx.hosts == 1 and has_romio:
        sp.dropped.append(Dropped("cb_nodes under ROMIO", "one host: cb_config_list *:1 clips it to 1; the "
                                                           "aggregator count is searched as cb_config_list *:N"))
    sizes = tuple(str(v) for v in (MIB, 4 * MIB, 64 * MIB))
    sp.knobs.append(Knob("cb_buffer_size", (DEFAULT,) + sizes, "hint", when=sp.two_phase,
                         doc="collective buffer per aggregator"))


def _lustre(sp: Space) -> None:
    ctx = sp.ctx
    if ctx.fs == "cephfs":
        _cephfs(sp)
        return
    if ctx.backend not in HINT_LAYERS:
        return
    if ctx.fs != "lustre":
        why = (f"not Lustre ({ctx.fs}): this file system has no striping; the striping hints are ignored "
               "(ad_fstype.c: no layout outside ad_lustre)")
        sp.dropped += [Dropped("striping_factor", why), Dropped("striping_unit", why)]
        return
    counts = sorted({1, min(ctx.osts or ctx.ranks, ctx.ranks), ctx.osts} - {0})
    sp.knobs.append(Knob("striping_factor", (DEFAULT,) + tuple(str(n) for n in counts), "hint",
                         doc="stripe count of the new file (set at creation)"))
    sp.knobs.append(Knob("striping_unit", (DEFAULT, str(MIB), str(4 * MIB)), "hint",
                         doc="stripe size of the new file (set at creation)"))


def _cephfs(sp: Space) -> None:
    """CephFS: the layout the files are created with (pario sets it; MPI-IO's striping hints do
    nothing there). Stripe count and stripe unit as on Lustre, and the object size, which decides
    how many objects a large file has and so how evenly CRUSH spreads it over the servers."""
    ctx = sp.ctx
    if ctx.backend not in ("posix", "mpiio") or ctx.strategy.startswith("per-node"):
        sp.dropped.append(Dropped("ceph.stripe_count", "the engine names these files at run time: pario cannot "
                                                       "create them with a layout (set it on the directory)"))
        return
    if ctx.backend in HINT_LAYERS:
        why = "ignored on CephFS: MPI-IO's drivers there set no layout (the ceph.* knobs set it)"
        sp.dropped += [Dropped("striping_factor", why), Dropped("striping_unit", why)]
    servers = ctx.osts or 1
    counts = sorted({1, min(servers, ctx.ranks), servers} - {0})
    sp.knobs.append(Knob("ceph.stripe_count", (DEFAULT,) + tuple(str(n) for n in counts), "layout",
                         doc="stripes of the new files (ceph.file.layout stripe_count)"))
    sp.knobs.append(Knob("ceph.stripe_unit", (DEFAULT, str(MIB), str(4 * MIB)), "layout",
                         doc="stripe unit of the new files"))
    sp.knobs.append(Knob("ceph.object_size", (DEFAULT, str(4 * MIB), str(64 * MIB)), "layout",
                         doc="object size of the new files (more objects spread wider)"))


def _library(sp: Space) -> None:
    ctx = sp.ctx
    if ctx.backend == "hdf5":
        _lib_knob(sp, "hdf5.alignment", ("1m", "4m"), None, "H5Pset_alignment")
        _lib_knob(sp, "hdf5.chunk", ("block",), "none", "chunked dataset, a chunk per block")
    elif ctx.backend == "netcdf4":   # the run reports the storage it got (nc_inq_var_chunking)
        _lib_knob(sp, "netcdf4.chunk", ("block",), "none", "chunked variable, a chunk per block")
    elif ctx.backend == "pnetcdf":
        _lib_knob(sp, "pnetcdf.mode", ("iput", "bput"), "blocking", "blocking or non-blocking")
    elif ctx.backend == "adios2" and ctx.hosts > 1:   # per node, as ARCHER2 advises it (8 per node)
        _lib_knob(sp, "adios2.NumAggregators", tuple(str(n * ctx.hosts) for n in POWERS if n * ctx.hosts <= ctx.ranks),
                  None, f"BP5 writers to storage: k per node x {ctx.hosts} nodes")
    elif ctx.backend == "adios2":
        _lib_knob(sp, "adios2.NumAggregators", tuple(str(n) for n in POWERS if n <= ctx.ranks), None,
                  "BP5 writers to storage")


def _lib_knob(sp: Space, key: str, choices: tuple[str, ...], unset: str | None, doc: str) -> None:
    """A library knob; `unset`: the library's own default by name, if it has one. A case that sets the
    knob itself (a job file's lib = {mode = "iput"}) has that value as its default configuration's:
    offered again as a candidate, it was a re-run of the default under another name (a guess, a trial)."""
    own = sp.ctx.lib.get(key.partition(".")[2])
    if own is None:
        values: tuple[str, ...] = (DEFAULT,) + choices
    else:
        values = (own,) + tuple(v for v in ((unset,) if unset else ()) + choices if not _same_value(v, own))
    if len(values) < 2:
        sp.dropped.append(Dropped(key, f"the case sets {own}; no other value to try here"))
        return
    sp.knobs.append(Knob(key, values, "lib", doc=doc))


def _same_value(a: str, b: str) -> bool:
    if a.lower() == b.lower():
        return True
    x, y = parse_bytes(a), parse_bytes(b)
    return x is not None and x == y


def _narrow(sp: Space, only: list[str] | None, values: dict[str, list[str]]) -> None:
    known = {k.key: k for k in sp.knobs}
    # a knob named twice is searched once (the tree walk sets and unsets each knob once)
    wanted = list(dict.fromkeys(only)) if only is not None else list(known)
    for key in list(values):
        if key not in wanted:
            wanted.append(key)
    kept: list[Knob] = []
    for key in wanted:
        way = hintlib.DIRECTION.get(key)
        if key not in known and way and way != sp.ctx.objective:
            sp.dropped.append(Dropped(key, f"a hint for {way}s; this session tunes the {sp.ctx.objective}s "
                                           f"(--objective {way} tunes the {way}s of a case that has both)"))
            continue
        knob = known.get(key)
        if knob is None:
            knob = _generic(sp, key, values.get(key))
        if key in values:
            vals = [str(v) for v in values[key]]
            if not vals:
                raise ParioError(f"space: {key} has no values; give at least one besides the default")
            if knob.kind == "hint":   # as the MPI reads it: '16mb' is 16 bytes, 'Enable' is ignored by ROMIO
                vals = [v if v == DEFAULT else hintlib.check(key, v, f"space: {key}") for v in vals]
            elif knob.kind == "lib":  # as the engine checks it: else every trial of the value failed, exit 0
                vals = [v if v == DEFAULT else _lib_value(key, v) for v in vals]
            knob = Knob(knob.key, (knob.values[0],) + tuple(v for v in vals if v != knob.values[0]), knob.kind,
                        knob.when, knob.doc)
        kept.append(knob)
    order = {k.key: i for i, k in enumerate(sp.knobs)}
    sp.knobs = sorted(kept, key=lambda k: order.get(k.key, len(order)))


def _lib_value(key: str, value: str) -> str:
    _, issue = check_one(key, value, "pario")
    if issue is not None:
        raise ParioError(f"space: {issue.message}")
    return value


def _generic(sp: Space, key: str, values: list[str] | None) -> Knob:
    """A knob the default space does not have: a setting of the case's library layer (the engine's
    option table, `pario bench --list`) or an MPI-IO hint from the catalogue."""
    head, _, name = key.partition(".")
    lib = library_options(head).get(name) if head == sp.ctx.backend else None
    if lib is not None and lib.kind != "output":
        vals = tuple(values or (c for c in lib.choices if c != lib.default))
        if not vals:
            raise ParioError(f"--space {key}: it takes {lib.kind} values; list the ones to try in a space file "
                             f"(--space-file, a [space] table: \"{key}\" = [\"...\", \"...\"])")
        own = sp.ctx.lib.get(name)
        return Knob(key, (own or DEFAULT,) + tuple(v for v in vals if not (own and _same_value(v, own))), "lib",
                    doc=lib.doc)
    if head in LIBRARIES and name and head != sp.ctx.backend:
        raise ParioError(f"--space {key}: a setting of the {head} layer; this case runs -a {sp.ctx.backend}")
    row = hintlib.lookup(key)
    out = next((d.reason for d in sp.dropped if d.key == key), None)
    if (row is None or row.kind == "output") and out:
        raise ParioError(f"--space {key}: not searched for this case on this stack: {out}")
    if row is None or row.kind == "output":
        names = [k.key for k in sp.knobs] + list(hintlib.CATALOGUE)
        raise ParioError(f"--space {key}: not a knob of this case or a known MPI-IO hint{did_you_mean(key, names)}; "
                         "`pario tune --dry-run` lists the default space")
    if sp.ctx.backend not in HINT_LAYERS:
        raise ParioError(f"--space {key}: MPI-IO hints apply to -a {'|'.join(HINT_LAYERS)}, not {sp.ctx.backend}")
    vals = tuple(values or row.values)
    if not vals:
        raise ParioError(f"--space {key}: it takes {row.kind} values; list the ones to try in a space file "
                         f"(--space-file, a [space] table: {key} = [\"...\", \"...\"])")
    impls = set(row.impls)
    return Knob(key, (DEFAULT,) + tuple(v for v in vals if v != row.default), "hint",
                when=lambda c: sp.impl(c) in impls, doc=row.doc)


def _drop_inert(sp: Space) -> None:
    """Knobs that apply under no configuration of the space, or that the stack ignores whatever
    their value (settings.equivalence), are dropped with the reason."""
    applicable: dict[str, Config] = {}
    for config in sp._walk(0, {}):
        for key in sp.effective(config):
            applicable.setdefault(key, config)
    for knob in list(sp.knobs):
        where = applicable.get(knob.key)
        if where is None:
            reason = next((sp.ignored(knob.key, v, {}) for v in knob.values if v != DEFAULT), None)
            sp.dropped.append(Dropped(knob.key, reason or f"does not apply to this case ({knob.doc})"))
            sp.knobs.remove(knob)
            continue
        if knob.kind == "hint":
            reasons = [sp.ignored(knob.key, v, where) for v in knob.values if v != DEFAULT]
            if reasons and all(reasons):
                sp.dropped.append(Dropped(knob.key, str(reasons[0])))
                sp.knobs.remove(knob)
