"""`pario results`: list, show, compare (with a CI exit code), tag, remove and export stored runs;
store a run `pario bench` kept in a file (import) and IOR's JSON summary (import-ior)."""
from __future__ import annotations

import argparse
import io
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from pario.cli.args import Parser, checked, row, typed
from pario.model.errors import ParioError
from pario.model.result import FAMILIES
from pario.plan.inputs import CASE, INTEGER_MAX, RUN

if TYPE_CHECKING:
    from rich.console import Console

    from pario.store import Store


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
        "results", parents=[common], description="Without a subcommand, list the newest stored runs.")
    parser.add_argument("--limit", type=row("limit", "int", lo=1, hi=INTEGER_MAX), default=50,
                        help="how many runs to list (default 50)")
    parser.add_argument("--case", type=typed(CASE["name"]), help="only runs with a case of this name")
    parser.add_argument("--since", type=checked(_since_text),
                        help="only runs from this UTC date or time on (2026-11-24, 2026-11-24T10:00) "
                             "or this long ago (7d, 12h)")
    parser.add_argument("--tag", type=row("tag", "str"), help="only runs with this tag (pario results tag)")
    parser.add_argument("--kind", type=row("kind", "choice", choices=FAMILIES),
                        help="only runs of this kind: bench, preset (bench --preset), tune (each trial: without "
                             "--kind a session's trials are one line), advise (its calibration and --verify "
                             "runs), ior (imported)")
    sub = parser.add_subparsers(dest="action", metavar="[ACTION]")
    show = sub.add_parser("show", parents=[common], help="one run: environment, summary table, hints")
    show.add_argument("id", type=checked(parse_run_word), help="run id (from `pario results`), or 'last'")
    show.add_argument("--html", action="store_true", help="write the run as an HTML page with plots (pario report)")
    show.add_argument("--per-rank", action="store_true",
                      help="each rank's node, bytes (asked of the library and at the file system) and times")
    show.add_argument("-o", "--output", type=row("output", "path"),
                      help="with --html: the page to write (default pario-run-ID.html)")
    cmp_ = sub.add_parser("compare", parents=[common], help="two runs case by case: ratio and noise")
    cmp_.add_argument("a", metavar="A", type=checked(parse_run_word), help="run id A (the baseline)")
    cmp_.add_argument("b", metavar="B", type=checked(parse_run_word), help="run id B")
    cmp_.add_argument("--fail-slower", type=row("fail_slower", "float", lo=0, hi=100), metavar="PCT",
                      help="exit 1 when a case of B is slower than A by more than PCT percent and outside the "
                           "noise (the ranges do not overlap), for CI pipelines")
    exp = sub.add_parser("export", parents=[common], help="runs as CSV: one row per case and operation")
    exp.add_argument("ids", nargs="+", type=checked(parse_run_word), help="run ids, or 'last'")
    exp.add_argument("--csv", action="store_true", default=True, help="CSV (the only format; the default)")
    exp.add_argument("-o", "--output", type=row("output", "path"), help="file to write (default: stdout)")
    tag = sub.add_parser("tag", parents=[common], help="label a run (e.g. baseline), or --remove labels")
    tag.add_argument("id", type=checked(parse_run_word), help="run id, or 'last'")
    tag.add_argument("tags", nargs="+", type=row("tags", "str"), help="labels (letters, digits, '.', '_', '-')")
    tag.add_argument("--remove", action="store_true", help="remove these labels instead")
    rm = sub.add_parser("remove", parents=[common], help="delete stored runs (their files are not touched)")
    rm.add_argument("ids", nargs="+", type=checked(parse_run_word), help="run ids")
    run_file = sub.add_parser("import", parents=[common],
                              help="store a run that `pario bench` measured but could not store (it names the file)")
    run_file.add_argument("file", type=row("file", "path"), help="the run's file (pario-run-*.json)")
    imp = sub.add_parser("import-ior", parents=[common],
                         help="store IOR 4's JSON summary (ior -O summaryFormat=JSON -O summaryFile=FILE)")
    imp.add_argument("file", type=row("file", "path"), help="IOR JSON summary file")
    jobs = sub.add_parser("jobs", parents=[common], help="batch jobs pario submitted to Slurm, and their runs")
    jobs.add_argument("--limit", type=row("limit", "int", lo=1, hi=INTEGER_MAX), default=50,
                      help="how many jobs to list (default 50)")
    parser.set_defaults(run=run)


