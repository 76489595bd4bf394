"""The I/O libraries in the job model (issue 29): one LibRec per record of a library module of a
pario profile log (include/pario/counters.h: h5f/h5d, pnetcdf_file/_var, netcdf_file/_var,
adios2_file/_var), read by read_pario.py into Job.libs. The library rules (rules/libraries.py,
rules/lib_layout.py) read these; the other rules never see them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pario.analysis.profile.libviews import LIBRARIES, props

_BY_MODULE = {m: (lib, kind) for lib in LIBRARIES
              for m, kind in ((lib.file_module, "file"), (lib.object_module, "object"))}


@dataclass
class LibRec:
    library: str                    # hdf5 | pnetcdf | netcdf | adios2
    kind: str                       # file | object (a dataset or a variable)
    module: str
    file: str                       # the file's path
    name: str | None                # the dataset's or variable's name (objects)
    rank: int                       # -1: reduced over `nprocs` ranks
    nprocs: int
    c: dict[str, Any] = field(default_factory=dict)        # counters without the module's prefix
    props: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)    # exact call sizes -> calls
    source: str = "pario"           # pario's library records, or "darshan" (H5F/H5D: advise/darshan_libs.py)

    def n(self, name: str) -> int:
        return int(self.c.get(name) or 0)

    @property
    def writes(self) -> int:
        return self.n("WRITES")

    @property
    def reads(self) -> int:
        return self.n("READS")

    @property
    def write_time(self) -> float:
        return float(self.c.get("F_WRITE_TIME") or 0.0)

    @property
    def read_time(self) -> float:
        return float(self.c.get("F_READ_TIME") or 0.0)

    @property
    def meta_time(self) -> float:
        return float(self.c.get("F_META_TIME") or 0.0)

    def per_rank(self, value: float) -> float:
        """A sum over the record's ranks as one rank's share (ranks work side by side)."""
        return value / max(1, self.nprocs) if self.rank < 0 else value

    def typical(self) -> int | None:
        """The most common call size, else the mean."""
        if self.sizes:
            return max(self.sizes.items(), key=lambda kv: (kv[1], kv[0]))[0]
        calls = self.reads + self.writes
        return (self.n("BYTES_READ") + self.n("BYTES_WRITTEN")) // calls if calls else None


def lib_rec(module: str, raw: dict[str, Any], counters: dict[str, Any], rank: int) -> LibRec | None:
    """A library record of a pario log (None for another module)."""
    found = _BY_MODULE.get(module)
    if found is None:
        return None
    lib, kind = found
    prefix = module.upper() + "_"
    c = {k[len(prefix):]: v for k, v in counters.items() if k.startswith(prefix)}
    path = str(raw.get("path", "?"))
    file, name = path, None
    if kind == "object":   # "FILE:/dataset" (HDF5) or "FILE:variable"
        cut = path.index(":/") if ":/" in path else path.rfind(":")
        if cut > 0:
            file, name = path[:cut], path[cut + 1:]
    hints: dict[str, str] = {}
    for item in filter(None, str(raw.get("hints") or "").split(";")):
        key, _, value = item.partition("=")
        hints[key] = value
    return LibRec(library=lib.name, kind=kind, module=module, file=file, name=name, rank=rank,
                  nprocs=int(c.get("NPROCS") or 1), c=c, props=props(raw.get("props")), hints=hints,
                  sizes={int(s): int(n) for s, n in raw.get("sizes") or []})
