"""`pario tune`'s search, from the first trial to the verdict or an interruption (Ctrl-C, SIGTERM,
SIGHUP: the finished trials stay stored, --resume goes on), and what it reports: the live log, the
winner and the budget spent, in lines or one JSON document; and the dry run's space and first
guesses. cli/tune.py builds the session and its evaluator; this runs them."""
from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING

from pario.cli import tune_submit
from pario.tune import racing

if TYPE_CHECKING:
    from pario.model.case import Case
    from pario.model.tuning import TuningSession
    from pario.store import Store
    from pario.tune.search import Budget, Search
    from pario.tune.space import Space
    from pario.tune.trials import Evaluator


def dry_run(args: argparse.Namespace, session: TuningSession, space: Space, guesses: list) -> int:
    from pario.report import json as json_report
    from pario.report.terminal import tune as show

    grid = len(space.grid())
    if args.json:
        json_report.emit({"schema": "pario.tune/1", "dry_run": True, "grid": grid,
                          "guesses": [{"config": c, "why": w} for c, w in guesses], "session": session.to_dict()})
        return 0
    show.header(session, grid, columns=False, race_cap=racing.CAP)
    for i, (config, why) in enumerate(guesses):
        diff = {k: v for k, v in config.items() if space.default().get(k) != v}
        print(show._wrap(f"guess {i + 1}: {show.changed(diff)}: {why}", "  "))
    return 0



class _Terminated(KeyboardInterrupt):
    """SIGTERM (a job's time limit, `timeout`) or SIGHUP (the terminal closed): ends the run like
    Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _on_term(signum, frame):
    raise _Terminated(signum)


def run_search(args: argparse.Namespace, store: Store, session: TuningSession, space: Space, evaluator: Evaluator,
            budget: Budget, guesses: list, case: Case, batch: int | None = None) -> int:
    """The search to its end or an interruption; batch: launches submitted as Slurm job arrays (TPE's proposals
    that many to an array)."""
    from pario.cli.tune_progress import LiveLog
    from pario.report import json as json_report
    from pario.report.terminal import tune as show
    from pario.tune import importance, verdict
    from pario.tune.jobs import BatchedSearch
    from pario.tune.search import Search

    out = sys.stderr if args.json else sys.stdout
    live = LiveLog(session, out)

    assert session.id is not None
    sid: int = session.id

    def listener(s: TuningSession, trial) -> None:
        store.update_session(sid, doc=s.to_dict(), status=s.status, headline=verdict.summary_line(s))
        live(s, trial)

    if not args.json:
        show.header(session, len(space.grid()), race_cap=racing.CAP)
    elif session.dropped:
        show.dropped(session.dropped, out)
    previous = {sig: signal.signal(sig, _on_term) for sig in (signal.SIGTERM, signal.SIGHUP)}
    search: Search | None = None
    try:
        if batch is not None:
            search = BatchedSearch(space, evaluator, session, budget, listener=listener, on_race=live.race,
                                   batch_size=batch)
        else:
            search = Search(space, evaluator, session, budget, listener=listener, on_race=live.race)
        search.run(guesses)
    except KeyboardInterrupt as exc:
        session.status = "interrupted"
        queued = []
        for t in session.trials:
            if t.state == "running":
                t.state, t.note = "interrupted", "interrupted: its finished runs are kept"
                if t.job:   # its job goes on without us
                    queued.append(t.job)
                    t.note = f"interrupted while Slurm job {t.job} ran: --resume picks up what it measures"
        # a race round's jobs (more repetitions of measured trials) go on too
        queued += [j for j in (search.in_flight if isinstance(search, BatchedSearch) else []) if j not in queued]
        store.update_session(sid, doc=session.to_dict(), status=session.status,
                             headline=verdict.summary_line(session))
        done = sum(1 for t in session.trials if t.state not in ("interrupted", "failed"))
        more = (f"; Slurm job{'s' if len(queued) > 1 else ''} {', '.join(queued)} go on and --resume picks up "
                "what they measure" if queued else "")
        try:
            print(f"pario: interrupted: session {session.id} keeps {done} finished trial(s){more}; "
                  f"`pario tune --resume {session.id}` goes on", file=sys.stderr)
        except OSError:   # the terminal is gone (SIGHUP)
            pass
        return 128 + exc.signum if isinstance(exc, _Terminated) else 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if session.context.get("submit"):   # its trials probed the device inside their allocation
        tune_submit.adopt_ceiling(session, store)
    session.winner = verdict.conclude(session, space, case, session.ranks)
    session.importance, session.importance_method = importance.importance(session, space)
    store.update_session(sid, doc=session.to_dict(), status=session.status,
                         headline=verdict.summary_line(session))
    if args.json:
        json_report.emit({"schema": "pario.tune/1", "db": store.path, "session": session.to_dict()})
    else:
        if session.context.get("submit"):   # known only now: the first job probed it
            show.ceiling_line(session)
        show.winner(session)
        show.spent(session)
        print(f"\nStored as tuning session {session.id}: `pario tune --list`; its runs: `pario results`.")
    ran = any(t.rates for t in session.trials)
    return 0 if ran else 1
