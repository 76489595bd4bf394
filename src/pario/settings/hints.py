"""Known MPI-IO hint names, kept as data: type, default and which implementations honour each.

Source: the project's reference notes on tuning (anchors-tuning.md): (a) ROMIO, (b) Open MPI
OMPIO info keys, (c) Cray MPICH. Kept as data so that validation, help and rendering read the
same rows; the other settings (MCA, layout, library knobs) are in settings/knobs.py.
"""
from __future__ import annotations

from collections.abc import Iterable

from pario.model.errors import ParioError
from pario.model.errors import did_you_mean as _close
from pario.settings import knobs, values
from pario.settings.catalogue import Setting, hint

ROMIO = "romio"      # MPICH, Intel MPI, Open MPI's romio321/romio341 component
OMPIO = "ompio"      # Open MPI's own MPI-IO component
CRAY = "cray"        # HPE Cray MPICH (ROMIO-derived, plus its own keys)

ENABLE = ("enable", "disable", "automatic")
BOOL = ("true", "false")


_h = hint  # one row per hint: settings.catalogue.Setting, the shape of every other setting too

_RC = (ROMIO, CRAY)
_ALL = (ROMIO, OMPIO, CRAY)

# (a) ROMIO
_ROMIO = [
    _h("cb_buffer_size", "bytes", _ALL, "16777216", doc="two-phase buffer per aggregator", lo=1),
    _h("cb_nodes", "int", _ALL, doc="number of aggregators (open time only)", lo=1),
    _h("cb_config_list", "str", _RC, "*:1", doc="aggregator hosts, host:n,... (leftmost wins)"),
    _h("romio_cb_read", "choice", _RC, "automatic", ENABLE, "two-phase for collective reads"),
    _h("romio_cb_write", "choice", _RC, "automatic", ENABLE, "two-phase for collective writes"),
    _h("romio_no_indep_rw", "choice", _RC, "false", BOOL, "no independent I/O: deferred open"),
    _h("ind_rd_buffer_size", "bytes", _RC, "4194304", doc="data-sieving read buffer"),
    _h("ind_wr_buffer_size", "bytes", _RC, "524288", doc="data-sieving write buffer"),
    _h("romio_ds_read", "choice", _RC, "automatic", ENABLE, "data sieving, independent reads"),
    _h("romio_ds_write", "choice", _RC, "automatic", ENABLE, "data sieving, independent writes"),
    _h("romio_cb_pfr", "choice", _RC, "disable", ("enable", "disable"), "persistent file realms"),
    _h("romio_cb_fr_type", "int", _RC, "0", doc="file-realm assignment (0 AAR, -1 FSZ, -2 user)"),
    _h("romio_cb_fr_types", "int", _RC, "0", doc="as printed by ROMIO", alias_of="romio_cb_fr_type"),
    _h("romio_cb_fr_alignment", "bytes", _RC, "1", doc="file realm alignment"),
    _h("romio_cb_ds_threshold", "int", _RC, "0", doc="size/extent % threshold for DS in collective", lo=0, hi=100),
    _h("romio_cb_alltoall", "choice", _RC, "automatic", ENABLE, "alltoall vs p2p exchange"),
    _h("romio_min_fdomain_size", "bytes", _RC, "0", doc="minimum file-domain size"),
    _h("striping_unit", "bytes", _ALL, "0", doc="stripe size at create (Lustre)"),
    _h("striping_factor", "int", _ALL, doc="stripe count at create (Lustre; -1 all OSTs)", lo=-1),
    _h("start_iodevice", "int", _RC, doc="first OST index at create (Lustre)", lo=-1),
    _h("romio_synchronized_flush", "choice", _RC, "disable", ("enable", "disable"),
       "collective flush in MPI_File_sync"),
    _h("romio_visibility_immediate", "choice", _RC, "true", BOOL, "POSIX visibility assumption"),
    _h("romio_lustre_co_ratio", "int", _RC, "1", doc="aggregators per OST, collective writes", lo=1),
    _h("romio_lustre_coll_threshold", "bytes", _RC, "0", doc="above it, non-interleaved write goes independent"),
    _h("romio_lustre_ds_in_coll", "choice", _RC, "enable", ("enable", "disable"), "RMW for holes in collective"),
    _h("direct_read", "choice", _RC, "false", BOOL, "O_DIRECT reads (Lustre, XFS)"),
    _h("direct_write", "choice", _RC, "false", BOOL, "O_DIRECT writes (Lustre, XFS)"),
    _h("romio_lustre_cb_lock_ahead_write", "int", _RC, "0", doc="Lustre lockahead for writes"),
    _h("romio_lustre_cb_lock_ahead_read", "int", _RC, "0", doc="Lustre lockahead for reads"),
    _h("romio_lustre_cb_lock_ahead_num_extents", "int", _RC, "500", doc="extents per lockahead request"),
    _h("romio_lustre_cb_lock_ahead_flags", "int", _RC, "0", doc="ladvise flags"),
    _h("romio_daos_obj_class", "str", (ROMIO,), doc="DAOS object class"),
    _h("romio_daos_chunk_size", "bytes", (ROMIO,), doc="DAOS chunk size"),
    _h("panfs_concurrent_write", "str", (ROMIO,), doc="PanFS"),
    _h("romio_pvfs2_distribution_name", "str", (ROMIO,), doc="PVFS2"),
    _h("romio_pvfs2_debugmask", "str", (ROMIO,), doc="PVFS2"),
    _h("romio_filesystem_type", "output", _RC, doc="which ADIO driver ran (report only)"),
    _h("romio_aggregator_list", "output", _RC, doc="which ranks aggregate (report only)"),
]
_ROMIO += [_h(f"panfs_layout_{k}", "str", (ROMIO,), doc="PanFS layout at create") for k in
           ("type", "stripe_unit", "parity_stripe_width", "parity_stripe_depth", "total_num_comps",
            "visit_policy")]

