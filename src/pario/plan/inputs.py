"""What `pario bench` takes, as typed rows (settings.catalogue.Setting: kind, range, choices), one
table for the keys of a case (flags and job-file keys alike) and one for the run: every value a
user gives is converted and checked here, by settings.values, before anything runs. A key or flag
without a row cannot be read (cases.normalise refuses it; tests/python/test_inputs.py checks that
every flag of every command has its row), so none can be added without its checks.

Ranges come from the engine's own limits (`pario-engine --list` "limits", settings.knobs.limit):
what the engine would refuse after the launch is refused here, before it."""
from __future__ import annotations

from typing import Any

from pario.model.case import MD_OPS, OPS
from pario.model.errors import ParioError
from pario.platform.mpi import IO_COMPONENTS
from pario.settings import knobs, values
from pario.settings.catalogue import Setting

INT_MAX = values.INT_MAX
INTEGER_MAX = values.INT64_MAX
TEXT_MAX = values.TEXT_MAX
shown = values.shown  # as every reader of a value quotes it


def _lim(name: str, fallback: int) -> int:
    """One of the engine's limits; without a build, the C type's own bound (then no engine can run)."""
    return knobs.limit(name) or fallback


def _row(name: str, kind: str, doc: str, lo: float | None = None, hi: float | None = None,
         choices: tuple[str, ...] = (), chars: str | None = None) -> Setting:
    row = Setting(name, kind, None, choices, doc, lo, hi)
    if chars:
        _CHARS[name] = chars
    return row


_CHARS: dict[str, str] = {}  # row name -> the engine limit on its length

# The keys of one case: flags (long names) and job-file keys are the same names.
CASE: dict[str, Setting] = {r.name: r for r in [
    _row("name", "str", "case name", chars="name_chars"),
    _row("backend", "str", "posix | mpiio | hdf5 | pnetcdf | netcdf4 | adios2", chars="backend_chars"),
    _row("strategy", "str", "serial | fpp | shared | nfiles:K | per-node"),
    _row("aggregate", "bool", "group leaders gather and write"),
    _row("pattern", "choice", "segmented | subarray | random | btio",
         choices=("segmented", "subarray", "random", "btio")),
    _row("transfer", "size", "bytes per I/O call", lo=1, hi=_lim("call_bytes_max", INT_MAX)),
    _row("block", "size", "bytes per rank per segment", lo=1, hi=_lim("integer_max", INTEGER_MAX)),
    _row("segments", "int", "segments", lo=1, hi=_lim("integer_max", INTEGER_MAX)),
    _row("btio_class", "str", "btio: NAS problem class S, W, A, B, C, D or E (grid and steps)"),
    _row("grid", "dims", "btio: global grid points, e.g. '64x64x64' (x, y, z; 5 doubles per point)"),
    _row("steps", "int", "btio: records written one after the other", lo=1, hi=_lim("integer_max", INTEGER_MAX)),
    _row("dims", "dims", "subarray local block, e.g. '64x64x64' (8-byte elements)"),
    _row("ops", "list", "[write, read, verify]"),
    _row("write", "bool", "timed write"),
    _row("read", "bool", "timed read"),
    _row("verify", "bool", "untimed read-back, checked"),
    _row("reps", "int", "repetitions", lo=1, hi=_lim("int_max", INT_MAX)),
    _row("collective", "bool", "collective calls"),
    _row("view", "bool", "MPI-IO file view"),
    _row("fsync", "bool", "fsync after writing"),
    _row("odirect", "bool", "POSIX O_DIRECT"),
    _row("fsync_per_write", "bool", "-Y: fsync after every write call (posix, mpiio)"),
    _row("deadline", "float", "-D: seconds after which a write or read phase stops (stonewalling)",
         lo=1e-6, hi=1e9),
    _row("wearout", "bool", "-O stoneWallingWearOut=1: after -D every rank finishes the most advanced count"),
    _row("unique_dir", "bool", "-u: file per process files in DIR/<rank>/"),
    _row("use_existing", "bool", "-E: write into the existing file (no truncation; never removed when it was there)"),
    _row("max_time", "float", "-T: minutes after which no further repetition starts", lo=1e-6, hi=1e9),
    _row("keep", "bool", "keep the files"),
    _row("read_check", "bool", "compare every byte of the timed reads with what was written (default true)"),
    _row("reorder", "int", "rank shift of reads, or 'host'", lo=-1, hi=_lim("int_max", INT_MAX)),
    _row("seed", "int", "data seed", lo=0, hi=_lim("integer_max", INTEGER_MAX)),
    _row("hints", "table", "table of MPI-IO hints"),
    _row("hints_file", "path", "ROMIO hints file"),
    _row("buffer_max", "size", "bytes of distinct data per rank", lo=8, hi=_lim("integer_max", INTEGER_MAX)),
    _row("lib", "table", "table of library settings (hdf5, pnetcdf, netcdf4, adios2)"),
    _row("stripe_count", "int", "stripes of a new file (Lustre -c, CephFS stripe_count; -1 every server)",
         lo=-1, hi=65535),
    _row("stripe_size", "size", "stripe size of a new file (Lustre -S, CephFS stripe_unit; a multiple of 64k)",
         lo=65536, hi=4 << 30),
    _row("object_size", "size", "CephFS: bytes per object of a new file (a multiple of the stripe size)",
         lo=65536, hi=1 << 30),
    _row("workload", "choice", "data | metadata", choices=("data", "metadata")),
    _row("files_per_dir", "int", "metadata: files per leaf directory", lo=1, hi=_lim("md_files_max", INT_MAX)),
    _row("file_size", "size", "metadata: bytes per file", lo=0, hi=_lim("md_file_size_max", INT_MAX)),
    _row("depth", "int", "metadata: directory levels", lo=0, hi=_lim("md_depth_max", 8)),
    _row("branching", "int", "metadata: subdirectories per directory", lo=1, hi=_lim("md_branching_max", 64)),
    _row("per_rank_dirs", "bool", "metadata: one tree per rank"),
]}

