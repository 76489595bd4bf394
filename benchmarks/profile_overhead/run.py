#!/usr/bin/env python3
"""Overhead of libpario-preload.so per intercepted call (issue 5).

Runs writeloop.c with and without the profiler in alternated pairs (plain/profiled, then
profiled/plain, ...) and reports the median per-call difference and the median ratio. The loop
times itself, so process start, profiler start-up and log writing are not counted.

    python3 benchmarks/profile_overhead/run.py [--reps 11] [--dir /dev/shm] [--write-results]
        [--baseline OTHER.so]   # e.g. the library before a change, measured in the same rounds
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = [  # (name, call, size, count)
    ("write 512 B", "write", 512, 2_000_000),
    ("fwrite 512 B", "fwrite", 512, 2_000_000),
    ("fwrite 16 B, no syscalls", "fwritebuf", 16, 2_000_000),
    ("write 64 KiB", "write", 65536, 20_000),
    ("write 1 MiB", "write", 1 << 20, 1_000),
]
CASE_SIZE = {name: size for name, _, size, _ in CASES}


def preload() -> str:
    lib = os.environ.get("PARIO_PRELOAD")
    if lib and os.path.isfile(lib):
        return lib
    build = ROOT / "build" / "preload-bench"
    subprocess.run(["cmake", "-S", str(ROOT / "csrc" / "intercept"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    return str(build / "libpario-preload.so")


def one(exe: Path, call: str, size: int, count: int, target: Path, env) -> float:
    out = subprocess.run([str(exe), call, str(size), str(count), str(target)], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip())


def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    clock = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    return (f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
            f"glibc {platform.libc_ver()[1]}, clocksource {clock.read_text().strip() if clock.exists() else '?'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=11, help="pairs per case (default 11)")
    ap.add_argument("--dir", default="/dev/shm", help="where the loop writes (default /dev/shm: CPU cost only)")
    ap.add_argument("--cpu", type=int, help="pin both runs to this CPU (less migration noise)")
    ap.add_argument("--baseline", help="another build of the library, measured in the same alternated rounds")
    ap.add_argument("--write-results", action="store_true", help="rewrite RESULTS.md beside this script")
    args = ap.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})  # inherited by every run
    load_before = os.getloadavg()[0]
    lib = preload()
    work = Path(tempfile.mkdtemp(prefix="pario-overhead-"))
    try:
        exe = work / "writeloop"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(HERE / "writeloop.c")], check=True)
        target = Path(args.dir) / f"pario-overhead-{os.getpid()}.dat"
        plain_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        prof_env = dict(plain_env, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(work / "logs"))
        base_env = dict(prof_env, LD_PRELOAD=os.path.abspath(args.baseline)) if args.baseline else None
        rows = []
        for name, call, size, count in CASES:
            plain, prof, base = [], [], []
            for rep in range(args.reps):
                order = [(plain, plain_env), (prof, prof_env)] + ([(base, base_env)] if base_env else [])
                for acc, env in (order if rep % 2 == 0 else order[::-1]):
                    acc.append(one(exe, call, size, count, target, env))
            diffs = [b - a for a, b in zip(plain, prof)]
            ratios = [b / a for a, b in zip(plain, prof)]
            q1, _, q3 = statistics.quantiles(diffs, n=4, method="inclusive") if len(diffs) > 1 else (diffs[0],) * 3
            based = statistics.median([b - a for a, b in zip(plain, base)]) if base else None
            row = (name, count, statistics.median(plain), statistics.median(prof), statistics.median(diffs),
                   statistics.median(ratios), min(diffs), max(diffs), q1, q3, based)
            rows.append(row)
            print(f"{name:14s} plain {row[2]:9.1f} ns  profiled {row[3]:9.1f} ns  added {row[4]:+7.1f} ns/call  "
                  f"ratio {row[5]:.3f}  (pair diffs {row[6]:+.1f} .. {row[7]:+.1f}, middle half {q1:+.1f} .. {q3:+.1f})"
                  + (f"  baseline added {based:+.1f}" if base else ""), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.load = (load_before, os.getloadavg()[0])
    if args.write_results:
        write_results(rows, args)
    return 0


def write_results(rows, args) -> None:
    cmd = "python3 benchmarks/profile_overhead/run.py " + " ".join(
        a for a in sys.argv[1:] if a != "--write-results") + " --write-results"
    lib = os.environ.get("PARIO_PRELOAD")
    if lib:
        cmd = f"PARIO_PRELOAD={lib} {cmd}"
    lines = [
        "# Profiler overhead per intercepted call",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with:",
        "",
        f"    {cmd.strip()}",
        "",
        f"Machine: {machine()}.",
        f"1-minute load average before/after: {args.load[0]:.2f} / {args.load[1]:.2f} "
        "(other work on the machine shows up as spread between pairs).",
        f"Target directory: `{args.dir}`; {args.reps} alternated pairs per case; medians over pairs.",
        "Times are the loop's own time per call (profiler start-up and log writing excluded).",
        "",
    ]
    if args.baseline:
        lines += [f"Baseline: `{args.baseline}`, run in the same alternated rounds (its added time in the last "
                  "column).", ""]
    head = ("| case | calls | plain ns/call | profiled ns/call | added ns/call (median of pairs) | median ratio "
            "| middle half of pairs (ns) | all pairs (ns) |")
    lines += [head + (" baseline added ns/call |" if args.baseline else ""),
              "|---|---:|---:|---:|---:|---:|---|---|" + ("---:|" if args.baseline else "")]
    for name, count, p, q, d, r, lo, hi, q1, q3, based in rows:
        lines.append(f"| {name} | {count:,} | {p:.1f} | {q:.1f} | {d:+.1f} | {r:.3f} | {q1:+.1f} .. {q3:+.1f} "
                     f"| {lo:+.1f} .. {hi:+.1f} |" + (f" {based:+.1f} |" if args.baseline else ""))
    lines += ["", "Target (issue 5): at most 50 ns added per intercepted call, no measurable cost at 64 KiB and above.",
              "",
              "How to read it: the \"no syscalls\" row is the profiler's own cost per call (a stream buffer larger",
              "than the data, so only the wrapper and the record update are timed); its pair spread is small. The",
              "rows with system calls also carry what a system call does to the caches the wrapper touches right",
              "after it, and the machine's noise: compare the added time with the spread of the pairs.", ""]
    for name, _count, _p, _q, d, _r, lo, hi, _q1, _q3, _based in rows:
        if CASE_SIZE[name] >= 65536:
            verdict = ("slower in every pair: a measurable cost" if lo > 0 else
                       "faster in every pair (machine drift): no measurable cost" if hi < 0 else
                       "inside the pair spread: no measurable cost")
            lines.append(f"- {name}: {d:+.1f} ns added, pairs {lo:+.1f} .. {hi:+.1f}; {verdict}.")
    lines += ["", "Darshan 3.5.0 on this machine (survey, anchors-characterize.md): about 280 ns per call, 1.26x on "
              "the 512 B write loop.", ""]
    (HERE / "RESULTS.md").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
