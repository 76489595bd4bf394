"""`pario results`: list, show and compare stored runs, and import IOR's JSON summary."""
from __future__ import annotations

import argparse
import os
from typing import Any

from rich.console import Console

from pario.analysis import compare, summary
from pario.cli.args import Parser, checked, row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import INTEGER_MAX, RUN
from pario.platform import documents
from pario.report import json as json_report
from pario.report.terminal import layers
from pario.report.terminal import runs as run_tables
from pario.store import Store, ior_import


def _common() -> argparse.ArgumentParser:
    # SUPPRESS lets `pario results --json show 3` and `pario results show 3 --json` both work.
    p = Parser(add_help=False)
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print one JSON document on stdout instead of tables")
    p.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, type=typed(RUN["db"]),
                   help="results database (default: $PARIO_DB, else pario.db in the user data directory)")
    return p


def register(subparsers) -> None:
    common = _common()
    parser = subparsers.add_parser(
        "results", parents=[common], help="list, show and compare stored runs; import IOR results",
        description="Without a subcommand, list the newest stored runs.")
    parser.add_argument("--limit", type=row("limit", "int", lo=1, hi=INTEGER_MAX), default=50,
                        help="how many runs to list (default 50)")
    sub = parser.add_subparsers(dest="action", metavar="[ACTION]")
    show = sub.add_parser("show", parents=[common], help="one run: environment, summary table, hints")
    show.add_argument("id", type=checked(parse_run_word), help="run id (from `pario results`), or 'last'")
    show.add_argument("--html", action="store_true", help="write the run as an HTML page with plots (pario report)")
    show.add_argument("-o", "--output", type=row("output", "path"),
                      help="with --html: the page to write (default pario-run-ID.html)")
    cmp_ = sub.add_parser("compare", parents=[common], help="two runs case by case: ratio and noise")
    cmp_.add_argument("a", type=checked(parse_run_word), help="run id A (the baseline)")
    cmp_.add_argument("b", type=checked(parse_run_word), help="run id B")
    imp = sub.add_parser("import-ior", parents=[common],
                         help="store IOR 4's JSON summary (ior -O summaryFormat=JSON -O summaryFile=FILE)")
    imp.add_argument("file", type=row("file", "path"), help="IOR JSON summary file")
    parser.set_defaults(run=run)


def parse_run_word(text: str) -> str | int:
    """'last', or a run number (3 or #3), checked before any store is opened."""
    if text in ("last", "latest"):
        return "last"
    word = text[1:] if text.startswith("#") else text
    if not word.isascii() or not word.isdigit() or not 1 <= int(word) <= INTEGER_MAX:
        raise ParioError(f"run id must be a number like 3, or last (got {text[:40]!r}); `pario results` lists them")
    return int(word)


def parse_run_id(text: str, store: Store) -> int:
    """A run id as users write it (3, #3, last) in the store: one line when it is none."""
    return _run_id(parse_run_word(text), store)


def _run_id(word: str | int, store: Store) -> int:
    if word == "last":
        last = store.latest_id()
        if last is None:
            raise ParioError("no runs stored yet; `pario bench` makes one")
        return last
    return int(word)


def _emit(doc: Any) -> None:
    json_report.emit(doc, indent=2)


def run(args) -> int:
    store = Store(getattr(args, "db", None))
    as_json = getattr(args, "json", False)
    console = Console()
    action = getattr(args, "action", None)
    if action is None:
        runs = store.list_runs(args.limit)
        if as_json:
            _emit({"db": store.path, "runs": runs})
        else:
            run_tables.print_runs(console, runs)
        return 0
    if action == "show":
        one = store.get_run(_run_id(args.id, store))
        if getattr(args, "html", False):
            from pario.report.html import save

            print(save(args.output or f"pario-run-{one['id']}.html", [one]))
            return 0
        rows = summary.summarize(one["result"], one["env"])
        if as_json:
            _emit({**one, "summary": rows})
        else:
            layers.print_run(console, one, rows)
        return 0
    if action == "compare":
        a = store.get_run(_run_id(args.a, store))
        b = store.get_run(_run_id(args.b, store))
        cmp = compare.compare(summary.summarize(a["result"], a["env"]), summary.summarize(b["result"], b["env"]))
        if as_json:
            _emit({"a": a["id"], "b": b["id"], "cases": cmp})
        else:
            title = f"A = run {a['id']} ({a['kind']}), B = run {b['id']} ({b['kind']})"
            run_tables.print_compare(console, cmp, title=title)
        return 0
    if action == "import-ior":
        return _import_ior(args.file, store, as_json, console)
    raise ParioError(f"unknown results action {action}")


def _import_ior(path: str, store: Store, as_json: bool, console: Console) -> int:
    text = documents.read_text(path, "IOR summary", limit=ior_import.LIMIT)
    doc = ior_import.parse_text(text, where=path)
    result = ior_import.convert(doc)
    run_id = store.add_run(kind="ior", command=ior_import.command_of(doc),
                           spec={"ior": {"tests": [{k: t.get(k) for k in ("Parameters", "Options")}
                                                  for t in doc.get("tests", [])]}},
                           env=ior_import.env_of(doc, os.path.abspath(path)),
                           result=result, status=result["status"], headline=summary.headline(result))
    names = [c["name"] for c in result["cases"]]
    if as_json:
        _emit({"id": run_id, "kind": "ior", "cases": names})
    else:
        console.print(f"Imported IOR run as run {run_id} ({len(names)} case{'s' if len(names) != 1 else ''}: "
                      f"{', '.join(names)}). `pario results show {run_id}`; "
                      f"`pario results compare {run_id} ID` against a pario run.")
    return 0
