"""`pario tune --from-log`: when the file the job spent most of its I/O time on was written through
an I/O library (issue 29: HDF5, PnetCDF, NetCDF-4, ADIOS2 records in a pario log), the case is
that library's layer (`-a hdf5|pnetcdf|netcdf4|adios2`), with the library's calls' size, the
collective or independent transfer the program asked for, PnetCDF's mode (blocking, iput, bput)
and the library settings the program used, so that tune searches the library's own knobs."""
from __future__ import annotations

from pario.advise.job import Job
from pario.advise.jobcase import TakenCase
from pario.advise.libjob import LibRec
from pario.model.units import human

_BACKEND = {"hdf5": "hdf5", "pnetcdf": "pnetcdf", "netcdf": "netcdf4", "adios2": "adios2"}


def _layer(job: Job, path: str) -> tuple[str, LibRec, list[LibRec]] | None:
    """The library that wrote or read `path` for the program (NetCDF over the HDF5 of its own
    netCDF-4 files), its file record and its dataset or variable records."""
    files = [r for r in job.libs if r.kind == "file" and r.file == path and (r.reads or r.writes)]
    if not files:
        return None
    names = {r.library for r in files}
    library = "netcdf" if "netcdf" in names else next(iter(sorted(names)))
    file = next(r for r in files if r.library == library)
    objs = [r for r in job.libs if r.kind == "object" and r.library == library and r.file == path]
    return library, file, objs


def _most(some: list[LibRec], objs: list[LibRec], op: str) -> bool:
    """Whether these datasets or variables hold most of the bytes of `op`."""
    key = "BYTES_WRITTEN" if op == "write" else "BYTES_READ"
    return bool(some) and 2 * sum(o.n(key) for o in some) > sum(o.n(key) for o in objs)


def _hdf5_collective(objs: list[LibRec], op: str) -> int:
    """The `op` calls that asked for a collective transfer. HDF5's dataset record counts the collective
    requests of reads and writes together (COLL_REQUESTED): a dataset's share of them is its `op`
    calls' share of its calls, exact when a dataset's calls are all of one mode (a collective read and a
    collective write of /block counted both against the read objective: '16 collective and -12
    independent read calls')."""
    coll = 0.0
    for o in objs:
        mine, both = (o.writes if op == "write" else o.reads), o.reads + o.writes
        if mine and both:
            coll += min(o.n("COLL_REQUESTED"), both) * mine / both
    return round(coll)


