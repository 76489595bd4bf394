"""Findings about how an I/O library lays out its file (issue 29): chunks far smaller than the
calls, HDF5 metadata every rank reads itself, ADIOS2's data subfiles out of step with the nodes
and servers. The calls the program makes through the library (small pieces, a broken collective,
misaligned data) are rules/libraries.py's, whose helpers these share; the fix is said in the
library's own terms and, where pario has the knob, as settings `pario bench` replays."""
from __future__ import annotations

from pario.advise.costs import NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.libraries import NETCDF4, library_of
from pario.advise.rules.base import Candidate, Ctx, Plan, s
from pario.advise.rules.libraries import (
    _BACKEND,
    _LAYER,
    _TITLE,
    _label,
    _libs,
    _netcdf4_file,
    _per_rank_calls,
    _rendered,
    _under,
)
from pario.model.findings import Evidence, Fix
from pario.model.units import human


def chunks_too_small(ctx: Ctx) -> list[Candidate]:
    """Chunks far smaller than the calls that write them: each call touches many chunks. For a
    netCDF-4 record variable this is what the library's default chunking gives."""
    out = []
    for r in _libs(ctx, kind="object"):
        if r.library == "hdf5" and _netcdf4_file(ctx, r.file):
            continue   # said as the netCDF variable
        # a .nc file known only by its HDF5 records (Darshan) is netCDF-4's: said in netCDF's terms
        library = "netcdf" if r.library == "hdf5" and library_of(r.file, ctx.job).name == NETCDF4 else r.library
        chunk = r.n("CHUNK_SIZE")
        size = r.typical()
        under = _under(ctx, r.file)
        if library not in ("hdf5", "netcdf") or not chunk or not size or under is None:
            continue
        limit, why = ctx.small_limit(under, "write" if r.writes >= r.reads else "read")
        if limit is None or chunk >= limit or size < 2 * chunk:
            continue
        default = library == "netcdf" and r.n("DEFAULT_CHUNKS")
        layer = _LAYER[library]
        op = "write" if r.writes >= r.reads else "read"
        calls = _per_rank_calls(r, r.writes + r.reads)
        log_s = r.per_rank(r.write_time + r.read_time)
        ranks = ctx.ranks_here(r.nprocs if r.rank < 0 else 1)
        plan = None
        if size % 8 == 0 and chunk % 8 == 0:
            base = {"backend": _BACKEND[library], "strategy": "shared", "transfer": size, "block": size * calls,
                    "ops": [op], "reps": 3, "collective": bool(r.n("COLL_REQUESTED") or r.n("COLL_WRITES"))}
            plan = Plan(ranks=ranks, before={**base, "lib": {"chunk": str(chunk // 8)}},
                        after={**base, "lib": {"chunk": "block"}}, log_s=log_s,
                        what=f"{human(size)} {op}s into chunks of {human(chunk)} vs chunks of one call")
        shape = r.props.get("chunk", "?")
        text = (f"{_label(r)}: chunks of {human(chunk)} ({shape}"
                f"{', the netCDF library default: nc_def_var_chunking was never called' if default else ''}) for "
                f"{op}s of ~{human(size)}: each call touches {size // chunk:,} chunks, each a separate small I/O "
                f"(smaller than {human(limit)}: {why}); {s(log_s)} per rank in them.")
        name = (r.name or "").lstrip("/") if library == "netcdf" else r.name   # netCDF's variable, not HDF5's path
        call = "nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks)" if library == "netcdf" else \
            "H5Pset_chunk(dcpl, rank, dims)"
        out.append(Candidate(rule="netcdf4-default-chunks" if default else "lib-small-chunks",
                             title=("netCDF-4 default chunks on a record variable" if default else
                                    f"{_TITLE.get(library, library)} chunks far smaller than the calls"),
                             evidence=Evidence(text=text, counters={f"{r.module.upper()}_CHUNK_SIZE": chunk},
                                               files=[r.file]),
                             fix=Fix(kind="settings", text=(f"chunk {name} by what one call writes ({call} with "
                                                            f"the dimensions of one rank's {op}, about {human(size)})"),
                                     settings={f"{layer}.chunk": "block"},
                                     rendered=_rendered(layer, {"chunk": "block"})),
                             cost=Ratio(log_s=log_s, what="chunks of one call") if plan else
                             NotCosted("no call size the engine can replay"),
                             confidence="medium", plan=plan))
    return out


def independent_metadata(ctx: Ctx) -> list[Candidate]:
    """An HDF5 file of several ranks through MPI-IO whose metadata every rank writes and reads
    independently (the HDF5 group's advice at scale: collective metadata), where the log shows the
    ranks reading the metadata themselves: one dataset written by ranks that never read the file
    is HDF5's default doing no harm."""
    out = []
    for f in _libs(ctx, "hdf5", "file"):
        if _netcdf4_file(ctx, f.file) or not f.n("MPIO") or f.nprocs < 2 or f.rank >= 0:
            continue
        if "COLL_MD_READS" not in f.c:
            continue   # not recorded (Darshan's H5F): whether metadata was collective is not known
        if f.n("COLL_MD_READS") and f.n("COLL_MD_WRITES"):
            continue
        objs = [o for o in _libs(ctx, "hdf5", "object") if o.file == f.file]
        made = sum(o.n("CREATES") + o.n("OPENS") for o in objs)
        if not made:
            continue
        # what independent metadata costs shows as the ranks each reading the file's metadata
        # themselves: independent MPI-IO reads beyond the program's own dataset reads (a file only
        # written, its metadata kept in each rank's cache, has none; collective metadata reads let
        # one rank read and pass it on)
        under = next((u for u in ctx.job.records if u.path == f.file and u.module == "mpiio"), None)
        indep = (under.indep_reads if under.indep_reads is not None else under.reads) if under else 0
        meta_reads = indep - sum(o.reads for o in objs)
        if meta_reads < f.nprocs:
            continue
        meta_s = f.per_rank(f.meta_time)
        data_s = f.per_rank(f.write_time + f.read_time)
        typical = max((o.typical() or 0 for o in objs), default=0)
        ranks = ctx.ranks_here(f.nprocs)
        plan = None
        if typical and typical % 8 == 0:
            base = {"backend": "hdf5", "strategy": "shared", "transfer": typical, "block": typical, "ops": ["write"],
                    "reps": 3}
            plan = Plan(ranks=ranks, before={**base, "lib": {"coll_metadata": "false"}},
                        after={**base, "lib": {"coll_metadata": "true"}}, log_s=meta_s + data_s,
                        what="HDF5 with metadata written by every rank vs collective metadata")
        off = [w for w, k in (("reads", "COLL_MD_READS"), ("writes", "COLL_MD_WRITES")) if not f.n(k)]
        text = (f"{f.file}: {f.nprocs} ranks opened it with the MPI-IO driver and made {made:,} dataset opens or "
                f"creates ({made // f.nprocs:,} per rank) with metadata {' and '.join(off)} independent: the ranks "
                f"read the file's metadata themselves ({meta_reads:,} independent reads besides the datasets' "
                f"own); {s(meta_s)} per rank in HDF5 metadata calls.")
        knobs = {"coll_metadata": "true"}
        out.append(Candidate(rule="hdf5-independent-metadata",
                             title="HDF5 metadata written independently by every rank",
                             evidence=Evidence(text=text, counters={"H5F_COLL_MD_READS": f.n("COLL_MD_READS"),
                                                                    "H5F_COLL_MD_WRITES": f.n("COLL_MD_WRITES"),
                                                                    "H5F_NPROCS": f.nprocs}, files=[f.file]),
                             fix=Fix(kind="settings", text="set H5Pset_all_coll_metadata_ops(fapl, 1) and "
                                     "H5Pset_coll_metadata_write(fapl, 1): one rank reads and writes metadata for all",
                                     settings={"hdf5.coll_metadata": "true"}, rendered=_rendered("hdf5", knobs)),
                             cost=Ratio(log_s=meta_s + data_s, what="collective metadata") if plan else
                             NotCosted("no call size the engine can replay"),
                             confidence="low", plan=plan))
    return out


def _subfiles(ctx: Ctx, out_dir: str) -> list[Rec]:
    """The data subfiles BP4/BP5 wrote in an output directory (data.0, data.1, ...: one per aggregator)."""
    prefix = out_dir.rstrip("/") + "/data."
    return [r for r in ctx.job.records if r.module == "posix" and r.bytes_written and r.path.startswith(prefix)
            and r.path[len(prefix):].isdigit()]


def adios2_aggregators(ctx: Ctx) -> list[Candidate]:
    """An ADIOS2 output written through aggregators out of step with the job's nodes and the file
    system's servers: BP4/BP5 write one data subfile per aggregator (counted here from the subfiles
    themselves, whatever the parameters said); ADIOS2's default and its engine documentation's advice
    is one aggregator per node, more only where a parallel file system has more servers (Lustre's
    OSTs, CephFS's object servers) to spread the subfiles over. So fewer subfiles than nodes funnel
    nodes through another node's writer, and more than max(nodes, servers) (on one device: nodes)
    put several writers on each server."""
    out = []
    nodes = ctx.stack.hosts or 1
    for f in _libs(ctx, "adios2", "file"):
        subs = _subfiles(ctx, f.file)
        n = len({r.path for r in subs})
        if not f.writes or not n:
            continue
        facts = ctx.facts(subs[0])
        servers = (facts.ost_count or facts.servers) if facts.parallel else 1
        hi = max(nodes, servers or nodes)
        if nodes <= n <= hi:
            continue
        want = min(max(n, nodes), hi)
        where = (f"{servers} {'OSTs' if facts.lustre else 'servers'} of {facts.fs}" if facts.parallel and servers else
                 f"a {facts.fs or 'local'} file system of one device" if not facts.parallel else
                 f"{facts.fs} (its servers not known)")
        size = f.typical() or 0
        per_rank = _per_rank_calls(f, f.writes)
        log_s = f.per_rank(f.write_time + float(f.c.get("F_END_STEP_TIME") or 0) +
                           float(f.c.get("F_CLOSE_TIME") or 0))
        ranks = ctx.ranks_here(f.nprocs if f.rank < 0 else 1)
        plan = None
        if size and size % 8 == 0:
            base = {"backend": "adios2", "strategy": "shared", "transfer": size, "block": size * per_rank,
                    "ops": ["write"], "reps": 3}
            plan = Plan(ranks=ranks, before={**base, "lib": {"NumAggregators": str(n)}},
                        after={**base, "lib": {"NumAggregators": str(want)}}, log_s=log_s,
                        what=f"BP5 with {n} aggregators vs {want}")
        set_by = ", as NumAggregators asked" if f.n("NUM_AGGREGATORS") == n else ""
        text = (f"{f.file}: {n} data subfiles (one per aggregator{set_by}) from {f.nprocs} ranks on "
                f"{nodes} node{'s' if nodes != 1 else ''}, on {where}: "
                + (f"{n - hi} more writers than it can take in parallel" if n > hi else
                   f"{nodes - n} node{'s' if nodes - n != 1 else ''} without an aggregator of their own")
                + f"; {s(log_s)} per rank in the steps' writes and the close.")
        knobs = {"NumAggregators": str(want)}
        out.append(Candidate(rule="adios2-aggregators", title="ADIOS2 aggregators out of step with nodes and servers",
                             evidence=Evidence(text=text, counters={"ADIOS2_FILE_NUM_AGGREGATORS":
                                                                    f.n("NUM_AGGREGATORS"),
                                                                    "ADIOS2_FILE_NPROCS": f.nprocs}, files=[f.file]),
                             fix=Fix(kind="settings", text=(
                                 f"set the engine parameter NumAggregators={want} (adios2_set_parameter(io, "
                                 f"\"NumAggregators\", \"{want}\"), or <parameter key=\"NumAggregators\" "
                                 f"value=\"{want}\"/> in the ADIOS2 XML file): "
                                 + ("one writer per node" if want == nodes else f"one per server, {want}")),
                                 settings={"adios2.NumAggregators": str(want)}, rendered=_rendered("adios2", knobs)),
                             cost=Ratio(log_s=log_s, what=f"{want} aggregators") if plan else
                             NotCosted("no put size the engine can replay"),
                             confidence="medium", plan=plan))
    return out


RULES = [chunks_too_small, independent_metadata, adios2_aggregators]
