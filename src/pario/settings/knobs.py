"""The settings that are not MPI_Info hints, kept as data: Open MPI MCA parameters, the Lustre
layout, and the library knobs of the layers the engine runs (HDF5, PnetCDF, NetCDF-4, ADIOS2).

Source: the reference notes on tuning (anchors-tuning.md): (b) OMPIO MCA parameters, (d) `lfs setstripe`,
(e) library knobs; the library keys are the ones the engine's `lib` object takes
(schemas/spec.schema.json), so that a rendered engine case runs as is.
"""
from __future__ import annotations

import json
import os
from typing import Any

from pario.settings.catalogue import Setting, knob

_k = knob  # one row per setting: settings.catalogue.Setting, the shape of the MPI-IO hints too



# (b) Open MPI MCA parameters of the MPI-IO stack (`--mca NAME V` or OMPI_MCA_NAME=V).
MCA: dict[str, Setting] = {k.name: k for k in [
    _k("io", "choice", None, ("ompio", "romio321", "romio341", "^ompio"), "MPI-IO component"),
    _k("io_ompio_bytes_per_agg", "size", "33554432", doc="collective buffer per aggregator", lo=1),
    _k("io_ompio_num_aggregators", "int", "-1", doc="aggregators; -1 automatic", lo=-1),
    _k("io_ompio_grouping_option", "int", "5", doc="aggregator grouping (1 volume .. 7 simple+)", lo=1, hi=7),
    _k("io_ompio_max_aggregators_ratio", "int", "8", doc="at most 1 aggregator per N ranks", lo=1),
    _k("io_ompio_aggregators_cutoff_threshold", "int", "3", doc="lower means more aggregators", lo=1),
    _k("io_ompio_cycle_buffer_size", "size", "536870912", doc="chunking of individual I/O", lo=1),
    _k("io_ompio_pipeline_buffer_size", "size", "1048576", doc="GPU-buffer pipeline chunk", lo=1),
    _k("io_ompio_use_accelerator_buffers", "int", "0", doc="aggregate in device memory", lo=0, hi=1),
    _k("io_ompio_overwrite_amode", "int", "1", doc="WRONLY -> RDWR for data sieving", lo=0, hi=1),
    _k("io_ompio_coll_timing_info", "int", "0", doc="diagnostics", lo=0),
    _k("io_ompio_verbose_info_parsing", "int", "0", doc="print accepted info keys at open", lo=0, hi=2),
    _k("io_ompio_record_file_offset_info", "int", "0", doc="diagnostics", lo=0),
    _k("fcoll", "choice", None, ("dynamic", "dynamic_gen2", "vulcan", "individual", "two_phase"),
       "collective I/O algorithm"),
    _k("fcoll_dynamic_gen2_num_groups", "int", "1", doc="sub-groups", lo=1),
    _k("fcoll_vulcan_async_io", "int", "0", doc="0 auto, 1 async only, 2 sync only", lo=0, hi=2),
    _k("fs_lustre_stripe_size", "size", "0", doc="stripe size at create (0 FS default)"),
    _k("fs_lustre_stripe_width", "int", "0", doc="stripe count at create (0 FS default)", lo=-1),
    _k("fs_lustre_lock_algorithm", "int", "0", doc="0 auto (never lock on Lustre)", lo=0),
    _k("fs_ufs_lock_algorithm", "int", "0", doc="0 auto", lo=0),
    _k("fbtl_posix_read_datasieving", "bool", "true", doc="data sieving for reads"),
    _k("fbtl_posix_write_datasieving", "bool", "true", doc="data sieving for writes"),
    _k("fbtl_posix_max_block_size", "size", "1048576", doc="data sieving block"),
    _k("fbtl_posix_max_gap_size", "size", "4096", doc="largest hole sieved over"),
    _k("fbtl_posix_max_tmpbuf_size", "size", "67108864", doc="sieving buffer"),
    _k("fbtl_posix_max_aio_reqs", "int", "0", doc="outstanding aio requests", lo=0),
]}

# OMPIO reads these info keys from MCA parameters when the info key is not given (anchors (b)):
# the same setting spoken as an Open MPI MCA parameter.
HINT_TO_MCA = {
    "cb_buffer_size": "io_ompio_bytes_per_agg",
    "cb_nodes": "io_ompio_num_aggregators",
    "striping_unit": "fs_lustre_stripe_size",
    "striping_factor": "fs_lustre_stripe_width",
}

