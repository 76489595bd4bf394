"""`pario tune --from-log LOG`: the case to tune taken from a job's log (the job model `pario
advise` builds), the flags the user gave beside it kept."""
from __future__ import annotations

import argparse
import sys
import textwrap

from pario.model.errors import ParioError


def case_from_log(args: argparse.Namespace) -> None:
    """Fill the case flags the user left out from the job model pario advise builds of the log,
    and say on stderr what was taken."""
    from pario.advise.jobcase import dominant_case
    from pario.advise.libcase import library_case
    from pario.cli.advise import _read_all

    if args.config:
        raise ParioError("--from-log and --config each give the case to tune; give one")
    jobs, errors = _read_all([args.from_log])
    if errors:
        raise ParioError(f"--from-log: {errors[0]}")
    taken = library_case(jobs[0], dominant_case(jobs[0]))   # the I/O library's layer, when the file had one
    kept = []
    for dest, value in taken.flags.items():
        if value is None:
            continue
        if getattr(args, dest, None) is None:
            setattr(args, dest, value)
        else:
            kept.append(dest)
    if args.ranks is None:
        if taken.ranks == 1:   # the space was one file three ways (shared, fpp, shared+agg) and hints between ranks
            raise ParioError(f"--from-log {args.from_log}: the job ran 1 rank; what tune searches (the file "
                             "strategy, collective calls, aggregators, hints) acts between ranks, so there is "
                             "nothing to tune for it. Its small writes, if any, are coalesced by `pario buffer -- "
                             "APP` (no relinking); give -n N to tune the case at N ranks anyway")
        args.ranks = taken.ranks
    if args.objective is None and getattr(args, taken.objective, None):
        args.objective = taken.objective
    print(f"pario: tuning the case taken from {args.from_log}: {taken.argv()}", file=sys.stderr)
    # the first line stays whole (the case as bench flags, to paste); what was taken fits 80 columns
    said = taken.said + ([f"given on the command line, kept instead of the log's: {', '.join(kept)}"] if kept else [])
    for line in said:
        print(textwrap.fill(line, 80, initial_indent="  ", subsequent_indent="    ", break_long_words=False,
                            break_on_hyphens=False), file=sys.stderr)
