"""`pario report`: one self-contained HTML page (plots inlined, no network needed to view it) of
stored runs, profile logs, advise findings and tuning sessions.

    pario report                          the newest stored run
    pario report 3                        one run
    pario report 3 5 8                    runs compared on the same axes (the first is the baseline)
    pario report --profile app.log        a profile log (with --trace: the operation timeline)
    pario report 3 --profile app.log -o job.html
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
    p = subparsers.add_parser("report", help="one offline HTML page with plots of runs, profiles, findings",
                              description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="*", metavar="RUN", type=checked(_run_text),
                   help="stored run ids (`pario results`), or 'last'")
    p.add_argument("--profile", action="append", default=[], metavar="LOG", type=row("profile", "path"),
                   help="a profile log (`pario profile -o LOG`) or a PARIO_PROFILE_DIR directory; repeatable")
    p.add_argument("--advise", action="store_true", help="put pario advise's findings at the top, linked to the plots")
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
# given to it; these connect the flags to their producers. `pario advise` is not connected yet, and
# says so rather than pretend.
def findings_for(runs: list[dict[str, Any]], profiles: list[tuple[str, dict[str, Any]]]) -> list:
    raise ParioError("--advise: `pario advise` is installed but `pario report` is not connected to it yet; "
                     "run without --advise")


def sessions_for(ids: list[int], db: str | None) -> list:
    """The stored tuning sessions of `pario tune` (`pario tune --list` names them); the store checks
    each document against schemas/tune.schema.json as it reads it."""
    from pario.model.tuning import TuningSession
    from pario.store import Store

    store = Store(db)
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
    store = Store(db)
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


def run(args) -> int:
    from pario.report.html import save

    # a flag whose producer is missing fails before any work
    if args.advise:
        _require("--advise", "advise", 10)
    runs = load_runs(args.runs, args.db, default_last=not args.profile and not args.tune)
    profiles = load_profiles(args.profile)
    findings = findings_for(runs, profiles) if args.advise else None
    sessions = sessions_for(args.tune, args.db) if args.tune else []
    print(save(args.output, runs, profiles, findings, sessions))
    return 0
