"""Sample efficiency of `pario tune`, replayed against recorded grids (measure_grid.py).

For each grid and objective (write, read), over --seeds seeds, four searchers run the same session
logic (tune.search.Search: controls, rungs, the noise test, the confirmation) against the grid,
each evaluation drawing recorded repetitions at random (GridReplay):
  tuner     TPE seeded with the knowledge-based guesses (what `pario tune` does)
  tpe-only  TPE without the guesses
  random    optuna's RandomSampler without the guesses
  submit    what `pario tune --submit` does (tune.jobs.BatchedSearch, --batch 4: TPE's proposals four to
            a job array, each with its full repetitions); the grid drawn in each array's order
  guess     the knowledge-based first guess alone: its grid median, no search
  oracle    a reference, not a searcher: every configuration of the grid measured racing.CAP times
            (drawn as the searchers draw), the highest median picked; how often that pick reaches
            95% of the best shows how finely the grid itself can tell its configurations apart
Two counts per run, both kept: the configurations measured (distinct configurations, the default
included, whatever their repetitions: the trials of the autotuning literature, the unit of "the
grid's size") and the repetitions drawn (controls, rungs, races and confirmation included), each
at the first moment the searcher's recommendation (its incumbent, or the default while none beat it
beyond the noise) has a grid median of at least 95% of the grid's best median; "-" when it never
does within --trials trials. Target (issue 12): at most 15% of the grid's size, judged on the
configurations (the grid's size counts configurations), for every seed.
A third count, beside them: the configurations measured when the recommendation was first "as good
as the best" by the grid's own samples (analysis.noise: not slower than the best configuration
beyond the noise, all recorded repetitions of both), for grids where configurations that run the
same code path differ by more than 5% between their medians.

    .venv/bin/python benchmarks/tune/replay.py benchmarks/tune/grid-1m.json benchmarks/tune/grid-4k.json \\
        --seeds 10 --out benchmarks/tune/replay.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Callable

import optuna

from pario.analysis import noise
from pario.model.tuning import TuningSession
from pario.tune import racing
from pario.tune.jobs import BatchedSearch
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.replay import GridArrays, GridReplay
from pario.tune.search import Budget, Search
from pario.tune.space import Context

TARGET = 0.95


def reached(trace: list[tuple[int, int | None, int]], session: TuningSession, space,
            good: Callable[[dict], bool]) -> tuple[int, int] | None:
    """(configurations measured, repetitions drawn) when the recommendation first was good."""
    default = space.default()
    for evals, inc, configs in trace:
        trial = next((t for t in session.trials if t.number == inc), None)
        config = {**default, **trial.settings} if trial else default
        if good(config):
            return configs, evals
    return None


def as_good_keys(grid: GridReplay) -> set[str]:
    """The configurations (canonical keys) not slower than the grid's best beyond the noise, on all
    their recorded samples: computed once per grid and objective (one noise test per configuration)."""
    best = max(grid.samples.values(), key=statistics.median)
    return {key for key, samples in grid.samples.items() if noise.compare(best, samples).verdict != "slower"}


def one(doc: dict, objective: str, seed: int, searcher: str, trials: int, good: set[str]) -> dict:
    """One searcher over one seed; good: as_good_keys of this grid and objective."""
    ctx = Context.from_dict({**doc["context"], "objective": objective})
    space = build(ctx)
    grid = GridReplay(doc, space, seed=seed)
    best = grid.best()

    def as_good(config: dict) -> bool:
        return space.canonical(config) in good
    if searcher == "guess":
        first = guesses(space)[0][0]
        return {"evals": None, "ratio": grid.median(first) / best, "config": first}
    if searcher == "oracle":
        pick = max(space.grid(), key=lambda c: statistics.median(grid.run(c, racing.CAP, "oracle").rates))
        return {"configs": None, "evals": None, "ratio": grid.median(pick) / best, "as_good": as_good(pick),
                "total_evals": racing.CAP * len(space.grid())}
    session = TuningSession(id=None, case=doc["case"], objective=objective, ranks=doc["ranks"],
                            space=space.values(), seed=seed)
    sampler = optuna.samplers.RandomSampler(seed=seed) if searcher == "random" else None
    if searcher == "submit":
        search = BatchedSearch(space, GridArrays(doc, space, seed=seed), session, Budget(trials=trials),
                               batch_size=4)
    else:
        search = Search(space, grid, session, Budget(trials=trials), sampler=sampler)
    search.run(guesses(space) if searcher in ("tuner", "submit") else [])
    inc = next((t for t in session.trials if t.number == session.incumbent), None)
    final = {**space.default(), **inc.settings} if inc else space.default()
    hit = reached(search.trace, session, space, lambda c: grid.median(c) >= TARGET * best)
    same = reached(search.trace, session, space, as_good)
    return {"configs": hit[0] if hit else None, "evals": hit[1] if hit else None, "total_evals": search.evals,
            "as_good_configs": same[0] if same else None, "final_as_good": as_good(final),
            "total_configs": search.trace[-1][2] if search.trace else 0,
            "ratio": grid.median(final) / best, "trials": len(session.trials)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("grids", nargs="+")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--trials", type=int, default=30, help="the session's budget of trials (as pario tune --trials)")
    ap.add_argument("--out", help="write every result as JSON here")
    ap.add_argument("--searchers", default="tuner,tpe-only,random", help="which searchers to replay (comma list)")
    args = ap.parse_args()
    results = []
    for path in args.grids:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        for objective in ("write", "read"):
            space = build(Context.from_dict({**doc["context"], "objective": objective}))
            size = len(space.grid())
            row = {"grid": path, "objective": objective, "grid_size": size, "target_evals": 0.15 * size}
            grid = GridReplay(doc, space)
            keys = as_good_keys(grid)
            good = [grid.median(c) / grid.best() for c in space.grid() if space.canonical(c) in keys]
            row["as_good"] = {"configurations": len(good), "lowest": min(good)}
            for searcher in ["guess", "oracle"] + args.searchers.split(","):
                runs = [one(doc, objective, s, searcher, args.trials, keys) for s in range(args.seeds)]
                row[searcher] = runs
            results.append(row)
            report(row)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"command": "python benchmarks/tune/replay.py " + " ".join(sys.argv[1:]), "results": results},
                      fh, indent=1)
    return 0


def report(row: dict) -> None:
    size, target = row["grid_size"], row["target_evals"]
    print(f"\n{row['grid']} {row['objective']}: grid {size} configurations, target <= {target:.1f} "
          "configurations measured (the repetitions drawn are shown too)")
    print(f"  {row['as_good']['configurations']} configuration(s) as good as the best by the noise test on the "
          f"grid's samples, the slowest of them at {row['as_good']['lowest']:.0%} of the best median")
    g = row["guess"][0]
    print(f"  guess     first guess alone: {g['ratio']:.0%} of the best median "
          f"({'reaches' if g['ratio'] >= TARGET else 'does not reach'} 95%)")
    o = row["oracle"]
    print(f"  oracle    every configuration x {racing.CAP} repetitions ({o[0]['total_evals']}), highest median: "
          f"within 95% in {sum(r['ratio'] >= TARGET for r in o)}/{len(o)} seeds, as good as the best in "
          f"{sum(r['as_good'] for r in o)}/{len(o)}; pick median {statistics.median(r['ratio'] for r in o):.0%}")
    for name in ("tuner", "submit", "tpe-only", "random"):
        if name not in row:
            continue
        runs = row[name]
        confs = [r["configs"] for r in runs]
        reps = [r["evals"] for r in runs if r["evals"] is not None]
        hit = [c for c in confs if c is not None]
        within = sum(1 for c in hit if c <= target)
        med = statistics.median(hit) if hit else "-"
        print(f"  {name:9} reached 95% in {len(hit)}/{len(runs)} seeds; configurations median {med}, max "
              f"{max(hit) if hit else '-'}; within target in {within}/{len(runs)}; repetitions median "
              f"{statistics.median(reps) if reps else '-'}; final pick median "
              f"{statistics.median(r['ratio'] for r in runs):.0%}")
        seeds = " ".join(f"{r['configs']}/{r['evals']}" if r["evals"] is not None else "-" for r in runs)
        print(f"            per seed (configurations/repetitions): {seeds}")
        same = [r["as_good_configs"] for r in runs]
        print(f"            as good as the best (noise test on the grid's samples): reached in "
              f"{sum(c is not None for c in same)}/{len(runs)} seeds, within target in "
              f"{sum(c is not None and c <= target for c in same)}/{len(runs)}, final pick in "
              f"{sum(r['final_as_good'] for r in runs)}/{len(runs)}; per seed: "
              + " ".join(str(c) if c is not None else "-" for c in same))


if __name__ == "__main__":
    sys.exit(main())
