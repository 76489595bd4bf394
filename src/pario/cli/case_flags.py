"""The flags of one case, IOR's: `pario bench` and `pario tune` (which tunes one case given the
same way) both take them."""
from __future__ import annotations

import argparse

from pario.cli.args import checked, typed
from pario.model.errors import ParioError
from pario.plan.inputs import CASE, RUN
from pario.settings.catalogue import Setting


def add_case_flags(p):
    """The flags of one case, IOR's (also `pario tune`'s: it tunes one case given the same way)."""
    flag = dict(action="store_const", const=True, default=None)
    g = p.add_argument_group("one case (IOR flags)")
    g.add_argument("-a", "--backend", "--api", dest="backend", type=typed(CASE["backend"]),
                   help="posix | mpiio | hdf5 | pnetcdf | netcdf4 | adios2")
    g.add_argument("-c", "--collective", **flag, help="collective calls (mpiio, hdf5, pnetcdf, netcdf4)")
    g.add_argument("-t", "--transfer", type=typed(CASE["transfer"]), help="bytes per I/O call (1m)")
    g.add_argument("-b", "--block", type=typed(CASE["block"]), help="bytes per rank per segment (16m)")
    g.add_argument("-s", "--segments", type=typed(CASE["segments"]), help="segments (strided when > 1)")
    g.add_argument("-w", "--write", **flag, help="timed write")
    g.add_argument("-r", "--read", **flag, help="timed read")
    g.add_argument("-W", "--verify", **flag, help="untimed read-back checked against the pattern")
    g.add_argument("-R", "--check-read", dest="check_read", **flag, help="alias of -r (reads are checked)")
    g.add_argument("--no-read-check", dest="read_check", action="store_const", const=False, default=None,
                   help="timed reads are not compared with what was written, as IOR's -r without -R "
                        "(for comparing read rates with IOR's; -W still checks, untimed)")
    g.add_argument("-i", "--reps", type=typed(CASE["reps"]), help="repetitions (3)")
    g.add_argument("-F", dest="fpp", **flag, help="file per process (= --strategy fpp)")
    g.add_argument("-e", "--fsync", **flag, help="fsync after writing, inside the timed phase")
    g.add_argument("-k", "--keep", **flag, help="keep the files")
    g.add_argument("-C", dest="reorder_host", **flag, help="read the data of the next host's ranks")
    g.add_argument("-Q", "--reorder", type=typed(Setting("reorder", "int", lo=0, hi=CASE["reorder"].hi)),
                   help="read the data of rank r+N")
    g.add_argument("-z", dest="random", **flag, help="random offsets (= --pattern random)")
    g.add_argument("-G", "--seed", type=typed(CASE["seed"]), help="data pattern seed")
    g.add_argument("--strategy", type=typed(CASE["strategy"]), help="serial | fpp | shared | nfiles:K | per-node")
    g.add_argument("--aggregate", **flag, help="each file group's leader gathers and writes")
    g.add_argument("--pattern", type=typed(CASE["pattern"]), help="segmented | subarray | random | btio")
    g.add_argument("--dims", type=typed(CASE["dims"]), help="subarray local block in 8-byte elements, e.g. 64x64x64")
    g.add_argument("--class", dest="btio_class", metavar="S|W|A|B|C|D|E", type=typed(CASE["btio_class"]),
                   help="btio: NAS problem class (grid points and records; S: 12^3, 12 records)")
    g.add_argument("--grid", type=typed(CASE["grid"]),
                   help="btio: global grid points XxYxZ (5 doubles each), e.g. 2048x1024x256")
    g.add_argument("--steps", type=typed(CASE["steps"]), help="btio: records written one after the other")
    g.add_argument("--view", action=argparse.BooleanOptionalAction, default=None, help="MPI-IO file view")
    g.add_argument("--odirect", **flag, help="POSIX O_DIRECT (sizes multiple of 4096)")
    g.add_argument("--hint", action="append", metavar="KEY=VALUE", type=checked(_hint_pair),
                   help="MPI-IO hint (repeatable)")
    g.add_argument("--hints-file", type=typed(CASE["hints_file"]), help="ROMIO-format hints file (key value per line)")
    g.add_argument("--stripe-count", type=typed(CASE["stripe_count"]),
                   help="create the files with this many stripes (Lustre: lfs setstripe -c; CephFS: "
                        "ceph.file.layout stripe_count; -1 every server); the run reads back what they got")
    g.add_argument("--stripe-size", type=typed(CASE["stripe_size"]),
                   help="stripe size of the files created (Lustre -S, CephFS stripe_unit; a multiple of 64k)")
    g.add_argument("--object-size", type=typed(CASE["object_size"]),
                   help="CephFS: bytes per object of the files created (a multiple of the stripe size)")
    g.add_argument("--lib", action="append", metavar="KEY=VALUE", type=checked(_lib_pair),
                   help="library setting of -a hdf5|pnetcdf|netcdf4|adios2 (repeatable; --list names them)")
    g.add_argument("--name", type=typed(CASE["name"]), help="case name")
    g.add_argument("--buffer", dest="buffer_max", metavar="SIZE", type=typed(CASE["buffer_max"]),
                   help="distinct data per rank (default 256k, at least one transfer: stays in CPU cache "
                        "like IOR's buffer; larger: data from memory, verify exact at any distance)")


