"""`pario settings`: render one set of settings in every dialect, check a user's hints file against
the catalogue and the detected stack, and list the known keys."""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from ..errors import ParioError


def register(subparsers) -> None:
    p = subparsers.add_parser("settings", help="render settings in every dialect; check a hints file",
                              description="One model of MPI-IO hints, MCA parameters, Lustre layout and "
                                          "library knobs, spoken in each dialect.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    r = sub.add_parser("render", help="print settings in a dialect (all dialects without --dialect)")
    r.add_argument("--dialect", help="info, romio, ompi, ompi-env, cray, lfs, adios2, hdf5, pnetcdf")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting: hint name, mca.NAME, lustre.KEY (lustre.N.KEY for PFL), hdf5.KEY, "
                        "pnetcdf.KEY, netcdf4.KEY, adios2.KEY (repeatable; wins over --from)")
    r.add_argument("--from", dest="source", metavar="FILE", help="read settings from a file in any dialect")
    r.add_argument("--path", default="DIR", help="the path an lfs command names (default DIR)")
    r.add_argument("--pattern", default="*", help="file pattern of MPICH_MPIIO_HINTS (default *)")
    r.add_argument("--json", action="store_true", help="one JSON document: the settings and each rendering")
    c = sub.add_parser("check", help="validate a hints file: unknown keys, bad values, ignored hints")
    c.add_argument("file", help="a ROMIO hints file (or any dialect: JSON, MPICH_MPIIO_HINTS, ADIOS2 XML, ...)")
    c.add_argument("--dir", default=".", help="where the job writes (file system of the checks; default .)")
    c.add_argument("--mpirun", help="MPI launcher whose MPI-IO is checked against (default mpirun)")
    c.add_argument("--io", help="Open MPI io component the job uses (default: ompio, or $OMPI_MCA_io)")
    c.add_argument("--ranks", type=int, help="ranks of the job (for the cb_nodes rules)")
    c.add_argument("--hosts", type=int, help="hosts of the job (for the cb_nodes rules)")
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


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ParioError(f"{path}: cannot read it ({reason}); give a readable settings file") from None


def render(args) -> int:
    from ..settings import DIALECTS, from_pairs, merge, parse, sniff
    from ..settings import render as render_one
    settings = from_pairs([])
    if args.source:
        text = _read(args.source)
        parsed, issues = parse(text, sniff(text))
        errors = [i for i in issues if i.level == "error"]
        if errors:
            raise ParioError(f"{args.source}: {errors[0].message} (`pario settings check {args.source}` lists all)")
        settings = parsed
    settings = merge(settings, from_pairs(args.set))
    if settings.empty():
        raise ParioError("no settings given; add --set KEY=VALUE (e.g. --set cb_nodes=8) or --from FILE")
    dialects = [args.dialect] if args.dialect else list(DIALECTS)
    out = {d: render_one(settings, d, path=args.path, pattern=args.pattern) for d in dialects}
    if args.json:
        print(json.dumps({"settings": settings.to_dict(), "rendered": out}, indent=1))
        return 0
    if args.dialect:
        text = out[args.dialect]
        if not text:
            print(f"pario: nothing of these settings is spoken in dialect {args.dialect}", file=sys.stderr)
        sys.stdout.write(text)
        return 0
    for d, text in out.items():
        print(f"## {d}: {DIALECTS[d][2]}")
        sys.stdout.write(text or "(nothing of these settings in this dialect)\n")
        print()
    return 0


def findings(text: str, stack_view: dict) -> list[dict]:
    """Every problem of a settings text, one dict each: level, line (or None), message."""
    from ..settings import dialects, explain, sniff
    from ..settings.model import build, check_one
    dialect = sniff(text)
    out: list[dict] = []
    if dialect == "romio":
        seen: dict[str, int] = {}
        good = []
        for lineno, key, value in dialects.romio_pairs(text):
            if not key:
                out.append({"level": "error", "line": lineno, "message": f"expected 'key value', got {value!r}"})
                continue
            _, issue = check_one(key, value)
            if issue:
                out.append({"level": "error", "line": lineno, "message": issue.message})
                continue
            if key in seen:
                out.append({"level": "warning", "line": lineno,
                            "message": f"{key} is also set on line {seen[key]}; ROMIO keeps one of them"})
            seen[key] = lineno
            good.append((key, value))
        settings, more = build(good)
        out += [{"level": i.level, "line": None, "message": i.message} for i in more]
    else:
        settings, issues = dialects.parse(text, dialect)
        out += [{"level": i.level, "line": None, "message": i.message} for i in issues]
        seen = {}
    _, applied = explain(settings, stack_view)
    for a in applied:
        level = "note" if a.rule in ("default", "alias", "mca-equals-hint", "cb_nodes-range",
                                     "cb_config_list-clip", "lustre-stripe-clip", "lustre-write-buffer") else "warning"
        out.append({"level": level, "line": seen.get(a.key) if isinstance(seen, dict) else None,
                    "message": f"{a.key}: {a.text}" + (f" (becomes {a.after})" if a.after is not None else "")
                               + f" [{a.source}]"})
    return out


def check(args) -> int:
    from .. import fsinfo
    from ..settings import view
    from ..stack import mpi_facts
    text = _read(args.file)
    mpi = mpi_facts(args.mpirun, args.io)
    if not mpi.get("available"):
        print(f"pario: {mpi.get('reason')}; checking against the catalogue only", file=sys.stderr)
    fs = fsinfo.describe(args.dir if os.path.exists(args.dir) else ".")
    stack_view = view(impl=mpi.get("mpiio"), fs=fs.get("type"), ranks=args.ranks, hosts=args.hosts)
    found = findings(text, stack_view)
    failing = ("error", "warning") if args.strict else ("error",)
    bad = sum(1 for f in found if f["level"] in failing)
    if args.json:
        print(json.dumps({"file": args.file, "stack": stack_view, "findings": found, "ok": not bad}, indent=1))
    else:
        for f in found:
            where = f"{args.file}:{f['line']}" if f.get("line") else args.file
            print(f"{where}: {f['level']}: {f['message']}")
        impl = stack_view.get("impl") or "unknown MPI-IO"
        print(f"pario: {args.file}: {sum(f['level'] == 'error' for f in found)} error(s), "
              f"{sum(f['level'] == 'warning' for f in found)} warning(s) for {impl} on {stack_view.get('fs')}",
              file=sys.stderr)
    return 1 if bad else 0


def keys(args) -> int:
    from .. import hints as hintlib
    from ..settings import knobs
    rows: list[dict[str, Any]] = [{"key": h.name, "kind": h.kind, "default": h.default, "honoured_by": list(h.impls),
                                   "doc": h.doc} for h in hintlib.CATALOGUE.values()]
    rows += [{"key": f"mca.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": ["ompio"], "doc": k.doc}
             for k in knobs.MCA.values()]
    rows += [{"key": f"lustre.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": ["lustre"],
              "doc": k.doc} for k in knobs.LAYOUT.values()]
    rows += [{"key": f"{lib}.{k.name}", "kind": k.kind, "default": k.default, "honoured_by": [lib], "doc": k.doc}
             for lib, table in knobs.LIB.items() for k in table.values()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    table = Table(title="pario settings keys", title_justify="left")
    for col in ("key", "type", "default", "honoured by", "meaning"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(*(Text(str(x)) for x in (r["key"], r["kind"], r["default"] or "-",
                                                ",".join(r["honoured_by"]), r["doc"])))
    Console().print(table)
    return 0
