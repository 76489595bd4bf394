"""What checking every byte of a timed read costs: pario -r (every byte checked window by window,
the check time taken out of the timings and reported as check_s), pario -r --no-read-check (as
IOR's -r: no comparison), against IOR -r and IOR -r -R
(checkRead: IOR compares every read inside its timed read) on the same case, alternated.

    python benchmarks/read_check/run.py [--rounds 3] [--ranks 2] [--block 256m] [--transfer 1m]

IOR from $IOR (default /opt/ior4/bin/ior); pario from the venv (make setup). Prints one line per
measurement and the medians; the figures and the command go into RESULTS.md by hand."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MPIRUN = ["mpirun", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def ior(args, directory: str, check: bool) -> dict:
    out = Path(directory) / "ior.json"
    argv = MPIRUN + ["-n", str(args.ranks), os.environ.get("IOR", "/opt/ior4/bin/ior"), "-a", "POSIX", "-F",
                     "-t", args.transfer, "-b", args.block, "-w", "-r", "-i", str(args.reps), "-e",
                     "-O", "summaryFormat=JSON", "-O", f"summaryFile={out}", "-o", f"{directory}/ior"]
    if check:
        argv.append("-R")
    t0 = time.monotonic()
    subprocess.run(argv, check=True, capture_output=True)
    wall = time.monotonic() - t0
    doc = json.loads(out.read_text())
    out.unlink()
    read = [s for s in doc["summary"] if s["operation"] == "read"][0]
    return {"tool": "ior -R" if check else "ior", "read_mib": read["bwMedianMIB"] if "bwMedianMIB" in read
            else read["bwMeanMIB"], "wall_s": wall, "check_s": None}


def pario(args, directory: str, check: bool = True) -> dict:
    argv = [str(ROOT / ".venv" / "bin" / "pario"), "bench", "-n", str(args.ranks), "-F", "-t", args.transfer,
            "-b", args.block, "-w", "-r", "-i", str(args.reps), "-e", "--dir", directory, "--no-probe", "--json"]
    if not check:
        argv.append("--no-read-check")
    env = dict(os.environ, PARIO_DB=f"{directory}/runs.db")
    t0 = time.monotonic()
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    doc = json.loads(out.stdout)
    reads = [p for p in doc["result"]["cases"][0]["phases"] if p["op"] == "read"]
    if not check:
        return {"tool": "pario -r --no-read-check", "read_mib": doc["summary"][0]["read"]["bw_mib"]["median"],
                "wall_s": wall, "check_s": None}
    return {"tool": "pario -r", "read_mib": doc["summary"][0]["read"]["bw_mib"]["median"], "wall_s": wall,
            "check_s": statistics.median(p["verify"].get("check_s", 0.0) for p in reads),
            "read_s": statistics.median(p["open_to_close_s"] for p in reads)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--block", default="256m")
    ap.add_argument("--transfer", default="1m")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=None, help="scratch directory (default: a temporary one)")
    args = ap.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="pario-readcheck-")
    rows = []
    try:
        for r in range(args.rounds):
            for run in (lambda: pario(args, directory), lambda: pario(args, directory, False),
                        lambda: ior(args, directory, False),
                        lambda: ior(args, directory, True)):
                row = run()
                rows.append(row)
                print(f"round {r}: {row['tool']:24s} read {row['read_mib']:8.0f} MiB/s  wall {row['wall_s']:6.1f} s"
                      + (f"  check {row['check_s']:.3f} s of a {row['read_s']:.3f} s read" if row["check_s"] is not None
                         else ""), flush=True)
    finally:
        if not args.dir:
            shutil.rmtree(directory, ignore_errors=True)
    for tool in ("pario -r", "pario -r --no-read-check", "ior", "ior -R"):
        mine = [r for r in rows if r["tool"] == tool]
        print(f"median {tool:24s} read {statistics.median(r['read_mib'] for r in mine):8.0f} MiB/s  "
              f"wall {statistics.median(r['wall_s'] for r in mine):6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
