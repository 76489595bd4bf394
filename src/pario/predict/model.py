"""The model: a phase's time as a sum of costs (metadata, collective calls, the two-phase exchange,
the data, the application's fixed part), the data part the slowest of its limits (the writers'
own chain of calls, locks and bytes; the nodes' network; the servers; the file system). Every
term is a named mechanism of predict/mechanisms.py; what the model cannot capture is flagged on
the prediction, and its interval and basis judged, by predict/basis.py."""
from __future__ import annotations

from dataclasses import dataclass, field

from pario.predict import basis
from pario.predict import mechanisms as mech
from pario.predict.basis import LOCKING, Reader
from pario.predict.pattern import Geometry, Pattern, geometry, layout
from pario.predict.system import System

MPIIO_APIS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")
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


def _two_phase(p: Reader, pat: Pattern, geo: Geometry, flags: list) -> bool:
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


def _aggregators(p: Reader, pat: Pattern, count: int) -> int:
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


def _ceilings(p: Reader, pat: Pattern, total: float, nodes: int, servers: float, wide: bool) -> list[Term]:
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


def _metadata(p: Reader, pat: Pattern, geo: Geometry, count: int) -> tuple[list[Term], list[Term]]:
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
    p, flags = Reader(system), []  # type: Reader, list[tuple[str, str]]
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
    basis.flag_common(p, pat, geo, path, aggregators, flags)
    basis.flag_basis(p, binding, data.name, flags)
    width, rests_on = basis.interval(p, binding, data.name, len(flags))
    return Prediction(seconds, geo.total, seconds / width, seconds * width, binding, costs, limits, flags, rests_on,
                      path, aggregators, stripes, dict(p.used))


def _ceph_objects(p: Reader, pat: Pattern, geo: Geometry, count: int, unit: int) -> int:
    """The objects one of the phase's CephFS files has data in (platform.cephfs.objects_of): the
    layout's stripe count for a file within one object set, more for a larger one (a 128 MiB file at
    stripe count 1 and Ceph's 4 MiB objects is 32 objects, spread by CRUSH over the servers)."""
    from pario.platform.cephfs import DEFAULT, objects_of
    obj = pat.object_size or (p("object_size") if "object_size" in p.system.params else DEFAULT["object_size"])
    file_bytes = int(geo.total / max(1, geo.files))
    return max(1, objects_of(file_bytes, count, unit, int(obj))) if file_bytes else count


def _skips_check(p: Reader, pat: Pattern) -> bool:
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


def _core_share(p: Reader, pat: Pattern) -> float:
    cores = p.system.params.get("cores")
    if cores is None:
        return 1.0
    return mech.shared_cores(pat.ranks_per_node, p("cores"))


def _serving(p: Reader, kind: str, count: int, files: int) -> float:
    """The servers a phase's `files` files of `count` objects each keep busy, as the inverse of the
    busiest one's share, for the independent and the two-phase path alike: CephFS draws each
    object's server (CRUSH: crush_load_share); elsewhere the objects spread round-robin over the
    active servers (server_load_share once they outnumber them); GPFS stripes over every server."""
    servers = mech.active_servers(p("servers"), count, files, kind == "gpfs")
    objects = files * count
    if kind == "cephfs":
        return round(1 / mech.crush_load_share(p("servers"), objects), 2)
    if objects > servers and kind != "gpfs":
        return max(1, round(1 / mech.server_load_share(servers, objects)))
    return servers


def _independent(p: Reader, pat: Pattern, geo: Geometry, count: int, lock_unit: int, pbw: float,
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
        basis.flag_lock_cost(p, flags)
        basis.flag_lock_spread(p, name, count, flags)
    servers = _serving(p, kind, count, geo.files)
    limits = [Term(name, chain, "; ".join(detail))]
    if p.cached and geo.writers > geo.files:  # the ranks of a file copy into the page cache in turn
        sharing_ranks = geo.writers // max(1, geo.files)
        limits.append(Term("one writer at a time", mech.writers_in_turn(
            geo.total / max(1, geo.files), calls * sharing_ranks, p("process_bw"), p("call_latency")),
            f"{sharing_ranks} ranks write one file: each buffered write holds the file's inode lock"))
    return limits + _ceilings(p, pat, geo.total, geo.writer_nodes, servers, kind == "gpfs")


def _collective(p: Reader, pat: Pattern, geo: Geometry, count: int, size: int, costs: list[Term],
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
            basis.flag_lock_cost(p, flags)
    name = "lock contention" if shared and chain > 2 * geo.total / aggs / pbw else "aggregators"
    basis.flag_lock_spread(p, name, count, flags)
    servers = _serving(p, kind, count, 1)
    return aggs, [Term(name, chain, detail)] + _ceilings(p, pat, geo.total, agg_nodes, servers, kind == "gpfs")


def _subfiles(p: Reader, pat: Pattern, geo: Geometry, costs: list[Term], flags: list):
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