# (b) Open MPI OMPIO info keys (cb_buffer_size, cb_nodes, striping_* are shared with ROMIO above)
_OMPIO = [
    _h("collective_buffering", "choice", (OMPIO,), "true", BOOL, "false forces fcoll/individual"),
    _h("stripe_size", "bytes", (OMPIO,), doc="alias of striping_unit", alias_of="striping_unit"),
    _h("stripe_width", "int", (OMPIO,), doc="alias of striping_factor", alias_of="striping_factor"),
    _h("OMPIO_SHAREDFP_RELAXED_ORDERING", "str", (OMPIO,), doc="raises priority of sharedfp/individual"),
] + [_h(k, "str", (OMPIO,), doc="GPFS: passed to gpfs_fcntl at open") for k in
     ("gpfsAccessRange", "gpfsFreeRange", "gpfsClearFileCache", "gpfsCancelHints",
      "gpfsSetReplication", "gpfsByteRange", "gpfsRestripeData")]

# (c) Cray MPICH
_CRAY = [
    _h("cray_cb_write_lock_mode", "int", (CRAY,), "0", doc="0 extent locks, 1 group lock, 2 lockahead", lo=0, hi=2),
    _h("cray_cb_nodes_multiplier", "int", (CRAY,), "1", doc="aggregators per OST", lo=1),
    _h("cb_align", "int", (CRAY,), "2", doc="Cray collective buffering alignment"),
    _h("direct_io", "choice", (CRAY,), "false", BOOL, "O_DIRECT"),
    _h("aggregator_placement_stride", "int", (CRAY,), "-1", doc="aggregator placement"),
    _h("abort_on_rw_error", "choice", (CRAY,), "disable", ("enable", "disable"), "abort on I/O error"),
]

# (d) Keys the MPI standard reserves for file info (MPI-4.0 section 14.2.8): legal everywhere, acted on
# where an implementation chooses to; none of ROMIO, OMPIO or Cray MPICH does (pario passes them on).
# collective_buffering, cb_buffer_size, cb_nodes, striping_factor and striping_unit are reserved
# too, and are in the tables above with the implementations that read them.
STANDARD = "standard"
_RESERVED = [
    _h("access_style", "str", (), doc="MPI reserved: comma list of read_once, write_once, read_mostly, "
       "write_mostly, sequential, reverse_sequential, random"),
    _h("cb_block_size", "int", (), doc="MPI reserved: collective buffering block size", lo=1),
    _h("chunked", "str", (), doc="MPI reserved: comma list of array dimensions"),
    _h("chunked_item", "str", (), doc="MPI reserved: comma list of element sizes"),
    _h("chunked_size", "str", (), doc="MPI reserved: comma list of chunk dimensions"),
    _h("file_perm", "str", (), doc="MPI reserved: permissions of a file at creation"),
    _h("io_node_list", "str", (), doc="MPI reserved: comma list of I/O devices"),
    _h("nb_proc", "int", (), doc="MPI reserved: processes expected to access the file", lo=1),
    _h("num_io_nodes", "int", (), doc="MPI reserved: I/O devices in the system", lo=1),
    _h("filename", "output", (), doc="MPI reserved: the file's name, set by the implementation (read-only)"),
]
# Implementation keys outside the three tables: GPFS's, read by ROMIO's GPFS driver (ad_gpfs:
# IBM Spectrum MPI, MPICH configured for GPFS), by nothing on this kind of stack otherwise.
GPFS = "romio-gpfs"
_GPFS = [_h("IBM_largeblock_io", "choice", (GPFS,), "false", BOOL, "GPFS: large-block I/O, no data shipping")]

# Families whose members are too many to list: a hint starting with one of these is known.
PREFIXES = {
    "romio_pvfs2_dtype_": (ROMIO,), "romio_pvfs2_listio_": (ROMIO,), "romio_pvfs2_posix_": (ROMIO,),
    "sioxAccessRange": (OMPIO,),
}

CATALOGUE: dict[str, Setting] = {h.name: h for h in _ROMIO + _OMPIO + _CRAY + _RESERVED + _GPFS}