def library_case(job: Job, taken: TakenCase) -> TakenCase:
    found = _layer(job, taken.path)
    if found is None:
        return taken
    library, file, objs = found
    op = taken.objective
    calls = sum(o.writes if op == "write" else o.reads for o in objs)
    if not objs or not calls:
        return taken
    used = [o for o in objs if (o.writes if op == "write" else o.reads)]   # the record's sizes are of both ops
    sizes: dict[int, int] = {}
    for o in used:
        for size, n in o.sizes.items():
            sizes[size] = sizes.get(size, 0) + n
    moved = sum(o.n("BYTES_WRITTEN" if op == "write" else "BYTES_READ") for o in objs)
    transfer = max(sizes.items(), key=lambda kv: (kv[1], kv[0]))[0] if sizes else moved // calls
    title = {"hdf5": "HDF5", "pnetcdf": "PnetCDF", "netcdf": "NetCDF", "adios2": "ADIOS2"}[library]
    said = [f"{taken.path} was {'written' if op == 'write' else 'read'} through {title} ({calls:,} {op} calls on "
            f"{len(used)} {'dataset' if library == 'hdf5' else 'variable'}{'' if len(used) == 1 else 's'}): "
            f"the case is -a {_BACKEND[library]}, "
            "its knobs are tuned"]
    if transfer % 8 or not transfer:
        transfer = max(8, transfer // 8 * 8)
        said.append(f"its calls are tuned as {transfer:,}-byte ones (pario's data pattern is 8-byte words)")
    ranks = taken.ranks
    per_rank = moved // max(1, ranks if file.rank < 0 else 1)
    block = max(transfer, per_rank // transfer * transfer)
    flags = dict(taken.flags, backend=_BACKEND[library], transfer=str(transfer), block=str(block), segments=None,
                 collective=None)
    lib: list[str] = []
    coll = indep = 0
    if library == "hdf5":
        coll = _hdf5_collective(objs, op)
        indep = calls - coll
        lib.append("coll_metadata=" + ("true" if file.n("COLL_MD_WRITES") else "false"))
        if file.n("ALIGNMENT") > 1:
            lib += [f"alignment={file.n('ALIGNMENT')}", f"align_threshold={file.n('ALIGN_THRESHOLD')}"]
        chunked = [o for o in objs if o.n("CHUNK_SIZE")]
        if _most(chunked, objs, op):
            chunk = max(o.n("CHUNK_SIZE") for o in chunked)
            lib.append(f"chunk={chunk // 8}")
            said.append(f"chunked datasets ({human(chunk)} chunks): chunk={chunk // 8} elements")
    elif library == "pnetcdf":
        coll = sum(o.n("COLL_WRITES" if op == "write" else "COLL_READS") for o in objs)
        indep = sum(o.n("INDEP_WRITES" if op == "write" else "INDEP_READS") for o in objs)
        nb = {"iput": sum(o.n("IPUTS") for o in objs), "bput": sum(o.n("BPUTS") for o in objs)} if op == "write" \
            else {"iput": sum(o.n("IGETS") for o in objs)}
        mode = max(nb, key=lambda k: nb[k]) if max(nb.values()) * 2 > calls else "blocking"
        lib.append(f"mode={mode}")
        said.append(f"PnetCDF mode {mode} (blocking collective {coll:,}, independent {indep:,}, "
                    + ", ".join(f"{k} {v:,}" for k, v in nb.items()) + ")")
        if mode != "blocking":
            coll = max(coll, 1)   # a wait_all is collective
        if file.n("VAR_ALIGN") and file.n("VAR_ALIGN") != 4:
            lib.append(f"var_align={file.n('VAR_ALIGN')}")
        if file.n("HEADER_ALIGN") and file.n("HEADER_ALIGN") != 512:
            lib.append(f"header_align={file.n('HEADER_ALIGN')}")
    elif library == "netcdf":
        coll = sum(o.n("COLL_WRITES" if op == "write" else "COLL_READS") for o in objs)
        indep = sum(o.n("INDEP_WRITES" if op == "write" else "INDEP_READS") for o in objs)
        chunked = [o for o in objs if o.n("CHUNKED") and o.n("CHUNK_SIZE")]
        if _most(chunked, objs, op):
            chunk = max(o.n("CHUNK_SIZE") for o in chunked)
            lib.append(f"chunk={chunk // 8}")
            said.append(f"chunked variables ({human(chunk)} chunks"
                        f"{', the library default' if any(o.n('DEFAULT_CHUNKS') for o in chunked) else ''}): "
                        f"chunk={chunk // 8} elements")
    else:   # adios2: the aggregation parameters the program set
        for key, counter in (("NumAggregators", "NUM_AGGREGATORS"), ("AggregatorRatio", "AGGREGATOR_RATIO"),
                             ("NumSubFiles", "NUM_SUBFILES")):
            if file.n(counter):
                lib.append(f"{key}={file.n(counter)}")
    if library != "adios2":
        flags["collective"] = True if coll > indep else None
        said.append(f"{coll:,} collective and {indep:,} independent {op} calls: "
                    f"{'collective' if coll > indep else 'independent'}")
    if lib:
        flags["lib"] = lib
        said.append("the library settings the program used, the start of the search: " + ", ".join(lib))
    said.append(f"{op}s of {human(transfer)}, {human(block)} per rank (the library calls' most common size and "
                "each rank's bytes)")
    return TakenCase(flags=flags, ranks=ranks, objective=op, path=taken.path, said=taken.said[:1] + said)
