"""What a command's guard (run/scratch_guard.py) costs pario's own timeline: the way it started
before (a sentinel with a private directory: pario waits for it to start and name the directory,
then removes it, as Sentinel.start() still does for a run) and now (Sentinel.start(private=False):
no directory, no wait), alternated pair by pair in one process.

    python benchmarks/faults/guard_start.py [--pairs 20] [--body 0.2]

Per way: the median time pario is held at the start, and of a whole guarded block whose body takes
BODY seconds (a command's own work: the sentinel starts during it). Figures go into RESULTS.md by
hand, with the load average. No assertion: a measurement only."""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time

from pario.run.sentinel import Sentinel


def once(private: bool, body: float) -> tuple[float, float]:
    t0 = time.perf_counter()
    watcher = Sentinel()
    if private:  # the guard before: wait for the sentinel's directory, then remove it
        shutil.rmtree(watcher.start(), ignore_errors=True)
    else:
        watcher.start(private=False)
    held = time.perf_counter() - t0
    time.sleep(body)
    watcher.close()
    return held, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--body", type=float, default=0.2, help="seconds of the command's own work in the block")
    args = ap.parse_args()
    got: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for k in range(args.pairs):
        for private in ((True, False) if k % 2 == 0 else (False, True)):
            got[private].append(once(private, args.body))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, {args.pairs} pairs, body {args.body} s")
    for private, name in ((True, "before (private directory, waited for)"), (False, "now (no directory, no wait)")):
        held = statistics.median(h for h, _ in got[private]) * 1e3
        total = statistics.median(t for _, t in got[private]) * 1e3
        print(f"{name:40} start {held:7.1f} ms   block {total:7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