# (d) Lustre layout of one component (`lfs setstripe`); a layout is one or more components.
LAYOUT: dict[str, Setting] = {k.name: k for k in [
    _k("stripe_count", "int", "0", doc="-c: stripes; 0 FS default, -1 all OSTs", lo=-1),
    _k("overstripe_count", "int", None, doc="-C: stripes, more than one per OST allowed; -1..-32 per OST",
       lo=-32),
    _k("stripe_size", "size", "0", doc="-S: multiple of 64 KiB; 0 FS default", hi=4 << 30),
    _k("stripe_index", "int", "-1", doc="-i: first OST, -1 lets the MDS choose", lo=-1),
    _k("ost_list", "str", None, doc="-o: explicit OSTs, e.g. 1,2-4,7"),
    _k("pool", "str", None, doc="-p: OST pool"),
    _k("extent_end", "str", None, doc="-E: end of this component (bytes, or eof) for PFL"),
    _k("mdt", "bool", "false", doc="-L mdt: data on MDT (first component only)"),
    _k("object_size", "size", None, doc="CephFS only: bytes per object, a multiple of the stripe size "
       "(Ceph's default 4m)", lo=65536, hi=1 << 30),
]}

# The CephFS spelling of the layout (`setfattr -n ceph.file.layout`, --set ceph.KEY): Ceph's field
# names -> the layout's. object_size is CephFS's alone; ost_list, stripe_index, overstripe_count,
# extent_end and mdt are Lustre's alone.
CEPH_LAYOUT = {"stripe_unit": "stripe_size", "stripe_count": "stripe_count", "object_size": "object_size",
               "pool": "pool"}
CEPH_ONLY = ("object_size",)

# (e) library knobs, keyed as the engine's `lib` object takes them. Their one description is each
# backend's option table in the engine (csrc/backends/*.c), which the build writes into the package
# as data/engine-options.json (`pario-engine --list`). A library the engine was built without has no
# table here: its settings are unknown to this installation, and say so where they are used.
ENGINE_OPTIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "data",
                              "engine-options.json")  # os.path: every parser reads this module, pathlib costs it more
_TYPES = {"string": "str"}  # the engine's option types, in catalogue terms


def listing_settings(rows: list[dict[str, Any]]) -> dict[str, Setting]:
    """Settings from the "options" rows of one backend of `pario-engine --list`."""
    return {s.name: s for s in (Setting.from_listing({**r, "type": _TYPES.get(str(r.get("type")), r.get("type"))})
                                for r in rows)}


def _listing_paths() -> list[str]:
    """Where the file is: in this package when it was installed by a build; else beside the engine
    that $PARIO_ENGINE names (a source tree run against a build directory or an installed engine)."""
    paths = [ENGINE_OPTIONS]
    engine = os.environ.get("PARIO_ENGINE")
    if engine:
        here = os.path.dirname(os.path.realpath(engine))
        paths += [os.path.join(here, "engine-options.json"),
                  os.path.join(os.path.dirname(here), "data", "engine-options.json")]
    return paths


def _engine_listing() -> tuple[dict[str, dict[str, Setting]], dict[str, int]]:
    """(library settings per backend, the engine's limits) from the first listing found."""
    for path in _listing_paths():
        try:
            with open(path, encoding="utf-8") as fh:
                listing = json.load(fh)
            tables = {str(b["name"]): listing_settings(b["options"]) for b in listing.get("backends", [])
                      if b.get("options")}
            limits = {str(k): int(v) for k, v in (listing.get("limits") or {}).items()
                      if isinstance(v, int) and not isinstance(v, bool)}
            return tables, limits
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return {}, {}  # no build beside this source tree: no library settings are known


LIB: dict[str, dict[str, Setting]]
# What the engine's spec check refuses (`pario-engine --list` "limits": lengths, counts, ranges),
# checked before anything is launched. Empty without a build: then there is no engine to launch.
LIMITS: dict[str, int]
LIB, LIMITS = _engine_listing()


def limit(name: str) -> int | None:
    """One of the engine's limits (schemas/README.md names them), or None when no build says."""
    return LIMITS.get(name)


# PnetCDF's own spelling of its knobs, as PNETCDF_HINTS and MPI_Info take them.
PNETCDF_INFO = {"header_align": "nc_header_align_size", "var_align": "nc_var_align_size",
                "header_read_chunk": "nc_header_read_chunk_size"}

# The library layers that take settings, whether or not this engine was built with them.
LIBRARIES = ("hdf5", "pnetcdf", "netcdf4", "adios2")


def library_options(backend: str, listing_row: dict[str, Any] | None = None) -> dict[str, Setting]:
    """The settings a backend takes, by name: the engine's own option table when its `--list` row
    has one ("options"), else the table above. Validation, `pario settings` and a tuner's search
    space all read this."""
    rows = (listing_row or {}).get("options")
    if rows:
        return listing_settings(rows)
    return dict(LIB.get(backend, {}))