# The run (`pario bench` flags that are not case keys).
RUN: dict[str, Setting] = {r.name: r for r in [
    _row("ranks", "int", "MPI ranks", lo=1, hi=_lim("int_max", INT_MAX)),
    _row("nodes", "int", "nodes the ranks run on, in blocks (srun -N; mpirun: its hostfile's first N hosts)",
         lo=1, hi=_lim("int_max", INT_MAX)),
    _row("dir", "path", "scratch directory", chars="dir_chars"),
    _row("test_file", "path", "-o: IOR's test file", chars="dir_chars"),
    _row("drop_caches", "choice", "cold reads: evict the run's files, or 'all' caches (root)",
         choices=("files", "all")),
    _row("config", "path", "job file"),
    _row("reuse", "int", "stored run to read", lo=1, hi=INTEGER_MAX),
    _row("suite", "choice", "default | layers", choices=("default", "layers")),
    _row("preset", "str", "a seed's experiment: NAME, list or a FILE"),
    _row("scale", "float", "presets: factor on each rank's data", lo=1e-9, hi=4096),
    _row("size", "size", "suites: bytes per phase", lo=1, hi=_lim("integer_max", INTEGER_MAX)),
    _row("time", "float", "suites: time budget in seconds", lo=0.001, hi=1e9),
    _row("io", "choice", "Open MPI io component", choices=IO_COMPONENTS),
    _row("mpirun", "path", "MPI launcher"),
    _row("launcher", "choice", "mpirun | srun", choices=("mpirun", "srun")),
    _row("timeout", "float", "watchdog seconds", lo=0.001, hi=1e9),
    _row("db", "path", "results store"),
    _row("md_ops", "list", "metadata phases"),
    _row("hint", "pairs", "MPI-IO hints KEY=VALUE"),
    _row("lib_pairs", "pairs", "library settings KEY=VALUE"),
    _row("buffer", "size", "distinct data per rank", lo=8, hi=_lim("integer_max", INTEGER_MAX)),
]}

