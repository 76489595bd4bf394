"""`pario report`: one self-contained HTML page (plots inlined, no network needed to view it) of
stored runs, profile logs, advise findings and tuning sessions.

    pario report                          the newest stored run
    pario report 3                        one run
    pario report 3 5 8                    runs compared on the same axes (the first is the baseline)
    pario report --profile app.log        a profile log (with --trace: the operation timeline)
    pario report 3 --profile app.log -o job.html
    pario report --advise app.log         pario advise's findings on a log, at the top, linked to its plots
"""
from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from pario.cli.args import checked, row, typed
from pario.model.errors import ParioError
from pario.plan.inputs import INTEGER_MAX, RUN

HELP = __doc__.split("\n", 2)[2]
DEFAULT_OUTPUT = "pario-report.html"   # as pario.report.html.DEFAULT_OUTPUT (not imported: --help stays fast)


def register(subparsers) -> None:
    p = subparsers.add_parser("report", description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="*", metavar="RUN", type=checked(_run_text),
                   help="stored run ids (`pario results`), or 'last'")
    p.add_argument("--profile", action="append", default=[], metavar="LOG", type=row("profile", "path"),
                   help="a profile log (`pario profile -o LOG`) or a PARIO_PROFILE_DIR directory; repeatable")
    p.add_argument("--advise", action="append", default=[], metavar="LOG", type=row("advise", "path"),
                   help="pario advise's findings on a pario profile log or Darshan log, at the top and linked to "
                        "the plots (a profile log is drawn too); advised as `pario advise LOG` does, without "
                        "--verify; repeatable")
    p.add_argument("--tune", action="append", default=[], metavar="SESSION", type=checked(_session_number),
                   help="a tuning session of pario tune")
    p.add_argument("-o", "--output", default=DEFAULT_OUTPUT, type=row("output", "path"),
                   help=f"the page to write (default {DEFAULT_OUTPUT})")
    p.add_argument("--db", metavar="PATH", type=typed(RUN["db"]),
                   help="results database (default: $PARIO_DB, else pario.db in the user "
                                                "data directory)")
    p.set_defaults(run=run)


def _run_text(text: str) -> str:
    """A run or session id as written (3, #3, last), checked before any store is opened."""
    from pario.cli.results import parse_run_word

    parse_run_word(text)
    return text


def _session_number(text: str) -> int:
    """A tuning session number as written (3 or #3), checked before any store is opened."""
    word = text[1:] if text.startswith("#") else text
    if not word.isascii() or not word.isdigit() or not 1 <= int(word) <= INTEGER_MAX:
        raise ParioError(f"give a tuning session number like 3 (got {text[:40]!r}); `pario tune --list` lists them")
    return int(word)


def _require(flag: str, package: str, issue: int) -> None:
    """Fail before any work when the producer of a flag's records is not in this pario."""
    if importlib.util.find_spec(f"pario.{package}") is None:
        raise ParioError(f"{flag}: this pario has no `pario {package}` yet (issue {issue}), so there is nothing "
                         f"to put in the report; run without {flag}")


# The page renders findings (model.findings.Finding) and tuning sessions (model.tuning.TuningSession)
# given to it; these connect the flags to their producers.
def findings_for(logs: list[str], profiles: list[tuple[str, dict[str, Any]]], db: str | None) -> dict[str, Any]:
    """pario advise's document of the logs, as `pario advise LOG` gives it (stored costs, else a short
    calibration; no --verify): each job with its findings (the costed ones and the ones that could not
    be costed) and the counters' descriptions, rendered on the page by what renders them in the
    terminal. A finding on a profile log drawn on the page links to the plot that shows its evidence."""
    import os

    from pario.advise.document import document
    from pario.advise.plots import plot_for
    from pario.cli import advise
    from pario.platform.engine import counter_docs
    from pario.store import Store

    jobs, errors = advise._read_all(logs)
    if errors:
        raise ParioError(f"--advise: {errors[0]}")
    args = argparse.Namespace(stack=None, system=None, verify=False, scale=None, budget=60.0, calibrate=False,
                              no_calibrate=False, ranks=None, dir=None, mpirun=None, db=db, json=False)
    session = advise.Session(args, Store(db))
    docs = []
    for job in jobs:
        _, doc = session.assess(job)
        n = next((i for i, (name, _) in enumerate(profiles, 1) if job.format == "pario"
                  and os.path.exists(name) and os.path.samefile(name, job.source)), None)
        for f in doc["findings"] + doc["not_costed"]:
            f["plot"] = plot_for(f["rule"], n) if n else None
        docs.append(doc)
    return document(docs, [], counter_docs())


def sessions_for(ids: list[int], db: str | None) -> list:
    """The stored tuning sessions of `pario tune` (`pario tune --list` names them); the store checks
    each document against schemas/tune.schema.json as it reads it."""
    from pario.model.tuning import TuningSession
    from pario.store import Store

    store = Store(db, existing=True)  # read only: never create a store
    out = []
    for number in ids:
        row = store.get_session(number)
        try:
            session = TuningSession.from_dict(row["doc"])
        except (TypeError, ValueError, KeyError) as exc:
            raise ParioError(f"tuning session {number} in {store.path} cannot be read ({exc}); "
                             "start a new session") from None
        session.id = number
        out.append(session)
    return out


def load_runs(ids: list[str], db: str | None, default_last: bool) -> list[dict[str, Any]]:
    from pario.cli.results import parse_run_id
    from pario.store import Store

    if not ids and not default_last:
        return []
    store = Store(db, existing=True)
    if not ids:
        last = store.latest_id()
        if last is None:
            raise ParioError(f"no runs stored in {store.path} yet; `pario bench` makes one, or give --profile LOG")
        ids = [str(last)]
    chosen = [parse_run_id(i, store) for i in ids]
    twice = sorted({i for i in chosen if chosen.count(i) > 1})
    if twice:
        raise ParioError(f"run {twice[0]} is given twice; give each run once")
    return [store.get_run(i) for i in chosen]


def load_profiles(logs: list[str]) -> list[tuple[str, dict[str, Any]]]:
    from pario.analysis.profile import load

    return [(log, load(log)) for log in logs]


def _drawn(advised: list[str], profiles: list[str]) -> list[str]:
    """The advised logs that are pario profile logs and not already given with --profile: drawn
    too, so their findings have plots to link to."""
    import os

    from pario.advise.darshan_log import is_darshan

    def same(a: str, b: str) -> bool:
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    return [log for log in advised if os.path.exists(log) and not (os.path.isfile(log) and is_darshan(log))
            and not any(same(log, p) for p in profiles)]


def run(args) -> int:
    from pario.platform.outfile import check_output
    from pario.report.html import save

    # a flag whose producer is missing, or a page that could not be written, fails before any work
    if args.advise:
        _require("--advise", "advise", 10)
    check_output(args.output, "-o", "the page")
    runs = load_runs(args.runs, args.db, default_last=not (args.profile or args.tune or args.advise))
    profiles = load_profiles(args.profile + _drawn(args.advise, args.profile))
    advice = findings_for(args.advise, profiles, args.db) if args.advise else None
    sessions = sessions_for(args.tune, args.db) if args.tune else []
    print(save(args.output, runs, profiles, advice["jobs"] if advice else None, sessions,
               counter_docs=advice["counter_docs"] if advice else None))
    return 0