def add_metadata_flags(p) -> None:
    """The metadata workload's flags (mdtest-like): `pario bench` runs it, `pario predict` costs it."""
    flag = dict(action="store_const", const=True, default=None)
    m = p.add_argument_group("metadata workload (mdtest-like)")
    m.add_argument("--metadata", **flag, help="create/stat/open+close/read/remove many small files")
    m.add_argument("--files-per-dir", type=typed(CASE["files_per_dir"]),
                   help="files per leaf directory (1000; per rank with --per-rank-dirs)")
    m.add_argument("--file-size", type=typed(CASE["file_size"]),
                   help="bytes written to each file and read back (0; k/m suffixes)")
    m.add_argument("--depth", type=typed(CASE["depth"]), help="directory levels below the root (0)")
    m.add_argument("--branching", type=typed(CASE["branching"]), help="subdirectories per directory (1)")
    m.add_argument("--per-rank-dirs", **flag, help="one tree per rank (mdtest -u) instead of one shared tree")
    m.add_argument("--md-ops", type=typed(RUN["md_ops"]),
                   help="phases, a subset of create,stat,open_close,read_small,remove (all)")


def add_launch_flags(g) -> None:
    """How the runs are launched and watched: the same for `pario bench` and each trial of `pario tune`."""
    g.add_argument("--mpirun", type=typed(RUN["mpirun"]),
                   help="MPI launcher to use (default $PARIO_MPIRUN, else mpirun on PATH)")
    g.add_argument("--launcher", type=typed(RUN["launcher"]),
                   help="default: srun inside a Slurm allocation (--mpi plugin chosen for this MPI), else mpirun")
    g.add_argument("--timeout", type=typed(RUN["timeout"]),
                   help="watchdog: seconds without progress before a run is ended "
                        "(default: 10x the slowest phase so far, at least 60 s)")
    g.add_argument("--no-probe", action="store_true", help="skip the O_DIRECT device ceiling probe")


def _hint_pair(text: str) -> str:
    from pario.settings.hints import parse_pair

    parse_pair(text)  # KEY=VALUE; the value is checked with the case (plan/validate.py)
    return text


def _lib_pair(text: str) -> str:
    from pario.plan.cases import parse_lib

    parse_lib([text], "--lib")
    return text


# what names a case, its ranks or its space, beside plan.bench.CASE_DESTS: a resumed session keeps its own
# (flags as the user types them)
_CASE_OF_SESSION = ("write", "read", "verify", "check_read", "read_check", "reps", "fsync", "keep",
                                 "seed", "buffer_max", "space", "space_file", "objective", "from_log", "config",
                                 "case_name", "ranks", "nodes", "io")


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """{dest: the flag as the user types it} of a parser's options (the first of its spellings)."""
    return {a.dest: a.option_strings[0] for a in parser._actions if a.option_strings}


def refuse_on_resume(args: argparse.Namespace) -> None:
    """--resume goes on with the stored session's case, ranks and space: flags naming others were ignored
    (the session ran as if they were not given), so they are refused, named as the parser spells them
    (args.flag_of: flags_of, set as a default when the parser was built)."""
    from pario.plan.bench import CASE_DESTS

    flag_of = getattr(args, "flag_of", None) or {}
    given = [d for d in dict.fromkeys(CASE_DESTS + _CASE_OF_SESSION) if getattr(args, d, None) is not None
             and getattr(args, d) != []]
    if given:
        flags = ", ".join(flag_of.get(d, "--" + d.replace("_", "-")) for d in given)
        raise ParioError(f"--resume {args.resume} goes on with the session's own case, ranks and space; it does "
                         f"not take {flags} (drop them, or start a new session to tune another case)")
