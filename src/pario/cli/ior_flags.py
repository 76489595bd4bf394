"""IOR flags pario does not honour (yet): accepted by the parser so that each gets one line that
says what IOR means by it and what to use instead, not argparse's usage block. Meanings as
IOR 4.0.0's `ior -h` gives them."""
from __future__ import annotations

from pario.model.errors import ParioError

# flag: (IOR's option name and meaning, what pario offers instead)
NOT_HONOURED = {
    "-D": ("deadlineForStonewalling: seconds before a write or read phase is stopped (with "
           "-O stoneWallingWearOut=1 every rank then finishes the amount the fastest reached)",
           "pario runs every phase to its end; bound a phase with a smaller -b or --size"),
    "-Y": ("fsyncPerWrite: fsync after every write call",
           "-e fsyncs once at the end of each write phase, inside the timed phase"),
    "-u": ("uniqueDir: a directory per task for file-per-process",
           "file-per-process files share one directory; the metadata workload has --per-rank-dirs"),
    "-E": ("useExistingTestFile: do not remove the test file before writing",
           "each run writes new files; to read files again keep them with -k, then --reuse RUN"),
    "-T": ("maxTimeDuration: minutes after which no further repetition starts",
           "set the repetitions with -i; --timeout ends a run that makes no progress"),
}
DIRECTIVES_HONOURED = {"summaryFormat"}


def register(group) -> None:
    """The flags above, each taking IOR's argument where IOR's takes one."""
    group.add_argument("-D", dest="ior_D", metavar="SECONDS", help="IOR's stonewalling deadline (not available)")
    group.add_argument("-Y", dest="ior_Y", action="store_true", help="IOR's fsync per write (not available; -e)")
    group.add_argument("-u", dest="ior_u", action="store_true", help="IOR's directory per task (not available)")
    group.add_argument("-E", dest="ior_E", action="store_true", help="IOR's use existing file (not available; --reuse)")
    group.add_argument("-T", dest="ior_T", metavar="MINUTES", help="IOR's time limit (not available; -i, --timeout)")
    group.add_argument("-O", dest="ior_O", action="append", metavar="KEY=VALUE",
                       help="IOR directives: summaryFormat=JSON (= --json); summaryFormat=CSV: use "
                            "`pario results export`")


def check(args) -> bool:
    """Refuse the first flag pario cannot honour, in one line; return whether -O asked for JSON."""
    for flag, (meaning, instead) in NOT_HONOURED.items():
        value = getattr(args, f"ior_{flag[1]}", None)
        if value not in (None, False):
            raise ParioError(f"{flag} (IOR's {meaning}) is not available in pario: {instead}")
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
            elif key == "summaryFile":
                raise ParioError("-O summaryFile: not available; pario stores every run (pario results), "
                                 "or use --json > FILE")
            else:
                raise ParioError(f"-O {directive}: pario honours only summaryFormat=JSON|CSV|default of IOR's "
                                 "directives; the others have flags (pario bench --help)")
    return as_json