_FLAG = Setting("flag", "bool", doc="a switch")
# Every field of model.requests.BenchRequest, with the row that checks it (plan.bench.check_request):
# a field without a row fails there and in tests/python/test_inputs.py.
REQUEST: dict[str, Setting] = {
    **{k: CASE[k] for k in ("backend", "transfer", "block", "segments", "reps", "seed", "strategy", "pattern",
                            "deadline", "max_time", "dims", "btio_class", "grid", "steps", "hints_file", "name",
                            "buffer_max", "files_per_dir", "file_size", "depth", "branching", "stripe_count",
                            "stripe_size", "object_size")},
    **{k: _FLAG for k in ("collective", "write", "read", "verify", "check_read", "read_check", "fpp", "fsync", "keep",
                          "reorder_host", "random", "aggregate", "view", "odirect", "metadata", "per_rank_dirs",
                          "fsync_per_write", "wearout", "unique_dir", "use_existing",
                          "no_probe", "json", "list_backends", "dry_run", "cache")},
    "reorder": Setting("reorder", "int", doc="-Q: read shift in ranks", lo=0, hi=CASE["reorder"].hi),
    "hint": RUN["hint"], "lib": RUN["lib_pairs"], "md_ops": RUN["md_ops"],
    **{k: RUN[k] for k in ("ranks", "nodes", "dir", "test_file", "drop_caches", "config", "reuse", "suite", "preset",
                           "scale", "size", "time", "io", "mpirun", "launcher", "timeout", "db")},
}

# Aliases a job file may use for a key (IOR's names).
ALIASES = {"api": "backend", "xfer": "transfer", "iterations": "reps", "repetitions": "reps",
           "transfer_size": "transfer", "block_size": "block"}


def check(row: Setting, value: Any) -> tuple[Any, str | None]:
    """(typed value, None) or (None, what is wrong, as a phrase that follows the value)."""
    if row.kind in ("list", "table", "pairs"):
        return _composite(row, value)
    if row.kind == "bool" and not isinstance(value, bool):  # a job file's "no" is a string, not false
        return None, f"must be true or false (a TOML boolean), not {_kind(value)}"
    if row.name == "reorder" and isinstance(value, str) and value.strip().lower() == "host":
        return "host", None  # IOR -C: the next host's ranks
    if row.name == "grid" and isinstance(value, int) and not isinstance(value, bool):  # a cube's side
        return (value, None) if 1 <= value <= INTEGER_MAX else (None, "must be a positive number of points")
    if row.kind == "dims" and isinstance(value, list):
        if value and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= INTEGER_MAX for d in value):
            return value, None
        return None, "must list positive element counts, e.g. [64, 64, 64]"
    chars = _CHARS.get(row.name)
    # No flag or key needs more than a path's 4096 characters; a megabyte of text is a mistake.
    most = (knobs.limit(chars) if chars else None) or TEXT_MAX
    return values.parse(row, value, "pario", max_chars=most)


def convert(row: Setting, value: Any, where: str) -> Any:
    """The typed value, or one line: `where` names the source (a flag, 'job.toml case 2: reps')."""
    typed, why = check(row, value)
    if why:
        raise ParioError(f"{where} {shown(value)} {why}")
    return typed


def _composite(row: Setting, value: Any) -> tuple[Any, str | None]:
    if row.kind == "table":
        if not isinstance(value, dict):
            return None, f"must be a table of KEY = VALUE (e.g. {row.name} = {{ key = \"value\" }}), not {_kind(value)}"
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                return None, f"has '{key}' as {_kind(item)}; each setting is a string, number or boolean"
        return value, None
    if row.kind == "list":
        names = MD_OPS if row.name == "md_ops" else OPS + MD_OPS
        items = value.replace("+", ",").replace(" ", ",").split(",") if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return None, f"must be a list of names such as {', '.join(names[:3])}, not {_kind(value)}"
        items = [i.strip() for i in items if i.strip()]
        if not items:
            return None, f"names no phase; give some of {', '.join(names)}"
        return items, None
    if row.kind == "pairs":
        if not isinstance(value, list) or not all(isinstance(p, str) and "=" in p for p in value):
            return None, "must be KEY=VALUE texts"
        return value, None
    return value, None


def _kind(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)
