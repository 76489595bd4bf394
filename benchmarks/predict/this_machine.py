#!/usr/bin/env python3
"""Calibrate `pario predict` on this machine, then predict `pario bench` cases it did not
calibrate on (1-4 ranks, POSIX and MPI-IO, file per process and shared) and compare with what
bench measures, each case run --rounds times (its median of medians).

    python benchmarks/predict/this_machine.py --dir /tmp/scratch [--rounds 3] [--system FILE]

A case is within target when predicted/measured is within 1.5x either way. Needs an installed
pario (make setup): the probes and the cases are real `pario bench` runs."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src"))

from pario.plan.cases import build_case  # noqa: E402
from pario.predict import model, system  # noqa: E402
from pario.predict.calibrate import measured  # noqa: E402
from pario.predict.pattern import from_case  # noqa: E402

# (name, ranks, case): none of them is a calibration probe (predict/calibrate.py probes())
CASES = [
    ("fpp-posix-2r-1m", 2, {"backend": "posix", "strategy": "fpp", "transfer": "1m", "block": "64m"}),
    ("fpp-posix-4r-256k", 4, {"backend": "posix", "strategy": "fpp", "transfer": "256k", "block": "32m"}),
    ("shared-posix-3r-1m", 3, {"backend": "posix", "transfer": "1m", "block": "48m"}),
    ("shared-posix-1r-16k", 1, {"backend": "posix", "transfer": "16k", "block": "32m"}),
    ("shared-mpiio-2r-1m", 2, {"backend": "mpiio", "transfer": "1m", "block": "64m"}),
    ("shared-mpiio-coll-4r-1m", 4, {"backend": "mpiio", "collective": True, "transfer": "1m", "block": "32m"}),
    ("shared-mpiio-coll-2r-s8", 2, {"backend": "mpiio", "collective": True, "transfer": "1m", "block": "1m",
                                    "segments": 32}),
    ("fpp-mpiio-4r-4m", 4, {"backend": "mpiio", "strategy": "fpp", "transfer": "4m", "block": "32m"}),
]


def bench(directory: str, ranks: int, case: dict, reps: int) -> float | None:
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as fh:
        fh.write(f"[defaults]\nreps = {reps}\n\n[[case]]\nops = [\"write\"]\n"
                 + "".join(f"{k} = {json.dumps(v)}\n" for k, v in case.items()))
        job = fh.name
    try:
        out = subprocess.run([sys.executable, "-m", "pario", "bench", "--config", job, "-n", str(ranks), "--dir",
                              directory, "--json", "--no-probe", "--db", os.path.join(directory, "db.sqlite")],
                             capture_output=True, text=True, timeout=900)
    finally:
        os.unlink(job)
    if out.returncode:
        print(out.stderr[-500:], file=sys.stderr)
        return None
    rows = json.loads(out.stdout).get("summary") or []
    return measured(rows[0]) if rows else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="the directory measured")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--system", help="a system file already calibrated here (default: calibrate now)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    path = args.system
    if not path:
        path = os.path.join(args.dir, "this-machine.toml")
        subprocess.run([sys.executable, "-m", "pario", "predict", "--system", path, "--calibrate", "--dir", args.dir,
                        "-i", str(args.reps)], check=True)
    sys_ = system.load(path)
    print(f"\n{'case':<26} {'measured':>10} {'predicted':>10} {'ratio':>6}  binding")
    ok = 0
    for name, ranks, case in CASES:
        runs = [bench(args.dir, ranks, case, args.reps) for _ in range(args.rounds)]
        got = [r for r in runs if r]
        if not got:
            print(f"{name:<26} failed")
            continue
        seconds = statistics.median(got)
        pat = from_case(build_case({**case, "ops": ["write"]}), {"nodes": 1, "ranks_per_node": ranks})
        pred = model.predict(sys_, pat)
        ratio = pred.seconds / seconds
        ok += 1 / 1.5 <= ratio <= 1.5
        spread = f"[{min(got):.3g}-{max(got):.3g}]"
        print(f"{name:<26} {seconds:>8.3g} s {pred.seconds:>8.3g} s {ratio:>5.2f}x  {pred.binding} {spread}")
    print(f"\nwithin 1.5x: {ok} of {len(CASES)} (time predicted / time measured; the spread is over --rounds runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
