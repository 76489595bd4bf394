"""Darshan's HDF5 records (H5F, H5D) as the library records the library rules read (libjob.LibRec),
in pario's counter names where the two mean the same.

What a Darshan H5D record says: the dataset's calls, bytes and times, its chunk dimensions and
type size, its most common access sizes, and whether a call asked for collective MPI-IO
(H5D_USE_MPIIO_COLLECTIVE, a flag). What it does not: where the data starts in the file, whether
metadata was collective, and how HDF5 did a collective request. The one of those the log still
shows is a collective request done without collective I/O: the file's MPI-IO record then has no
collective call at all, only independent ones. The records say `source = "darshan"`: the rules
that need what Darshan does not record leave them alone (rules/base.py: Ctx.library_files)."""
from __future__ import annotations

import math
from typing import Any

from pario.advise.job import Rec
from pario.advise.libjob import LibRec


def _n(c: dict[str, Any], key: str) -> int:
    v = c.get(key)
    return int(v) if v is not None and v >= 0 else 0


def _f(c: dict[str, Any], key: str) -> float:
    v = c.get(key)
    return float(v) if v is not None and v >= 0 else 0.0


def h5f(name: str, raw: dict[str, Any], nprocs: int) -> LibRec:
    c, f = raw["counters"], raw["fcounters"]
    rank = int(raw["rank"])
    return LibRec(library="hdf5", kind="file", module="h5f", file=name, name=None, rank=rank,
                  nprocs=nprocs if rank < 0 else 1, source="darshan",
                  c={"OPENS": _n(c, "H5F_OPENS"), "FLUSHES": _n(c, "H5F_FLUSHES"), "MPIO": _n(c, "H5F_USE_MPIIO"),
                     "NPROCS": nprocs if rank < 0 else 1, "F_META_TIME": _f(f, "H5F_F_META_TIME")})


def h5d(name: str, raw: dict[str, Any], nprocs: int) -> LibRec:
    c, f = raw["counters"], raw["fcounters"]
    rank = int(raw["rank"])
    file, _, dset = name.partition(":")
    tsize = _n(c, "H5D_DATATYPE_SIZE")
    dims = [d for d in (_n(c, f"H5D_CHUNK_SIZE_D{k}") for k in range(1, 6)) if d > 0]
    calls = _n(c, "H5D_WRITES") + _n(c, "H5D_READS")
    sizes: dict[int, int] = {}
    for k in range(1, 5):
        size, count = _n(c, f"H5D_ACCESS{k}_ACCESS"), _n(c, f"H5D_ACCESS{k}_COUNT")
        if size > 0 and count > 0:
            sizes[size] = sizes.get(size, 0) + count
    out = {"OPENS": _n(c, "H5D_OPENS"), "READS": _n(c, "H5D_READS"), "WRITES": _n(c, "H5D_WRITES"),
           "BYTES_READ": _n(c, "H5D_BYTES_READ"), "BYTES_WRITTEN": _n(c, "H5D_BYTES_WRITTEN"),
           "TYPE_SIZE": tsize, "NDIMS": _n(c, "H5D_DATASPACE_NDIMS"),
           "DATASET_SIZE": _n(c, "H5D_DATASPACE_NPOINTS") * tsize,
           "CHUNK_SIZE": math.prod(dims) * tsize if dims and tsize else 0,
           # a flag in Darshan: some call asked for collective I/O; counted here as every call
           "COLL_REQUESTED": calls if _n(c, "H5D_USE_MPIIO_COLLECTIVE") else 0,
           "NPROCS": nprocs if rank < 0 else 1,
           "F_READ_TIME": _f(f, "H5D_F_READ_TIME"), "F_WRITE_TIME": _f(f, "H5D_F_WRITE_TIME"),
           "F_META_TIME": _f(f, "H5D_F_META_TIME")}
    props = {"chunk": "x".join(map(str, dims))} if dims else {}
    return LibRec(library="hdf5", kind="object", module="h5d", file=file, name=dset or None, rank=rank,
                  nprocs=nprocs if rank < 0 else 1, c=out, props=props, sizes=sizes, source="darshan")


def collective_done(libs: list[LibRec], records: list[Rec]) -> None:
    """A dataset's collective requests done without collective I/O (ACTUAL_NONE), where the log
    shows it: the file's MPI-IO record has independent calls and not one collective call. Where
    it has collective calls, which dataset they were for is not known: nothing is said."""
    mpiio = {r.path: r for r in records if r.module == "mpiio"}
    for lib in libs:
        asked = lib.n("COLL_REQUESTED")
        under = mpiio.get(lib.file)
        if lib.kind != "object" or not asked or under is None:
            continue
        coll = (under.coll_writes or 0) + (under.coll_reads or 0)
        indep = (under.indep_writes or 0) + (under.indep_reads or 0)
        if not coll and indep:
            lib.c["ACTUAL_NONE"] = asked


_MAX = {"TYPE_SIZE", "NDIMS", "DATASET_SIZE", "CHUNK_SIZE", "MPIO"}   # properties, not counts


def reduced(libs: list[LibRec]) -> list[LibRec]:
    """One record per file or dataset: the per-rank records of one (Darshan keeps them apart when
    the ranks did not all open it) summed as Darshan reduces a shared record (rank -1, over the
    ranks that had one), so that a dataset is one finding, not one per rank."""
    groups: dict[tuple[str, str, str | None], list[LibRec]] = {}
    for lib in libs:
        groups.setdefault((lib.kind, lib.file, lib.name), []).append(lib)
    out = []
    for group in groups.values():
        if len(group) == 1 or any(g.rank < 0 for g in group):
            out.extend(group)
            continue
        first = group[0]
        c: dict[str, float] = {}
        for g in group:
            for k, v in g.c.items():
                c[k] = max(c.get(k, 0), v) if k in _MAX else c.get(k, 0) + v
        c["NPROCS"] = len(group)
        sizes: dict[int, int] = {}
        for g in group:
            for size, n in g.sizes.items():
                sizes[size] = sizes.get(size, 0) + n
        out.append(LibRec(library=first.library, kind=first.kind, module=first.module, file=first.file,
                          name=first.name, rank=-1, nprocs=len(group), c=c, props=dict(first.props), sizes=sizes,
                          source=first.source))
    return out
