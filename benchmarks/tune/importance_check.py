"""Which knobs `pario tune` names as having mattered, on the recorded grids (measure_grid.py).

For each grid and objective: the knobs the whole grid names (every configuration once, with its
grid median: the most a session could know), then over --seeds replayed tuner sessions
(replay.one's search, drawing recorded repetitions) how often each knob is named by
tune.importance (the permutation test) and, for comparison, the share optuna's PED-ANOVA gave it
(the method pario used before: its shares always add up to 1).

    .venv/bin/python benchmarks/tune/importance_check.py benchmarks/tune/grid-1m-quiet.json \\
        benchmarks/tune/grid-4k-quiet.json --seeds 10

--synthetic N: the same counts over N seeds of synthetic sessions (the 8-knob space and the
evaluator of tests/python/test_tune_search.py) whose truth is known: one knob matters, none does,
or two do (one of them only under collective calls).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys

import optuna
from optuna.distributions import CategoricalDistribution
from optuna.trial import create_trial

from pario.model.tuning import Trial, TuningSession
from pario.tune import importance
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.replay import GridReplay
from pario.tune.search import Budget, Search
from pario.tune.space import Context


def ped_anova(session: TuningSession, space) -> dict[str, float]:
    """The old method: PED-ANOVA over the measured trials, inert knobs as the value n/a."""
    rows = [({k.key: eff.get(k.key, "n/a") for k in space.knobs}, m) for eff, m in importance._rows(session, space)]
    varied = [k.key for k in space.knobs if len({r[0][k.key] for r in rows}) > 1]
    study = optuna.create_study(direction="maximize")
    dists = {k: CategoricalDistribution(sorted({r[0][k] for r in rows})) for k in varied}
    for params, value in rows:
        study.add_trial(create_trial(params={k: params[k] for k in varied}, distributions=dists, value=value))
    quantile = min(0.5, max(0.1, 3 / len(rows)))
    evaluator = optuna.importance.PedAnovaImportanceEvaluator(target_quantile=quantile, evaluate_on_local=False)
    return dict(optuna.importance.get_param_importances(study, evaluator=evaluator))


RULES = {
    "one knob: independent calls 2x (+-15%)":
        (lambda eff: 1000.0 if eff.get("collective") == "false" else 500.0, 0.15),
    "flat (+-30%)": (lambda eff: 500.0, 0.3),
    "two: fpp 1.6x, cb_nodes=1 1.5x (+-20%)":
        (lambda eff: 500.0 * (1.6 if eff["strategy"] == "fpp" else 1.0) * (1.5 if eff.get("cb_nodes") == "1" else 1.0),
         0.2),
}


def synthetic(seeds: int, trials: int) -> None:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "python"))
    from test_tune_search import Synthetic, session, space  # the tests' space and evaluator
    for name, (rule, spread) in RULES.items():
        named: collections.Counter[str] = collections.Counter()
        shares: dict[str, list[float]] = collections.defaultdict(list)
        sp = space()
        for seed in range(seeds):
            s = session(sp, seed=seed)
            Search(sp, Synthetic(sp, rule, spread=spread, seed=seed), s, Budget(trials=trials)).run(guesses(sp))
            named.update(importance.importance(s, sp)[0].keys())
            for k, v in ped_anova(s, sp).items():
                shares[k].append(v)
        table(f"synthetic, {name}", sp, {}, named, shares, seeds, trials)


def table(title: str, space, whole: dict[str, float], named, shares, seeds: int, trials: int) -> None:
    print(f"\n{title} ({seeds} tuner sessions of {trials} trials)")
    print(f"  {'knob':<16} {'whole grid':>12} {'named':>8} {'PED-ANOVA share (median)':>26}")
    for knob in space.knobs:
        k = knob.key
        share = f"{statistics.median(shares[k]):.2f}" if shares.get(k) else "-"
        whole_s = f"{whole[k]:.2f}" if k in whole else "-"
        print(f"  {k:<16} {whole_s:>12} {named[k]:>5}/{seeds} {share:>26}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("grids", nargs="*")
    ap.add_argument("--synthetic", type=int, default=0, metavar="SEEDS")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=30)
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if args.synthetic:
        synthetic(args.synthetic, args.trials)
    for path in args.grids:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        for objective in ("write", "read"):
            space = build(Context.from_dict({**doc["context"], "objective": objective}))
            grid = GridReplay(doc, space, seed=0)
            whole = TuningSession(id=None, case=doc["case"], objective=objective, ranks=doc["ranks"],
                                  space=space.values(), seed=0)
            whole.trials = [Trial(n, c, "complete", [grid.median(c)], grid.median(c))
                            for n, c in enumerate(space.grid())]
            named_whole, _ = importance.importance(whole, space)
            named: collections.Counter[str] = collections.Counter()
            shares: dict[str, list[float]] = collections.defaultdict(list)
            for seed in range(args.seeds):
                s = TuningSession(id=None, case=doc["case"], objective=objective, ranks=doc["ranks"],
                                  space=space.values(), seed=seed)
                Search(space, GridReplay(doc, space, seed=seed), s, Budget(trials=args.trials)).run(guesses(space))
                named.update(importance.importance(s, space)[0].keys())
                for k, v in ped_anova(s, space).items():
                    shares[k].append(v)
            table(f"{path} {objective} ({len(whole.trials)} configurations)", space, named_whole, named,
                  shares, args.seeds, args.trials)

if __name__ == "__main__":
    main()
