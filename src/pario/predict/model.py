"""The model: a phase's time as a sum of costs (metadata, collective calls, the two-phase exchange,
the data, the application's fixed part), the data part the slowest of its limits (the writers'
own chain of calls, locks and bytes; the nodes' network; the servers; the file system). Every
term is a named mechanism of predict/mechanisms.py; what the model cannot capture is flagged on
the prediction, decided from the pattern and the system before any figure is compared."""
from __future__ import annotations

from dataclasses import dataclass, field

from pario.predict import mechanisms as mech
from pario.predict.pattern import Geometry, Pattern, geometry, layout
from pario.predict.system import System

MPIIO_APIS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")
LOCKING = ("lustre", "gpfs", "beegfs", "cephfs")
# The interval's width by the status of the figures a prediction uses (a stated band, not a
# statistical one: benchmarks/predict/RESULTS.md records how often the published figure fell in it),
# at least the spread a calibration measured for them (system.Param.spread).
WIDTH = {"calibrated": 1.3, "stated": 1.5, "assumed": 2.0, "default": 3.0}
FLAG_WIDTH, MAX_WIDTH = 1.3, 5.0
CAVEAT = ("other jobs share the file system: the model predicts an unloaded system, and a loaded "
          "one is slower (ARCHER's seed: 'huge variance in results')")


@dataclass
class Term:
    name: str          # what binds when this term is the largest: a limit's name
    seconds: float
    detail: str


@dataclass
class Prediction:
    seconds: float
    total: float                        # bytes moved (0: metadata only)
    low: float                          # seconds, the interval
    high: float
    binding: str
    costs: list[Term]                   # the terms summed
    limits: list[Term]                  # the data part's limits (their max is its cost)
    flags: list[tuple[str, str]]        # (code, what the model does not capture here)
    basis: str                          # stated hardware | calibrated | assumed figures | pario defaults
    path: str                           # independent | two-phase | serial | subfiles | metadata
    aggregators: int | None
    stripe_count: int
    used: dict[str, str] = field(default_factory=dict)   # parameter -> its status

    @property
    def bandwidth(self) -> float:
        return self.total / self.seconds if self.seconds > 0 else 0.0


class _Reader:
    """The system's figures, recording which ones a prediction used (for its basis and interval)."""

    def __init__(self, system: System):
        self.system = system
        self.used: dict[str, str] = {}
        self.servers_cap = True   # the system's server count limits the servers the files reach
        self.cached = False       # a local page cache takes the writes: the device does not pace them

    def __call__(self, name: str):
        self.used[name] = self.system.status(name)
        return self.system[name]


def _hint_int(hints: dict[str, str], key: str, default: int) -> int:
    try:
        return int(hints[key])
    except (KeyError, ValueError):
        return default


def _per_node(text: str) -> int:
    """'*:2' -> 2 (the first entry's count; '*' alone means 1)."""
    head = str(text).split(",")[0]
    _, _, n = head.partition(":")
    return int(n) if n.strip().isdigit() else 1


def _two_phase(p: _Reader, pat: Pattern, geo: Geometry, flags: list) -> bool:
    """Does a collective call go through two-phase I/O? romio_cb_write/read decides; 'automatic' is
    the MPI-IO library's heuristic. ROMIO's drivers agree where one call's ranges of the ranks
    interleave (collective buffering: the interleave test of ad_write_coll.c and ad_gpfs_wrcoll.c,
    do_collect of ad_lustre_wrcoll.c) and disagree where they do not (generic and GPFS drivers:
    independent; Lustre driver: collective unless romio_lustre_coll_threshold is set and exceeded).
    There the model takes the system's driver's rule and flags the choice (predict() keeps the flag
    only when the other choice would cost more than 1.5x apart)."""
    impl = p("impl")
    hint = pat.hints.get(f"romio_cb_{pat.op}", "").lower()
    if hint in ("enable", "disable"):
        return hint == "enable"
    if impl == "cray" and not hint:
        return True  # Cray MPICH: collective buffering on for collective calls (its documented default)
    if impl == "ompio":
        flags.append(("automatic", "Open MPI's OMPIO chooses its collective component by itself (fcoll)"))
        return pat.ranks > 2
    if geo.within_call:
        return True
    driver = p("driver")
    rule = "collective (Lustre driver)" if driver == "lustre" else "independent (ROMIO's generic and GPFS rule)"
    flags.append(("automatic", f"romio_cb_{pat.op}=automatic on calls whose ranges do not interleave: ROMIO's "
                               f"drivers disagree, the model takes {rule}; the MPI-IO library's own heuristic "
                               "may choose the other"))
    return driver == "lustre"