def fold_sessions(runs: list[dict[str, Any]], store: Store) -> list[dict[str, Any]]:
    """The runs with each tuning session's trials as one entry where its newest trial is (its id): the
    session, its runs, its command and headline (`pario results --kind tune` lists the trials one by one)."""
    out: list[dict[str, Any]] = []
    groups: dict[int, dict[str, Any]] = {}
    sessions = {s["id"]: s for s in store.list_sessions(limit=INTEGER_MAX)} if any("session" in r for r in runs) else {}
    for run in runs:
        sid = run.get("session")
        if sid is None:
            out.append(run)
            continue
        if sid not in groups:
            # its session, or what its trial says when the session was removed: its trials still are runs
            session = sessions.get(sid) or {"command": run["command"], "headline": run.get("headline", ""),
                                            "status": run["status"]}
            command, headline, status = session["command"], session["headline"], session["status"]
            groups[sid] = {"id": run["id"], "session": sid, "runs": [], "created": run["created"], "kind": "tune",
                           "family": "tune", "status": status, "command": command, "headline": headline,
                           "tags": []}
            out.append(groups[sid])
        groups[sid]["runs"].append(run["id"])
        groups[sid]["tags"] = sorted(set(groups[sid]["tags"]) | set(run.get("tags") or []))
    return out


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


def _since_text(text: str) -> str:
    """--since checked as the command line is read (an empty one would filter nothing)."""
    if not text.strip():
        raise ParioError("--since needs a value: a date (2026-11-24), a UTC time (2026-11-24T10:00) or an age (7d)")
    since_of(text)
    return text


def since_of(text: str | None) -> str | None:
    """--since as the store's UTC time text: an ISO date or time, or an age such as 7d or 12h."""
    from datetime import datetime, timedelta, timezone

    if not text:
        return None
    age = re.fullmatch(r"(\d+)([dhm])", text)
    if age:
        unit = {"d": "days", "h": "hours", "m": "minutes"}[age.group(2)]
        try:
            moment = datetime.now(timezone.utc) - timedelta(**{unit: int(age.group(1))})
        except OverflowError:  # beyond year 1
            raise ParioError(f"--since {text}: an age of at most a few thousand years, e.g. 7d") from None
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        moment = datetime.fromisoformat(text.rstrip("Z"))
    except ValueError:
        raise ParioError(f"--since {text}: give a date (2026-11-24), a UTC time (2026-11-24T10:00) or an age "
                         "(7d, 12h, 30m)") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _export(store: Store, args) -> int:
    import csv

    from pario.analysis import compare, summary

    if args.output:   # before the runs are read: a place that cannot be written is said first
        from pario.platform.outfile import check_output

        check_output(args.output, "-o", "the CSV")
    rows = []
    for text in args.ids:
        one = store.get_run(_run_id(text, store))
        rows += compare.rows_for_csv(one, summary.summarize(one["result"], one["env"]))
    if not rows:
        raise ParioError("no bandwidth figures in these runs (metadata runs and failed runs have none)")
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    if not args.output:
        sys.stdout.write(buf.getvalue())
        return 0
    try:
        with open(args.output, "w", newline="", encoding="utf-8") as fh:
            fh.write(buf.getvalue())
    except OSError as exc:
        raise ParioError(f"cannot write {args.output}: {exc.strerror}") from None
    print(f"{len(rows)} rows written to {args.output}", file=sys.stderr)
    return 0


def _emit(doc: Any) -> None:
    from pario.report import json as json_report

    json_report.emit(doc, indent=2)


