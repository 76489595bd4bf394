"""What the in-phase byte count costs the transfer loop (issue 15): the same 4 KiB-transfer run with
the engine before it (BASE, e.g. a build of main) and with this tree's engine, alternated pair by
pair, through `pario bench` (which always gives the engine a status directory, so the new engine
reads the clock once per MiB and rewrites its status line at most once a second).

    python benchmarks/inphase_status/run.py --base /tmp/base-engine [--pairs 5] [--ranks 2]
        [--block 64m] [--dir DIR]

Prints one line per measurement, then per operation the median of the pairs' ratios new/base
(1.00 = no cost). The figures and the command go into RESULTS.md by hand, with the load."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(engine: str, args, directory: str) -> dict[str, float]:
    argv = [str(ROOT / ".venv" / "bin" / "pario"), "bench", "-n", str(args.ranks), "-F", "-t", "4k",
            "-b", args.block, "-w", "-r", "-i", str(args.reps), "--dir", directory, "--no-probe", "--json"]
    env = dict(os.environ, PARIO_ENGINE=engine, PARIO_DB=f"{directory}/runs.db")
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
    row = json.loads(out.stdout)["summary"][0]
    return {op: row[op]["bw_mib"]["median"] for op in ("write", "read")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the engine without the byte count")
    ap.add_argument("--new", help="the engine with it (default: the venv's)")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--block", default="64m")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", help="where the files go (default: a temporary directory)")
    args = ap.parse_args()
    new = args.new or subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c",
                                      "from pario.platform.engine import engine_path; print(engine_path())"],
                                     check=True, capture_output=True, text=True).stdout.strip()
    ratios: dict[str, list[float]] = {"write": [], "read": []}
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        for i in range(args.pairs):
            order = [("base", args.base), ("new", new)] if i % 2 == 0 else [("new", new), ("base", args.base)]
            got = {}
            for name, engine in order:
                got[name] = bench(engine, args, directory)
                print(f"pair {i} {name:4s} write {got[name]['write']:9.1f} MiB/s  read {got[name]['read']:9.1f} MiB/s",
                      flush=True)
            for op in ratios:
                ratios[op].append(got["new"][op] / got["base"][op])
    for op, r in ratios.items():
        print(f"{op}: median new/base {statistics.median(r):.3f} (pairs: {', '.join(f'{x:.3f}' for x in r)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
