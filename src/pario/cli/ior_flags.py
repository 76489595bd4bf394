"""IOR's -D, -Y, -u, -E, -T and -O directives, with IOR 4.0.0's meaning (`ior -h`): each becomes a
case key (plan/inputs.py rows; the engine's spec keys in plan/cases.ior_keys), so that a job file
takes the same keys. Where one cannot apply, plan/ior_checks.py says so in one line."""
from __future__ import annotations

from pario.cli.args import row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import CASE

HELP = {
    "-D": "IOR's deadlineForStonewalling: a timed write or read phase stops issuing calls SECONDS after "
          "its open (fractions allowed); rates are of the bytes moved, the notes say how many; with "
          "-r/-W after the write it needs -O stoneWallingWearOut=1",
    "-Y": "IOR's fsyncPerWrite: fsync (posix) or MPI_File_sync (mpiio) after every write call",
    "-u": "IOR's uniqueDir: file per process (-F) files in DIR/<rank>/; pario creates the rank "
          "directories it needs and removes those it created",
    "-E": "IOR's useExistingTestFile: write into the test file if it exists, without truncating it; "
          "file names then leave out the run id (DIR/NAME.CASE.FILE, NAME from -o PATH); a file that "
          "was there before is never removed by pario (IOR would remove it without -k)",
    "-T": "IOR's maxTimeDuration: no repetition (-i) starts after MINUTES of a case; the notes say "
          "how many ran",
}


def register(group) -> None:
    """The flags above, as the case keys of the same names; -O KEY=VALUE for IOR's directives."""
    group.add_argument("-D", "--deadline", dest="deadline", metavar="SECONDS", type=typed(CASE["deadline"]),
                       help=HELP["-D"])
    group.add_argument("-Y", "--fsync-per-write", dest="fsync_per_write", action="store_const", const=True,
                       default=None, help=HELP["-Y"])
    group.add_argument("-u", "--unique-dir", dest="unique_dir", action="store_const", const=True, default=None,
                       help=HELP["-u"])
    group.add_argument("-E", "--use-existing", dest="use_existing", action="store_const", const=True,
                       default=None, help=HELP["-E"])
    group.add_argument("-T", "--max-time", dest="max_time", metavar="MINUTES", type=typed(CASE["max_time"]),
                       help=HELP["-T"])
    anything = row("ior_flag", "str", "IOR's directive KEY=VALUE: checked by check()")
    group.add_argument("-O", dest="ior_O", action="append", metavar="KEY=VALUE", type=anything,
                       help="IOR directives: summaryFormat=JSON (= --json); stoneWallingWearOut=1 (with -D: "
                            "after the deadline every rank finishes the count of transfers the most advanced "
                            "rank reached, and reads read that count); summaryFormat=CSV: use "
                            "`pario results export`")


def check(args) -> bool:
    """Apply the -O directives pario honours (wear-out sets args.wearout); refuse the others in one
    line; return whether -O asked for JSON."""
    as_json = False
    for item in getattr(args, "ior_O", None) or []:
        for directive in filter(None, item.split(",")):
            key, _, value = directive.partition("=")
            if key == "summaryFormat" and value.upper() == "JSON":
                as_json = True
            elif key == "summaryFormat" and value.upper() == "CSV":
                raise ParioError("-O summaryFormat=CSV: pario stores the run; `pario results export last` "
                                 "then writes it as CSV")
            elif key == "summaryFormat" and value.lower() == "default":
                pass
            elif key == "stoneWallingWearOut" and value in ("0", "1"):
                args.wearout = value == "1" or None
            elif key == "stoneWallingWearOut":
                raise ParioError(f"-O {directive}: stoneWallingWearOut takes 0 or 1")
            elif key == "summaryFile":
                raise ParioError("-O summaryFile: not available; pario stores every run (pario results), "
                                 "or use --json > FILE")
            else:
                raise ParioError(f"-O {directive}: pario honours summaryFormat=JSON|CSV|default and "
                                 "stoneWallingWearOut=0|1 of IOR's directives; the others have flags "
                                 "(pario bench --help)")
    return as_json