def run(args) -> int:
    from rich.console import Console

    from pario.analysis import compare, summary
    from pario.report.terminal import layers
    from pario.report.terminal import runs as run_tables
    from pario.store import Store

    action = getattr(args, "action", None)
    # import-ior and import store a run; the other actions read or change an existing store
    store = Store(getattr(args, "db", None), existing=action not in ("import-ior", "import"))
    as_json = getattr(args, "json", False)
    console = Console()
    if action is None:
        kinds = (args.kind,) if args.kind else None
        runs = store.list_runs(None if args.kind != "tune" and not args.kind else args.limit,
                               since=since_of(args.since), tag=args.tag, case=args.case, families=kinds)
        if args.kind != "tune":   # a session's trials are one line (147 trials drowned 12 bench runs)
            runs = fold_sessions(runs, store)[:args.limit]
        if as_json:
            _emit({"schema": "pario.results-list/1", "db": store.path, "runs": runs})
        else:
            run_tables.print_runs(console, runs, filtered=bool(args.since or args.tag or args.case or args.kind))
        return 0
    if action == "show":
        one = store.get_run(_run_id(args.id, store))
        if getattr(args, "html", False):
            from pario.report.html import save

            print(save(args.output or f"pario-run-{one['id']}.html", [one]))
            return 0
        rows = summary.summarize(one["result"], one["env"])
        if as_json:
            _emit({"schema": "pario.run/1", **one, "summary": rows})
        else:
            layers.print_run(console, one, rows)
            if getattr(args, "per_rank", False):
                from pario.report.terminal.nodes import print_per_rank
                print_per_rank(console, one["result"])
        return 0
    if action == "compare":
        a = store.get_run(_run_id(args.a, store))
        b = store.get_run(_run_id(args.b, store))
        cmp = compare.compare_runs(a, b)
        pct = args.fail_slower
        if pct is not None and not 0 < pct < 100:
            raise ParioError(f"--fail-slower {pct:g}: give a percentage between 0 and 100, e.g. 10")
        slower = compare.regressions(cmp["cases"], pct) if pct is not None else []
        if as_json:
            _emit({"schema": "pario.compare/1", **cmp,
                   **({"fail_slower_pct": pct, "regressions": slower} if pct is not None else {})})
        else:
            title = f"A = run {a['id']} ({a['kind']}), B = run {b['id']} ({b['kind']})"
            run_tables.print_compare(console, cmp, title=title)
        for r in slower:
            print(f"pario: regression: {r['label']} ({r['name_b']}) {r['op']} at {r['ratio']:.2f}x of run {a['id']}, "
                  f"{r['slower_pct']:.0f}% slower (more than {pct:g}%, outside the noise)", file=sys.stderr)
        return 1 if slower else 0
    if action == "export":
        if as_json:
            raise ParioError("results export writes CSV; drop --json (`pario results show ID --json` prints a run "
                             "as JSON)")
        return _export(store, args)
    if action == "tag":
        bad = [t for t in args.tags if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", t)]
        if bad:
            raise ParioError(f"tag {bad[0]!r}: use letters, digits, '.', '_' and '-' (at most 64)")
        number = _run_id(args.id, store)
        store.tag_run(number, args.tags, remove=args.remove)
        if as_json:
            _emit({"schema": "pario.results-change/1", "db": store.path, "action": "untag" if args.remove else "tag",
                   "runs": [number], "tags": args.tags})
            return 0
        print(f"run {number}: {'removed' if args.remove else 'tagged'} {' '.join(args.tags)}")
        return 0
    if action == "remove":
        numbers = [_run_id(i, store) for i in args.ids]
        for n in numbers:
            store.get_run(n)  # all known before any is removed
        for n in numbers:
            store.remove_run(n)
        if as_json:
            _emit({"schema": "pario.results-change/1", "db": store.path, "action": "remove", "runs": numbers})
            return 0
        print(f"removed run{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))} from {store.path}")
        return 0
    if action == "import":
        return _import_run(args.file, store, as_json, console)
    if action == "jobs":
        from pario.cli import submit
        from pario.report.terminal.jobs import print_jobs

        rows = submit.refresh(store, store.list_jobs(limit=max(1, args.limit)))
        if as_json:
            _emit({"schema": "pario.results-jobs/1", "db": store.path, "jobs": rows})
        else:
            print_jobs(console, rows)
        return 0
    if action == "import-ior":
        return _import_ior(args.file, store, as_json, console)
    raise ParioError(f"unknown results action {action}")


def _import_run(path: str, store: Store, as_json: bool, console: Console) -> int:
    """A run kept by `pario bench` when the store could not take it: stored once, then the file goes."""
    from pario.store import spool

    run = spool.load(path)
    engine_run = run["spec"].get("run_id")
    already = store.find_run_id(engine_run) if isinstance(engine_run, str) and engine_run else None
    if already is not None:
        raise ParioError(f"{path} is stored already as run {already} (engine run {engine_run}); "
                         "delete the file, or `pario results show " f"{already}`")
    run_id = store.add_run(**run)
    spool.discard(path)
    if as_json:
        _emit({"schema": "pario.results-import/1", "id": run_id, "kind": run["kind"], "status": run["status"],
               "file": path})
    else:
        console.print(f"Stored {path} as run {run_id} ({run['status']}) and removed the file: "
                      f"pario results show {run_id}", highlight=False)
    return 0


def _import_ior(path: str, store: Store, as_json: bool, console: Console) -> int:
    from pario.analysis import summary
    from pario.platform import documents
    from pario.store import ior_import

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
        _emit({"schema": "pario.results-import/1", "id": run_id, "kind": "ior", "cases": names})
    else:
        console.print(f"Imported IOR run as run {run_id} ({len(names)} case{'s' if len(names) != 1 else ''}: "
                      f"{', '.join(names)}). `pario results show {run_id}`; "
                      f"`pario results compare {run_id} ID` against a pario run.")
    return 0