# The hints that act on one direction only (the ROMIO and Cray manuals' rows above): a write session
# has nothing to tune in romio_cb_read (tune.knobs leaves it out, saying so)
DIRECTION = {**dict.fromkeys(("romio_cb_read", "romio_ds_read", "ind_rd_buffer_size", "direct_read",
                              "romio_lustre_cb_lock_ahead_read"), "read"),
             **dict.fromkeys(("romio_cb_write", "romio_ds_write", "ind_wr_buffer_size", "direct_write",
                              "romio_lustre_cb_lock_ahead_write", "romio_lustre_co_ratio"), "write")}


def ignored_here(name: str, impl: str | None, fs: str | None) -> str | None:
    """Why a legal key outside what `impl` reads does nothing on this stack (reserved by the MPI
    standard, or another implementation's), or None when it is not such a key."""
    row = lookup(name)
    if row is None:
        return None
    if not row.impls:
        return (f"reserved by the MPI standard for implementations that use it; {impl or 'this MPI-IO'} "
                "does not act on it (passed on)")
    if row.impls == (GPFS,) and not (impl == ROMIO and fs == "gpfs"):
        return ("read by ROMIO's GPFS driver only (IBM Spectrum MPI, MPICH built for GPFS); "
                "not on this stack (passed on)")
    return None


def lookup(name: str) -> Setting | None:
    """The catalogue row for name, or a row synthesised for a known family, or None."""
    if name in CATALOGUE:
        return CATALOGUE[name]
    for prefix, impls in PREFIXES.items():
        if name.startswith(prefix):
            return hint(name, "str", impls)
    return None


def did_you_mean(name: str, choices: Iterable[str] | None = None) -> str:
    """' (did you mean X?)' or '': among the known hints unless choices are given."""
    return _close(name, CATALOGUE if choices is None else choices)


def name_problem(name: str) -> str | None:
    """What is wrong with a hint name as a name (a control character, beyond the engine's length), or None."""
    bad = values.control_char(name)
    if bad:
        return f"hint name {name!r} holds the control character {bad}; remove it"
    most = knobs.limit("hint_key_chars")
    if most is not None and len(name) > most:
        return f"hint name {name[:20]}... is {len(name)} characters long; MPI_Info keys have at most {most}"
    return None


def mpi_value(name: str, value: str) -> tuple[str | None, str | None]:
    """How the MPI-IO layers read a hint value given as text: (the value as they read it, None), or
    (None, one phrase: why it would be misread or refused). The one validator of hint values (issues
    16 and 17): every command (bench --hint and --hints-file, settings check and render, the
    environment's MPICH_MPIIO_HINTS / ROMIO_HINTS) comes here, and the rules are settings.values'
    "mpi" syntax on the hint's catalogue row.

    ROMIO (MPICH, Intel MPI, Cray MPICH, Open MPI's romio321/341) reads integers with atoi and
    compares enable/disable/automatic and true/false with strcmp against the lower- and the
    upper-case spelling only (adio/common/hint_fns.c, ad_hints.c); OMPIO reads cb_buffer_size and
    cb_nodes with atoi too. So `16mb` is 16 bytes, `0x10` is 0, `1e6` is 1, and `Enable` is
    ignored. Measured on this machine: OMPIO dies of a divide-by-zero on cb_nodes=0x10, ROMIO aborts
    at open with "Out of memory" on cb_buffer_size=-1."""
    why = name_problem(name)
    if why:
        return None, why
    hint = lookup(name)
    if hint is None:
        return None, f"unknown MPI-IO hint '{name}'{did_you_mean(name)}"
    norm, why = values.check(hint, value, "mpi", max_chars=knobs.limit("hint_value_chars"))
    if why or norm is None:
        return None, f"{name}={_shown(str(value))} {why}"
    return norm, None


def check(name: str, value: str, where: str = "--hint") -> str:
    """The value as the MPI will read it (mpi_value: '16mb' is refused, ' 4' is 4); an unknown hint
    name or a value the MPI would misread raises one line naming where it came from."""
    norm, why = mpi_value(name, value)
    if why or norm is None:
        more = "; `pario bench --help` names where the known hints come from" if lookup(name) is None \
            and not name_problem(name) else ""
        raise ParioError(f"{where}: {why}{more}")
    return norm


def _shown(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:37] + "...")


def parse_pair(text: str) -> tuple[str, str]:
    """'key=value' from --hint."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise ParioError(f"--hint {text!r}: write it as NAME=VALUE, e.g. --hint romio_cb_write=enable")
    return key, value


def parse_hints_text(text: str, path: str) -> dict[str, str]:
    """A ROMIO-format hints file's text: one `key value` per line, `#` starts a comment. Names and
    values are checked here (the values as the MPI will read them) so that an error says file:line;
    reading the file, bounded, is the caller's (plan/cases.py read_hints_file)."""
    out: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or "=" in parts[0]:
            raise ParioError(f"{path}:{lineno}: expected 'key value' (ROMIO hints format), got {_shown(raw.strip())}")
        key, value = parts[0], parts[1].strip()
        out[key] = check(key, value, where=f"{path}:{lineno}")
    most = knobs.limit("hints")
    if most is not None and len(out) > most:
        raise ParioError(f"{path}: {len(out)} hints; the engine passes at most {most} to one MPI_File_open")
    return out
