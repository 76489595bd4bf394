"""Measure the whole grid of `pario tune`'s default space for one case on this machine, with
repetitions, and store it as JSON (the input of replay.py). Each launch's rates are kept in order:
the first repetition of a launch is the warm-up that `pario tune` does not count.

Every canonical configuration of the space (tune.space.Space.grid: configurations the stack treats
the same are measured once) runs as one engine launch of --reps repetitions, in an order shuffled per
pass, for --passes passes (so each configuration's samples come from more than one moment of the
shared machine). Writes and reads are measured in the same run; ROMIO's collective-buffering value is
set for both (romio_cb_write = romio_cb_read), so one grid serves the write and the read objective.
The file is rewritten after every launch, and a rerun with the same --out skips what it holds.

    .venv/bin/python benchmarks/tune/measure_grid.py --xfer 1m --block 16m --out benchmarks/tune/grid-1m.json
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

from pario.plan.cases import build_case
from pario.platform import stack
from pario.platform.engine import engine_listing, engine_path
from pario.platform.mpi import detect, find_mpirun
from pario.tune.knobs import build, context
from pario.tune.trials import EngineTrials


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xfer", default="1m")
    ap.add_argument("--block", default="16m")
    ap.add_argument("-n", "--ranks", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5, help="repetitions per launch (the first is kept apart: warm-up)")
    ap.add_argument("--passes", type=int, default=2, help="launches per configuration, at different times")
    ap.add_argument("--dir", default=os.environ.get("PARIO_SCRATCH", "/tmp/pario-tune-grid"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    case = build_case({"backend": "mpiio", "collective": True, "transfer": args.xfer, "block": args.block,
                       "ops": ["write", "read"], "name": f"grid-{args.xfer}"})
    engine = engine_path()
    mpi = detect(find_mpirun(None))
    os.makedirs(args.dir, exist_ok=True)
    facts = stack.collect(args.dir, engine=engine, mpirun=mpi.path)
    caps = next(b["caps"] for b in engine_listing(engine)["backends"] if b["name"] == "mpiio")
    ctx = context(case, args.ranks, facts, caps, "write", None)
    space = build(ctx)
    grid = space.grid()
    doc = {"case": {k: v for k, v in case.items() if not k.startswith("_")}, "ranks": args.ranks,
           "context": ctx.to_dict(), "space": space.values(),
           "dropped": [d.__dict__ for d in space.dropped], "reps_per_launch": args.reps,
           "command": "python benchmarks/tune/measure_grid.py " + " ".join(sys.argv[1:]),
           "host": facts.get("host"), "mpi": facts.get("mpi", {}).get("version"), "fs": ctx.fs, "configs": []}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            old = json.load(fh)
        if old.get("space") == doc["space"]:
            doc["configs"] = old["configs"]
    by_key = {c["key"]: c for c in doc["configs"]}
    for config in grid:
        key = space.canonical(config)
        by_key.setdefault(key, {"key": key, "config": config, "launches": []})
    doc["configs"] = list(by_key.values())
    trials = EngineTrials(space=space, base=case, ranks=args.ranks, engine=engine, mpi=mpi, directory=args.dir,
                          launcher="mpirun", store=None, timeout=300, both_ops=True)
    rng = random.Random(args.seed)
    for p in range(args.passes):
        todo = [c for c in doc["configs"] if len(c["launches"]) <= p]
        rng.shuffle(todo)
        for i, entry in enumerate(todo):
            t0 = time.monotonic()
            m = trials.run(entry["config"], args.reps, "grid")
            entry["launches"].append({"pass": p, "status": m.status, "message": m.message,
                                      "write": m.rates, "read": m.other.get("read", []),
                                      "seconds": round(time.monotonic() - t0, 2),
                                      "not_applied": [r["key"] for r in m.checks if r.get("status") == "not applied"],
                                      "unverified": [r["key"] for r in m.checks if r.get("status") == "unverified"]})
            counted = [r for launch in entry["launches"] for r in launch["write"][1:]]
            w = statistics.median(counted) if counted else 0
            print(f"pass {p + 1}/{args.passes} {i + 1}/{len(todo)} {m.status} write {w:8.1f} MiB/s "
                  f"{json.dumps(entry['config'])}", flush=True)
            tmp = args.out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1)
            os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
