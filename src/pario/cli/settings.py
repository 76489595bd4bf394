"""`pario settings`: render one set of settings in every dialect, check a user's hints file against
the catalogue and the detected stack, and list the known keys."""
from __future__ import annotations

import sys

from pario.cli.args import checked, one_line, row, typed
from pario.model.errors import ParioError
from pario.model.units import count
from pario.plan.inputs import RUN


def _set_pair(text: str) -> str:
    from pario.settings.model import parse_pair

    parse_pair(text)  # KEY=VALUE; the value is checked against the key's row when the settings are built
    return text


def register(subparsers) -> None:
    from pario.settings.dialects import DIALECTS

    p = subparsers.add_parser("settings",
                              description="One model of MPI-IO hints, MCA parameters, Lustre layout and "
                                          "library knobs, spoken in each dialect.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    r = sub.add_parser("render", help="print settings in a dialect (all dialects without --dialect)")
    r.add_argument("--dialect", type=row("dialect", "choice", choices=tuple(DIALECTS)),
                   help="info, romio, ompi, ompi-env, cray, lfs, ceph, adios2, hdf5, pnetcdf")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", type=checked(_set_pair),
                   help="a setting: hint name, mca.NAME, lustre.KEY (lustre.N.KEY for PFL), ceph.KEY, hdf5.KEY, "
                        "pnetcdf.KEY, netcdf4.KEY, adios2.KEY (repeatable; wins over --from)")
    r.add_argument("--from", dest="source", metavar="FILE", type=row("from", "path"),
                   help="read settings from a file in any dialect")
    r.add_argument("--path", default="DIR", type=row("path", "path"),
                   help="the path an lfs or setfattr command names (default DIR)")
    r.add_argument("--pattern", default="*", type=row("pattern", "str"),
                   help="file pattern of MPICH_MPIIO_HINTS (default *)")
    r.add_argument("--json", action="store_true", help="one JSON document: the settings and each rendering")
    c = sub.add_parser("check", help="validate a hints file: unknown keys, bad values, ignored hints")
    c.add_argument("file", type=row("file", "path"),
                   help="a ROMIO hints file (or any dialect: JSON, MPICH_MPIIO_HINTS, ADIOS2 XML, ...)")
    c.add_argument("--dir", default=".", type=typed(RUN["dir"]),
                   help="where the job writes (file system of the checks; default .)")
    c.add_argument("--mpirun", type=typed(RUN["mpirun"]),
                   help="MPI launcher whose MPI-IO is checked against (default mpirun)")
    c.add_argument("--io", type=typed(RUN["io"]),
                   help="Open MPI io component the job uses (default: ompio, or $OMPI_MCA_io)")
    c.add_argument("--ranks", type=typed(RUN["ranks"]), help="ranks of the job (for the cb_nodes rules)")
    c.add_argument("--hosts", type=typed(RUN["ranks"]), help="hosts of the job (for the cb_nodes rules)")
    c.add_argument("--strict", action="store_true", help="warnings (ignored hints) fail too")
    c.add_argument("--json", action="store_true", help="one JSON document of the findings")
    k = sub.add_parser("keys", help="every known setting with its type, default and who honours it")
    k.add_argument("--json", action="store_true")
    p.set_defaults(run=run, parser=p)


def run(args) -> int:
    if args.action == "render":
        return render(args)
    if args.action == "check":
        return check(args)
    if args.action == "keys":
        return keys(args)
    args.parser.print_help()
    return 2


SETTINGS_LINES = 10000  # a settings file holds tens of settings and their comments


def _read(path: str) -> str:
    from pario.platform import documents

    return documents.read_text(path, "settings file", max_lines=SETTINGS_LINES)


def _parsed(path: str, parse):
    """parse() of a file's text, its one-line errors naming the file."""
    try:
        return parse()
    except ParioError as exc:
        message = str(exc)
        raise ParioError(message if message.startswith(path) else f"{path}: {message}") from None