def _aggregators(p: _Reader, pat: Pattern, count: int) -> int:
    hints, impl = pat.hints, p("impl")
    if impl == "cray":
        return mech.cray_aggregators(count, _hint_int(hints, "cray_cb_nodes_multiplier", 1), pat.ranks)
    per_node = _per_node(hints.get("cb_config_list") or p("cb_config_list"))
    cb_nodes = _hint_int(hints, "cb_nodes", 0) or None
    if impl == "ompio":
        return max(1, min(pat.ranks // 8, count if p("driver") == "lustre" else pat.ranks)) or 1
    n = mech.config_list_aggregators(pat.nodes, pat.ranks_per_node, per_node, cb_nodes)
    if p("driver") == "lustre":
        co = _hint_int(hints, "romio_lustre_co_ratio", p("co_ratio")) if pat.op == "write" else 1
        return mech.romio_lustre_aggregators(n, count, co)
    return n


def _ceilings(p: _Reader, pat: Pattern, total: float, nodes: int, servers: int, wide: bool) -> list[Term]:
    rd = pat.op == "read"
    node_bw = p("node_read_bw" if rd else "node_bw")
    out = [Term("per-node network", total / (nodes * node_bw),
                f"{nodes} node{'s' if nodes > 1 else ''} x {node_bw / 2**30:.3g} GiB/s")]
    if p.cached:
        return out
    server_bw = p("server_read_bw" if rd else "server_bw")
    out.append(Term("servers", total / (servers * server_bw),
                    f"{servers} active {'server' if servers == 1 else 'servers'} x {server_bw / 2**30:.3g} GiB/s"
                    + (" (wide striping)" if wide else "")))
    fs = p.system.params.get("fs_read_bw" if rd else "fs_bw")
    if fs is not None:
        p("fs_read_bw" if rd else "fs_bw")
        out.append(Term("file system", total / fs.value, f"the whole file system, {fs.value / 2**30:.3g} GiB/s"))
    return out


def _metadata(p: _Reader, pat: Pattern, geo: Geometry, count: int) -> tuple[list[Term], list[Term]]:
    files, stripes = geo.files, count if p("kind") == "lustre" else 1
    serial = mech.metadata_serial(files / geo.writers, stripes, p("file_cost"), p("stripe_cost"))
    md = [Term("metadata (one process)", serial,
               f"{files / geo.writers:.0f} files x (per file + {stripes} stripe objects)")]
    if geo.writers > 1:
        md.append(Term("metadata (servers)", mech.metadata_concurrent(files, stripes, p("servers"), p("md_rate"),
                                                                      p("stripe_cost")),
                       f"{files} files at the metadata server, {stripes} objects each"))
    servers = mech.active_servers(p("servers"), stripes, files)
    limits = [Term("per-process", geo.per_rank / p("process_read_bw" if pat.op == "read" else "process_bw"),
                   "one process's rate")] + _ceilings(p, pat, geo.total, geo.writer_nodes, servers, False)
    return [max(md, key=lambda t: t.seconds)], limits


def predict(system: System, pat: Pattern) -> Prediction:
    """The predicted time of one phase, its interval, what binds, and what the model does not capture."""
    p, flags = _Reader(system), []  # type: _Reader, list[tuple[str, str]]
    kind = p("kind")
    geo = geometry(pat)
    count, size = layout(pat, p("stripe_count"), p("stripe_size"), p("servers"), cap=kind != "cephfs")
    wanted, stripes = layout(pat, p("stripe_count"), p("stripe_size"), 1 << 30)[0], count
    if kind == "cephfs":  # a file's objects: its stripe count per object set, a set per count x object_size
        wanted = count = _ceph_objects(p, pat, geo, count, size)
    # the server count limits the servers the files reach: always under GPFS's wide striping; on CephFS
    # once a file has two objects (CRUSH draws each one's server: the busiest one's share depends on
    # the count, crush_load_share); elsewhere where the stripes asked for outnumber the servers
    p.servers_cap = kind == "gpfs" or wanted * geo.files > (1 if kind == "cephfs" else p("servers"))
    lock_unit = p("lock_unit") if kind == "gpfs" else size
    if kind == "local" and pat.op == "write" and p.system.params.get("dirty_limit") is not None:
        p.cached = mech.page_cache_absorbs(geo.total / max(1, geo.writer_nodes), p("dirty_limit"),
                                           bool(pat.case.get("fsync")))
    rd = pat.op == "read"
    pbw = p("process_read_bw" if rd else "process_bw")
    costs: list[Term] = []
    aggregators: int | None = None
    if pat.metadata:
        path = "metadata"
        costs, limits = _metadata(p, pat, geo, count)
    else:
        api, collective = pat.case["backend"], bool(pat.case.get("collective"))
        two_phase = api in MPIIO_APIS and collective and pat.case["strategy"] == "shared" \
            and _two_phase(p, pat, geo, flags)
        if api == "adios2":
            path, limits, aggregators = _subfiles(p, pat, geo, costs, flags)
        elif two_phase:
            path = "two-phase"
            aggregators, limits = _collective(p, pat, geo, count, size, costs, flags)
        else:
            path = "serial" if geo.writers == 1 else "independent"
            limits = _independent(p, pat, geo, count, lock_unit, pbw, costs, flags)
            if api in MPIIO_APIS and collective and not _skips_check(p, pat):
                costs.append(Term("collective calls", geo.coll_calls * p("collective_call_cost")
                                  / _core_share(p, pat),
                                  f"{geo.coll_calls:.0f} collective calls with collective buffering off"))
        if api in MPIIO_APIS and geo.writers > geo.files:  # ranks share a file: MPI_File_open/close on them all
            costs.append(Term("collective open", p("open_cost") / _core_share(p, pat),
                              "MPI_File_open and MPI_File_close of a file shared by "
                              f"{geo.writers // max(1, geo.files)} ranks"))
        opens = geo.files / max(1, geo.writers)
        costs.append(Term("metadata", mech.metadata_serial(opens, count if kind == "lustre" else 1, p("file_cost"),
                                                           p("stripe_cost")) if opens >= 1 else 0.0,
                          f"opening {geo.files} file{'s' if geo.files > 1 else ''}"))
    data = max(limits, key=lambda t: t.seconds)
    costs.append(Term(data.name, data.seconds, data.detail))
    if pat.fixed is not None:
        costs.append(Term("application's fixed part", pat.fixed, "I/O time that scales with nothing here"))
    seconds = sum(t.seconds for t in costs)
    binding = max(costs, key=lambda t: t.seconds).name
    if any(code == "automatic" for code, _ in flags) and p("impl") != "ompio":
        other = predict(system, _with_hint(pat, f"romio_cb_{pat.op}", "disable" if path == "two-phase" else "enable"))
        if max(other.seconds, seconds) < AUTOMATIC_MATTERS * min(other.seconds, seconds):
            flags = [f for f in flags if f[0] != "automatic"]  # either choice costs about the same here
    _flag_common(p, pat, geo, path, aggregators, flags)
    _flag_basis(p, binding, data.name, flags)
    rests = {n: p.used[n] for n in _rests(p, binding, data.name) if n in p.used}
    statuses = set(rests.values()) or set(p.used.values())
    # a calibrated figure's spread (its fits over the calibration's rounds) widens the band where it binds
    spread = max((system.params[n].spread for n in (rests or p.used)), default=1.0)
    width = min(max(max(WIDTH[s] for s in statuses), spread) * FLAG_WIDTH ** len(flags), MAX_WIDTH)
    basis = ("pario defaults" if "default" in statuses else "assumed figures" if "assumed" in statuses
             else "calibrated" if "calibrated" in statuses else "stated hardware")
    return Prediction(seconds, geo.total, seconds / width, seconds * width, binding, costs, limits, flags, basis,
                      path, aggregators, stripes, dict(p.used))


def _ceph_objects(p: _Reader, pat: Pattern, geo: Geometry, count: int, unit: int) -> int:
    """The objects one of the phase's CephFS files has data in (platform.cephfs.objects_of): the
    layout's stripe count for a file within one object set, more for a larger one (a 128 MiB file at
    stripe count 1 and Ceph's 4 MiB objects is 32 objects, spread by CRUSH over the servers)."""
    from pario.platform.cephfs import DEFAULT, objects_of
    obj = pat.object_size or (p("object_size") if "object_size" in p.system.params else DEFAULT["object_size"])
    file_bytes = int(geo.total / max(1, geo.files))
    return max(1, objects_of(file_bytes, count, unit, int(obj))) if file_bytes else count


def _skips_check(p: _Reader, pat: Pattern) -> bool:
    """A collective call with romio_cb_write/read=disable goes straight to independent I/O: ROMIO
    gathers the ranks' offsets (MPI_Allgather or MPI_Allreduce, to test whether they interleave)
    only when collective buffering is not disabled (ad_write_coll.c, ad_gpfs_wrcoll.c: "only check
    for interleaving if cb_write isn't disabled"), so such a call synchronises nothing; 'automatic'
    pays that exchange on every call even when it then writes independently."""
    return p("impl") in ("romio", "cray") and pat.hints.get(f"romio_cb_{pat.op}", "").lower() == "disable"


AUTOMATIC_MATTERS = 1.5   # the automatic flag is kept where the two choices are further apart than this


def _with_hint(pat: Pattern, key: str, value: str) -> Pattern:
    import dataclasses
    case = dict(pat.case)
    case["hints"] = {**(pat.case.get("hints") or {}), key: value}
    return dataclasses.replace(pat, case=case)


def _core_share(p: _Reader, pat: Pattern) -> float:
    cores = p.system.params.get("cores")
    if cores is None:
        return 1.0
    return mech.shared_cores(pat.ranks_per_node, p("cores"))


def _independent(p: _Reader, pat: Pattern, geo: Geometry, count: int, lock_unit: int, pbw: float,
                 costs: list[Term], flags: list) -> list[Term]:
    kind, calls = p("kind"), geo.calls_per_rank
    share = _core_share(p, pat)
    pbw *= share
    chain = geo.per_rank / pbw
    detail = [f"{geo.per_rank / 2**20:.4g} MiB at {pbw / 2**30:.3g} GiB/s"]
    if pat.buffer:
        copied = calls
        calls = mech.buffered_calls(int(calls), int(geo.per_rank), pat.buffer)
        chain += copied * p("buffer_call_cost")
        detail.append(f"{copied:.0f} calls copied into a {pat.buffer >> 20} MiB buffer, {calls:.0f} written")
    chain += mech.call_time(calls, p("call_latency")) / share
    detail.append(f"{calls:.0f} calls" + (f"; {share:.2g} of a core per rank" if share < 1 else "")
                  + ("; into the page cache, below the node's dirty limit" if p.cached else ""))
    sharing = mech.writers_per_lock_unit(geo.piece, lock_unit, geo.writers, geo.interleaved)
    name = "per-process"
    if sharing > 1 and kind in LOCKING and pat.op == "write":
        locks = mech.lock_time(calls, p("lock_cost"), count if kind == "lustre" else 1)
        chain += locks
        detail.append(f"{sharing} writers per {lock_unit >> 20 or lock_unit} {'MiB' if lock_unit >> 20 else 'B'} "
                      f"lock unit ({locks:.3g} s of lock conflicts)")
        name = "lock contention" if locks > chain / 2 else name
        _flag_lock_cost(p, flags)
        _flag_lock_spread(p, name, count, flags)
    objects = geo.files * count
    servers = mech.active_servers(p("servers"), count, geo.files, kind == "gpfs")
    if kind == "cephfs":  # CRUSH places each object on a server of its own drawing: the busiest one's share
        servers = round(1 / mech.crush_load_share(p("servers"), objects), 2)  # type: ignore[assignment]
    elif objects > servers and kind != "gpfs":  # the busiest server carries a bigger share
        servers = max(1, round(1 / mech.server_load_share(servers, objects)))
    return [Term(name, chain, "; ".join(detail))] + _ceilings(p, pat, geo.total, geo.writer_nodes, servers,
                                                              kind == "gpfs")


def _collective(p: _Reader, pat: Pattern, geo: Geometry, count: int, size: int, costs: list[Term],
                flags: list) -> tuple[int, list[Term]]:
    kind, impl, hints = p("kind"), p("impl"), pat.hints
    aggs = _aggregators(p, pat, count)
    agg_nodes = min(pat.nodes, aggs)
    share = _core_share(p, pat)
    costs.append(Term("collective calls", geo.coll_calls * p("collective_call_cost") / share,
                      f"{geo.coll_calls:.0f} collective calls"
                      + (f" ({pat.ranks_per_node} ranks on {p('cores')} cores)" if share < 1 else "")))
    costs.append(Term("two-phase exchange", mech.exchange_time(geo.total, pat.nodes, agg_nodes, p("node_bw"),
                                                               p("copy_bw")),
                      f"{pat.ranks} ranks to {aggs} aggregator{'s' if aggs > 1 else ''} on {agg_nodes} "
                      f"node{'s' if agg_nodes > 1 else ''}"))
    buffer = size if (p("driver") == "lustre" and impl == "romio" and pat.op == "write") else \
        _hint_int(hints, "cb_buffer_size", p("cb_buffer_size"))
    per_call = geo.total / max(1.0, geo.coll_calls) / aggs
    n_rounds = geo.coll_calls * mech.rounds(per_call, buffer)
    pbw = p("process_read_bw" if pat.op == "read" else "process_bw")
    lockahead = impl == "cray" and hints.get("cray_cb_write_lock_mode") == "2" and pat.op == "write"
    if lockahead:
        pbw *= p("lockahead_efficiency")
        flags.append(("lockahead", "Cray lockahead's cost and gain are one calibrated efficiency, not a mechanism"))
    chain = (geo.total / aggs) / pbw + mech.call_time(n_rounds, p("call_latency"))
    detail = f"{aggs} aggregators x {pbw / 2**30:.3g} GiB/s, {n_rounds:.0f} rounds each"
    shared = False
    if kind in LOCKING and pat.op == "write":
        misaligned = p("driver") == "generic" and "striping_unit" not in hints
        per_stripe = aggs / count > 1 and kind == "lustre" and not lockahead and (
            impl == "cray" or _hint_int(hints, "romio_lustre_co_ratio", p("co_ratio")) > 1)
        shared = misaligned or per_stripe
        if shared:
            locks = mech.lock_time(n_rounds, p("lock_cost"), count if kind == "lustre" else 1)
            chain += locks
            why = "file domains not aligned to the stripes" if misaligned else "several aggregators per stripe"
            detail += f"; {why}: {locks:.3g} s of lock conflicts"
            _flag_lock_cost(p, flags)
    name = "lock contention" if shared and chain > 2 * geo.total / aggs / pbw else "aggregators"
    _flag_lock_spread(p, name, count, flags)
    servers = mech.active_servers(p("servers"), count, 1, kind == "gpfs")
    return aggs, [Term(name, chain, detail)] + _ceilings(p, pat, geo.total, agg_nodes, servers, kind == "gpfs")


def _subfiles(p: _Reader, pat: Pattern, geo: Geometry, costs: list[Term], flags: list):
    """ADIOS2 BP5: NumAggregators writers (default one per node), each its own subfile, fed by
    shared memory on its node (TwoLevelShm)."""
    lib = pat.case.get("lib") or {}
    try:
        aggs = max(1, min(pat.ranks, int(lib.get("NumAggregators", pat.nodes))))
    except ValueError:
        aggs = pat.nodes
    costs.append(Term("two-phase exchange", geo.total / aggs / p("copy_bw"),
                      f"shared-memory gather to {aggs} aggregators"))
    pbw = p("process_read_bw" if pat.op == "read" else "process_bw")
    servers = mech.active_servers(p("servers"), 1, aggs, p("kind") == "gpfs")
    chain = Term("aggregators", geo.total / aggs / pbw, f"{aggs} subfiles x {pbw / 2**30:.3g} GiB/s")
    return "subfiles", [chain] + _ceilings(p, pat, geo.total, min(pat.nodes, aggs), servers, False), aggs


# The figures each limit rests on (for the flag of a binding limit nobody stated or measured).
RESTS_ON = {"servers": ("servers", "server_bw", "server_read_bw"), "per-node network": ("node_bw", "node_read_bw"),
            "per-process": ("process_bw", "process_read_bw", "call_latency"),
            "aggregators": ("process_bw", "process_read_bw"), "lock contention": ("lock_cost",),
            "file system": ("fs_bw", "fs_read_bw"), "two-phase exchange": ("node_bw", "copy_bw"),
            "collective calls": ("collective_call_cost",), "collective open": ("open_cost",),
            "metadata": ("file_cost", "stripe_cost"),
            "metadata (one process)": ("file_cost", "stripe_cost"),
            "metadata (servers)": ("md_rate", "stripe_cost")}


def _flag_lock_cost(p: _Reader, flags: list) -> None:
    if p.used.get("lock_cost") in ("assumed", "default"):
        flags.append(("lock-cost-unknown", "lock conflicts are priced with a lock_cost neither stated nor "
                                           "calibrated for this system"))


def _rests(p: _Reader, binding: str, data: str) -> tuple[str, ...]:
    """The figures the binding limit rests on: the servers' count only where it caps the servers the
    pattern's files reach (a file of 2 stripes on a system of at least 2 servers uses 2, however many
    the system has)."""
    names = RESTS_ON.get(binding if binding in RESTS_ON else data, ())
    return tuple(n for n in names if n != "servers" or p.servers_cap)


def _flag_lock_spread(p: _Reader, name: str, count: int, flags: list) -> None:
    """Lock conflicts bind and are spread over several Lustre stripe objects: the model divides them
    evenly among the objects (mechanisms.lock_time), an assumption no source gives."""
    if name == "lock contention" and count > 1 and p("kind") == "lustre":
        flags.append(("lock-spread", f"lock conflicts over {count} stripe objects: the model divides them evenly "
                                     "among the objects; how they fall with the stripe count is not modelled"))


def _flag_basis(p: _Reader, binding: str, data: str, flags: list) -> None:
    """The binding limit rests on a figure that is neither stated nor calibrated."""
    names = [n for n in _rests(p, binding, data) if n in p.used and p.used[n] in ("assumed", "default")]
    if names:
        flags.append(("assumed-limit", f"the binding limit ({binding}) rests on {', '.join(names)}, "
                                       "neither stated nor calibrated"))


def _flag_common(p: _Reader, pat: Pattern, geo: Geometry, path: str, aggs: int | None, flags: list) -> None:
    """What the model does not capture for this pattern on this system (decided before any figure)."""
    memory = p.system.params.get("memory")
    per_node = geo.total / max(1, pat.nodes)
    if pat.op == "write" and not pat.case.get("fsync") and (
            pat.case.get("backend") == "adios2" or (memory is not None and per_node < memory.value / 2)):
        flags.append(("caching", "client caching can absorb these writes and report above the hardware"))
    if pat.assumed:
        flags.append(("assumed-scale", "not stated, assumed: " + ", ".join(pat.assumed)))
    if pat.volume is not None and pat.fixed is None:
        flags.append(("fixed-unknown", "the application's I/O time that does not scale is unknown (taken as 0)"))
    if pat.op == "read" and path in ("independent", "serial") and geo.interleaved and p("kind") in LOCKING:
        unit = p("lock_unit") if p("kind") == "gpfs" else p("stripe_size")
        if geo.piece < unit:
            flags.append(("sub-block-reads", "interleaved reads smaller than the lock unit: server seeks and "
                                              "prefetching are not modelled"))
    servers = max(1, min(p("servers"), geo.files * (pat.stripe_count or p("stripe_count"))))
    known = p.system.status("servers") in ("stated", "calibrated")
    if path == "independent" and known and geo.writers / servers > 64 and p("kind") != "local":
        flags.append(("server-streams", f"{geo.writers // servers} streams per server: seek contention is not "
                                        "modelled"))
    stripes = pat.stripe_count or p("stripe_count")
    size = pat.case.get("file_size") or 0
    holding = -(-size // (pat.stripe_size or p("stripe_size"))) if size else stripes
    if path == "metadata" and p("kind") == "lustre" and stripes > max(1, holding):
        flags.append(("empty-objects", f"{stripes - holding} of each file's {stripes} stripe objects hold none of "
                                       f"its {size} bytes: they are only queried, and the model prices each like "
                                       "one that holds data"))
    if path == "metadata" and geo.writers > 1 and stripes > 1 and p("kind") == "lustre":
        flags.append(("md-queueing", f"{geo.writers} processes querying {stripes} stripe objects per file: "
                                     "queueing at the OSTs is not modelled"))
    if aggs and pat.ranks / aggs > 256:
        flags.append(("fan-in", f"{pat.ranks // aggs} ranks per aggregator: incast at the aggregators is not "
                                "modelled"))
