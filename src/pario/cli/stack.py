"""`pario stack [PATH]`: what the I/O stack under PATH really is, as a table or one JSON document."""
from __future__ import annotations

import os
import sys

from pario.cli.args import row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import RUN


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "stack", description="Inspect the I/O stack under PATH (default: the current directory). The MPI probe runs "
                    "the engine once on a 1 MiB collective write in PATH; its results are cached for an hour.")
    p.add_argument("path", nargs="?", default=".", type=row("path", "path"), help="directory to inspect (default .)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--mpirun", type=typed(RUN["mpirun"]),
                   help="MPI launcher (default $PARIO_MPIRUN, else mpirun/mpiexec on PATH)")
    p.add_argument("--io", type=typed(RUN["io"]), help="Open MPI io component to inspect (ompio, romio321, romio341)")
    p.add_argument("--no-probe", action="store_true", help="do not run the engine (no effective hints)")
    p.add_argument("--refresh", action="store_true", help="ignore cached facts")
    p.set_defaults(run=run)


def run(args) -> int:
    from pario.platform import stack
    from pario.platform.engine import engine_path
    from pario.platform.mpi import check_io, detect, find_mpirun
    from pario.report import json as json_report
    from pario.run.probe import probes
    if not os.path.exists(args.path):
        raise ParioError(f"{args.path} does not exist; give an existing directory (where your job writes)")
    if args.mpirun:  # a launcher the user names must be one
        detect(find_mpirun(args.mpirun))
    path = args.path if os.path.isdir(args.path) else os.path.dirname(os.path.abspath(args.path))
    engine = None
    if not args.no_probe:
        try:
            engine = engine_path()
        except ParioError as exc:
            print(f"pario: {exc} (no MPI probe)", file=sys.stderr)
    if args.io:
        try:
            check_io(detect(find_mpirun(args.mpirun)), args.io)
        except ParioError as exc:
            if exc.exit_code == 2:
                raise
    doc = stack.collect(path, probe=None if args.no_probe else probes, engine=engine, mpirun=args.mpirun, io=args.io,
                        refresh=args.refresh)
    failed = [p for p in doc.get("probes") or [] if not p.get("ok")]
    if args.json:
        json_report.emit({"schema": "pario.stack/1", **doc})
    else:
        from rich.console import Console

        from pario.report.terminal.stack import print_stack
        print_stack(Console(), doc)
    if failed:  # the facts are printed, but the hints in effect are not known: not a success
        print(f"pario: the MPI probe failed ({failed[0].get('reason')}); the hints in effect are not known",
              file=sys.stderr)
        return 1
    return 0
