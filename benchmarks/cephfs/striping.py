"""Striping on a real CephFS (scripts/local-pfs.sh, 4 object servers, each capped): one 128 MiB
shared file written by 4 ranks at stripe count 1, 2 and 4 (POSIX, flushed inside the phase), rounds
alternated; per run the bytes each server wrote (their own counters), the time their placement
predicts (busiest server over its cap) and the time measured. Then the metadata cost of wide stripes
on many small files (ARCHER's case): 300 KiB files at stripe count 1 and 4 with a 64 KiB stripe unit
(so that a file's data does span 4 objects), create/stat/read/remove rates, rounds alternated.

    python benchmarks/cephfs/striping.py [--rounds 3] [--cap 50m] [--dir /tmp/pario-bench-pfs]

Needs root and /dev/fuse (the file system is started and stopped here). Figures: RESULTS.md."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20


def pario(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-m", "pario", "bench", *args, "--json", "--no-probe"],
                         capture_output=True, text=True, timeout=900)
    if out.returncode:
        sys.exit(f"pario bench {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def data_round(mount: str, count: int) -> dict:
    doc = pario(["-a", "posix", "--strategy", "shared", "-t", "1m", "-b", "32m", "-n", "4", "-w", "-e", "-i", "1",
                 "--stripe-count", str(count), "--dir", f"{mount}/data"])
    ph = doc["result"]["cases"][0]["phases"][0]
    srv = ph["servers"]
    return {"count": count, "measured": ph["open_to_close_s"], "predicted": srv.get("predicted_s"),
            "mib": [round(b / MIB, 1) for _, b in sorted(srv["bytes"].items())]}


def md_round(mount: str, count: int) -> dict:
    doc = pario(["--metadata", "--files-per-dir", "250", "--depth", "1", "--branching", "4", "--file-size", "300k",
                 "-n", "2", "-i", "1", "--stripe-count", str(count), "--stripe-size", "64k",
                 "--dir", f"{mount}/md"])
    rates = {}
    for ph in doc["result"]["cases"][0]["phases"]:
        rates[ph["op"]] = ph["ops"] / ph["open_to_close_s"] if ph["open_to_close_s"] else 0.0
    return {"count": count, **rates}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cap", default="50m")
    ap.add_argument("--dir", default="/tmp/pario-bench-pfs")
    args = ap.parse_args()
    script = ROOT / "scripts" / "local-pfs.sh"
    up = subprocess.run(["bash", str(script), "start", "--cap", args.cap, "--dir", args.dir],
                        capture_output=True, text=True)
    if up.returncode:
        sys.exit(up.stderr)
    mount = up.stdout.strip().splitlines()[-1]
    try:
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        data = [data_round(mount, c) for _ in range(args.rounds) for c in (1, 2, 4)]
        print("stripe count  measured  predicted  ratio  MiB per server (osd.0..3)")
        for r in data:
            print(f"{r['count']:>12}  {r['measured']:7.2f} s  {r['predicted']:7.2f} s  "
                  f"{r['measured'] / r['predicted']:5.2f}  {r['mib']}")
        for c in (1, 2, 4):
            mine = [r for r in data if r["count"] == c]
            print(f"stripe count {c}: median {statistics.median(r['measured'] for r in mine):.2f} s measured, "
                  f"{statistics.median(r['predicted'] for r in mine):.2f} s predicted")
        md = [md_round(mount, c) for _ in range(args.rounds) for c in (1, 4)]
        ops = [k for k in md[0] if k != "count"]
        print("metadata, 1000 files of 300 KiB, 2 ranks, stripe unit 64 KiB: files/s (median of rounds)")
        for c in (1, 4):
            mine = [r for r in md if r["count"] == c]
            print(f"  stripe count {c}: " + ", ".join(f"{op} {statistics.median(r[op] for r in mine):.0f}"
                                                    for op in ops))
        for op in ops:
            ratios = [b[op] / a[op] for a, b in zip(md[0::2], md[1::2]) if a[op]]
            print(f"  {op}: 4 stripes / 1 stripe, per round: {', '.join(f'{x:.2f}' for x in ratios)}")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        subprocess.run(["bash", str(script), "stop", "--dir", args.dir], capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