def render(args) -> int:
    from pario.report import json as json_report
    from pario.settings import DIALECTS, from_pairs, merge, parse, sniff
    from pario.settings import render as render_one
    from pario.settings.dialects import COMMENTS, untranslated
    settings = from_pairs([])
    if args.source:
        text = _read(args.source)
        if not text.strip():   # it was dropped silently beside --set
            raise ParioError(f"--from {args.source} is empty: it holds no setting to render; give a settings file "
                             "(a ROMIO hints file, MPICH_MPIIO_HINTS, JSON, ADIOS2 XML, ...) or drop --from")
        parsed, issues = _parsed(args.source, lambda: parse(text, sniff(text)))
        errors = [i for i in issues if i.level == "error"]
        if errors:
            raise ParioError(f"{args.source}: {errors[0].message} (`pario settings check {args.source}` lists all)")
        settings = parsed
    settings = merge(settings, from_pairs(args.set))
    if settings.empty():
        raise ParioError("no settings given; add --set KEY=VALUE (e.g. --set cb_nodes=8) or --from FILE")
    dialects = [args.dialect] if args.dialect else list(DIALECTS)
    out = {d: render_one(settings, d, path=args.path, pattern=args.pattern) for d in dialects}
    missing = {d: untranslated(settings, d, path=args.path, pattern=args.pattern) for d in dialects}
    if args.json:
        json_report.emit({"schema": "pario.settings-render/1", "settings": settings.to_dict(), "rendered": out,
                          "untranslated": missing})
        return 0
    for d in dialects:
        text = out[d]
        if text and not text.endswith("\n"):
            text += "\n"
        if not args.dialect:
            print(f"## {d}: {DIALECTS[d][2]}")
        if not text:
            print(f"pario: nothing of these settings is spoken in dialect {d}",
                  file=sys.stderr if args.dialect else sys.stdout)
        note = f"no equivalent in the {d} dialect: {', '.join(missing[d])}" if missing[d] and text else ""
        if note and d in COMMENTS:
            text += f"{COMMENTS[d][0]}{note}{COMMENTS[d][1]}\n"  # a comment in the dialect's own syntax
        sys.stdout.write(text)
        if note and d not in COMMENTS:
            print(f"pario: {note}", file=sys.stderr if args.dialect else sys.stdout)
        if not args.dialect:
            print()
    return 0


def check(args) -> int:
    from pario.platform import fsinfo
    from pario.platform.mpi import check_io, detect, find_mpirun
    from pario.platform.stack import mpi_facts
    from pario.report import json as json_report
    from pario.settings import view
    from pario.settings.check import findings
    if args.ranks is not None and args.hosts is not None and args.hosts > args.ranks:
        raise ParioError(f"--hosts {args.hosts} with --ranks {args.ranks}: every host runs at least one rank; "
                         "give --hosts at most --ranks")
    text = _read(args.file)
    if not text.strip():   # '0 error(s)' read as a pass: there was nothing to check
        raise ParioError(f"settings file {args.file} is empty: there is no setting to check; give the hints file "
                         "(or the settings file of the tool) the job uses")
    if args.mpirun:  # a launcher the user names must be one (without it: the catalogue only, said below)
        detect(find_mpirun(args.mpirun))
    if args.io and args.io not in ("ompio", "romio", "cray"):  # an Open MPI component: one it has
        try:
            check_io(detect(find_mpirun(args.mpirun)), args.io)
        except ParioError as exc:
            if exc.exit_code == 2:
                raise
    mpi = mpi_facts(args.mpirun, args.io)
    if not mpi.get("available"):
        print(f"pario: {mpi.get('reason')}; checking against the catalogue only", file=sys.stderr)
    from pario.platform.host import nearest_existing
    from pario.platform.outfile import check_place

    check_place(args.dir, "--dir")   # judged against '.' when it did not exist, /proc and a file's path too
    fs = fsinfo.describe(nearest_existing(args.dir))   # a job's directory not made yet: the one it will be in
    stack_view = view(impl=mpi.get("mpiio"), fs=fs.get("type"), ranks=args.ranks, hosts=args.hosts)
    found = _parsed(args.file, lambda: findings(text, stack_view))
    failing = ("error", "warning") if args.strict else ("error",)
    bad = sum(1 for f in found if f["level"] in failing)
    if args.json:
        json_report.emit({"schema": "pario.settings-check/1", "file": args.file,
                          "stack": stack_view, "findings": found, "ok": not bad})
    else:
        for f in found:
            where = f"{args.file}:{f['line']}" if f.get("line") else args.file
            print(one_line(f"{where}: {f['level']}: {f['message']}"))
        impl = stack_view.get("impl") or "unknown MPI-IO"
        print(f"pario: {args.file}: {count(sum(f['level'] == 'error' for f in found), 'error')}, "
              f"{count(sum(f['level'] == 'warning' for f in found), 'warning')} for {impl} on {stack_view.get('fs')}",
              file=sys.stderr)
    return 1 if bad else 0


def keys(args) -> int:
    from rich.console import Console

    from pario.report import json as json_report
    from pario.report.terminal.settings import print_keys
    from pario.settings.keys import rows
    if args.json:
        json_report.emit({"schema": "pario.settings-keys/1", "keys": rows()})
        return 0
    print_keys(Console(), rows())
    return 0
