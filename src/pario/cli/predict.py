"""`pario predict`: what a pattern will cost on a system described in a small TOML file (one
pario cannot run on yet), which limit binds, and which settings to try first. The case is given
with `pario bench`'s flags (the same code turns them into a case) or taken from a log; `--calibrate`
measures this machine (or any mounted directory) with short `pario bench` probes and writes the
fitted figures back into the system file."""
from __future__ import annotations

import argparse
import json
import sys

from pario.cli.args import row, typed
from pario.cli.case_flags import add_case_flags, add_metadata_flags
from pario.model.errors import ParioError
from pario.plan.inputs import RUN

EPILOG = """\
A system file (examples/systems/: archer2, archer, shaheen, supermuc, mahti)
gives the file system's kind, servers and their rates, lock unit, default
layout, the nodes' network and one process's rate, and the MPI-IO library,
each figure with its source. The prediction is a sum of costs (metadata,
collective calls, two-phase exchange, data) whose data part is the slowest of
its limits (one writer's calls, locks and bytes; the nodes' network; the
servers; the file system), with an interval and the flags of what the model
does not capture. Figures of the system file alone are "stated hardware";
--calibrate adds measured ones.

  pario predict --system examples/systems/archer2.toml --nodes 64 \\
      --ranks-per-node 128 -a mpiio -c -b 8m --stripe-count -1 -w --rank
  pario predict --system mine.toml --calibrate --dir /scratch/me
  pario predict --system examples/systems/archer.toml --from-log LOG
"""


def register(subparsers) -> None:
    p = subparsers.add_parser("predict",
                              description="Predict what an I/O pattern costs on a system described in a TOML\n"
                                          "file, which limit binds, and which settings to try first.",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("the system and the scale")
    g.add_argument("--system", metavar="FILE", type=row("system", "path", "a system file (TOML)"),
                   help="system file (examples/systems/archer2.toml ...)")
    g.add_argument("--nodes", type=row("nodes", "int", "compute nodes", lo=1, hi=10_000_000),
                   help="nodes of the job (1)")
    g.add_argument("--ranks-per-node", type=row("ranks_per_node", "int", "ranks per node", lo=1, hi=100_000),
                   help="MPI ranks per node (1; with --from-log: the log's ranks over --nodes)")
    # --stripe-count and --stripe-size are case flags (add_case_flags): the layout of the case's files
    g.add_argument("--iobuf", metavar="SIZE", type=row("iobuf", "bytes", "IOBUF buffer", lo=4096),
                   help="an IOBUF-style buffer of SIZE coalesces the calls (pario buffer --size)")
    g.add_argument("--op", type=row("op", "choice", "the phase", choices=("write", "read")),
                   help="the phase to predict (default: the case's first)")
    add_case_flags(p)
    add_metadata_flags(p)
    o = p.add_argument_group("what to do")
    o.add_argument("--from-log", metavar="LOG", type=row("from_log", "path", "a log"),
                   help="the case: the dominant pattern of a profile or Darshan log (pario advise reads it)")
    o.add_argument("--rank", action="store_true", help="the settings to try, ranked by predicted time")
    o.add_argument("--calibrate", action="store_true",
                   help="measure this machine with five short `pario bench` probes (--rounds times, "
                        "alternated) and write the fitted figures into --system FILE (a new one: NAME.toml; "
                        "not a shipped name such as archer2)")
    o.add_argument("--dir", type=typed(RUN["dir"]), help="--calibrate: the directory measured (default: scratch)")
    o.add_argument("--rounds", type=row("rounds", "int", "rounds of the probes", lo=1, hi=50),
                   help="--calibrate: run the five probes this many times, alternated (3): medians, and the "
                        "spread that widens the intervals")
    o.add_argument("--json", action="store_true", help="one JSON document on stdout (schemas/predict.schema.json)")
    p.set_defaults(run=run)


def _case(args: argparse.Namespace) -> dict:
    """The ONE way bench turns flags into a case: BenchRequest -> flag_options -> build_case."""
    from pario.model.requests import BenchRequest
    from pario.plan.bench import check_request, flag_options
    from pario.plan.cases import build_case
    request = BenchRequest.from_namespace(args)
    check_request(request)
    return build_case(flag_options(request))


def _from_log(args: argparse.Namespace) -> int:
    """Fill the case flags the user left out from the log's dominant pattern; the log's ranks."""
    from pario.advise.jobcase import dominant_case
    from pario.cli.advise import _read_all
    jobs, errors = _read_all([args.from_log])
    if errors:
        raise ParioError(f"--from-log: {errors[0]}")
    taken = dominant_case(jobs[0])
    for dest, value in taken.flags.items():
        if value is not None and getattr(args, dest, None) is None:
            setattr(args, dest, value)
    if args.op is None:
        args.op = taken.objective
    print(f"pario: predicting the case taken from {args.from_log}: {taken.argv()}", file=sys.stderr)
    hosts = len(getattr(jobs[0], "hosts", []) or [])
    if args.nodes is None and hosts:
        args.nodes = hosts
    return taken.ranks


def run(args: argparse.Namespace) -> int:
    from pario.predict import pattern as patterns
    from pario.predict import system as systems
    if not args.system:
        raise ParioError("give --system FILE (examples/systems/ has archer2.toml, archer.toml, shaheen.toml, "
                         "supermuc.toml, mahti.toml)")
    if args.rounds and not args.calibrate:
        raise ParioError("--rounds counts the probes of --calibrate; add --calibrate (or leave --rounds out)")
    if args.calibrate:
        from pario.predict.calibrate import calibrate
        return calibrate(args)
    sys_ = systems.load(args.system)
    log_ranks = _from_log(args) if args.from_log else None
    nodes = args.nodes or 1
    if args.ranks_per_node is None and log_ranks:
        if log_ranks % nodes:
            raise ParioError(f"--from-log: the log's {log_ranks} ranks do not divide over --nodes {nodes}; "
                             "give --ranks-per-node")
        args.ranks_per_node = log_ranks // nodes
    rpn = args.ranks_per_node or 1
    limit = sys_.params.get("count")
    if limit is not None and nodes > limit.value:
        raise ParioError(f"--nodes {nodes}: {sys_.name} has {limit.value} nodes ({args.system})")
    case = _case(args)
    run_keys = {"nodes": nodes, "ranks_per_node": rpn, "stripe_count": args.stripe_count,
                "stripe_size": args.stripe_size, "buffer": args.iobuf}
    pat = patterns.from_case(case, run_keys, args.op)
    from pario.predict.rank import ranked
    base, cands = ranked(sys_, pat) if args.rank else (None, [])
    from pario.predict.model import predict
    pred = base or predict(sys_, pat)
    from pario.report.terminal import predict as show
    if args.json:
        print(json.dumps(show.document(sys_, pat, pred, cands if args.rank else None), indent=1))
    else:
        show.print_prediction(sys_, pat, pred)
        if args.rank:
            show.print_ranked(sys_, pat, pred, cands)
    return 0
