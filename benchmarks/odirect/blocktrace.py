#!/usr/bin/env python3
"""The 1 MiB reads of one launch at the block layer, from a perf recording of the block tracepoints:

    perf record -a -m 4096 -e block:block_rq_issue -e block:block_rq_complete -e block:block_rq_requeue \
        -o PERF.data -- LAUNCH
    python3 benchmarks/odirect/blocktrace.py PERF.data

Prints the distinct 1 MiB read requests (by sector), their issues (a request the driver could not queue is
requeued and issued again), the requeues, and the span from the first issue to the last event, i.e. the
phase's time and rate as the disk saw them, independent of the tool's clock. perf may drop events under
load (it says so without -q): a count below the phase's transfers means a partial trace.
"""
import collections
import subprocess
import sys


def main():
    out = subprocess.run(["perf", "script", "-i", sys.argv[1]], capture_output=True, text=True).stdout
    issues, requeues, stamps = collections.Counter(), 0, []
    for line in out.splitlines():
        if "+ 2048 " not in line or " R" not in line:
            continue
        f = line.split()
        k = f.index("+")
        t = float(next(x for x in f if x.endswith(":") and x[:-1].replace(".", "").isdigit())[:-1])
        if "block_rq_issue:" in line:
            issues[int(f[k - 1])] += 1
            stamps.append(t)
        elif "block_rq_requeue:" in line:
            requeues += 1
        elif "block_rq_complete:" in line:
            stamps.append(t)
    if not issues:
        sys.exit(f"{sys.argv[1]}: no 1 MiB reads traced")
    span = max(stamps) - min(stamps)
    print(f"{sys.argv[1]}: {len(issues)} x 1 MiB read, {sum(issues.values())} issues, {requeues} requeues, "
          f"span {span:.3f} s, {len(issues) / span:.0f} MiB/s")


if __name__ == "__main__":
    main()
