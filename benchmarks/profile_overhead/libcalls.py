#!/usr/bin/env python3
"""Overhead of libpario-preload.so per intercepted I/O library call (issue 29), beside the POSIX
figures of run.py: libloop.c times a loop of one HDF5, NetCDF, PnetCDF or ADIOS2 call with and
without the profiler, in alternated pairs (plain/profiled, then profiled/plain, ...); the median
of the per-call differences is the added cost. The loop times itself: start-up and the log are
not counted. Each call is made cheap on purpose (a one-element write into an in-memory HDF5 file,
a netCDF buffer, a non-blocking PnetCDF post, a deferred ADIOS2 put), so that the profiler's share
is as large as it can be.

    python3 benchmarks/profile_overhead/libcalls.py [--reps 11] [--cpu 1] [--write-results]
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import machine, preload  # noqa: E402

CASES = [  # (name, libloop call, calls per run)
    ("H5Dwrite, 1 element, in-memory file", "h5write", 200_000),
    ("nc_put_vara_double, 1 element, classic", "ncput", 2_000_000),
    ("ncmpi_iput_vara_double, 1 element (post)", "pncput", 200_000),
    ("adios2_put deferred, 1 element", "a2put", 200_000),
]


def build(work: Path) -> Path:
    """libloop against the libraries the engine uses (Debian's Open MPI flavours, the cached ADIOS2)."""
    configs = sorted(glob.glob(os.path.expanduser("~/.cache/pario/adios2-*/bin/adios2-config")))
    a2 = configs[-1] if configs else shutil.which("adios2-config")
    if not a2:
        sys.exit("libcalls: no adios2-config (scripts/build-adios2.sh builds ADIOS2)")
    flags = subprocess.run([a2, "--c-flags", "-m"], capture_output=True, text=True, check=True).stdout.split()
    libs = subprocess.run([a2, "--c-libs", "-m"], capture_output=True, text=True, check=True).stdout.split()
    nc = "/usr/lib/x86_64-linux-gnu/netcdf/mpi"
    exe = work / "libloop"
    subprocess.run(["mpicc", "-O2", *flags, "-I/usr/include/hdf5/openmpi", f"-I{nc}/include", "-o", str(exe),
                    str(HERE / "libloop.c"), "-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi", "-lhdf5", f"-L{nc}/lib",
                    "-lnetcdf", "-lpnetcdf", *libs], check=True)
    return exe


def one(exe: Path, call: str, count: int, target: Path, env) -> float:
    out = subprocess.run([str(exe), call, str(count), str(target)], env=env, check=True, capture_output=True,
                         text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=11, help="pairs per case (default 11)")
    ap.add_argument("--dir", default="/dev/shm", help="where the files go (default /dev/shm)")
    ap.add_argument("--cpu", type=int, help="pin the runs to this CPU")
    ap.add_argument("--write-results", action="store_true", help="append the table to RESULTS.md beside this script")
    args = ap.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    lib = preload()
    work = Path(tempfile.mkdtemp(prefix="pario-libcalls-"))
    load_before = os.getloadavg()[0]
    try:
        exe = build(work)
        target = Path(tempfile.mkdtemp(prefix="pario-libcalls-", dir=args.dir))
        plain = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        profiled = dict(plain, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(work / "logs"))
        rows = []
        for name, call, count in CASES:
            p_t, q_t, diffs = [], [], []
            for k in range(args.reps):
                order = [(plain, p_t), (profiled, q_t)] if k % 2 == 0 else [(profiled, q_t), (plain, p_t)]
                for env, acc in order:
                    acc.append(one(exe, call, count, target, env))
                diffs.append(q_t[-1] - p_t[-1])
            diffs.sort()
            mid = diffs[len(diffs) // 4:len(diffs) - len(diffs) // 4] or diffs
            rows.append((name, count, statistics.median(p_t) * 1e9, statistics.median(q_t) * 1e9,
                         statistics.median(diffs) * 1e9, min(mid) * 1e9, max(mid) * 1e9))
            print(f"{name}: +{rows[-1][4]:.1f} ns/call", file=sys.stderr)
        shutil.rmtree(target, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    head = ("| call | calls | plain ns/call | profiled ns/call | added ns/call (median of pairs) | middle half of "
            "pairs (ns) |\n|---|---:|---:|---:|---:|---|")
    table = "\n".join([head] + [f"| {n} | {c:,} | {p:.1f} | {q:.1f} | {d:+.1f} | {lo:+.1f} .. {hi:+.1f} |"
                                for n, c, p, q, d, lo, hi in rows])
    cmd = "python3 benchmarks/profile_overhead/libcalls.py " + " ".join(sys.argv[1:])
    text = (f"\n## I/O library calls (issue 29), measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
            f"    PARIO_PRELOAD={lib} {cmd}\n\nMachine: {machine()}.\n1-minute load average before/after: "
            f"{load_before:.2f} / {os.getloadavg()[0]:.2f}. {args.reps} alternated pairs per case; medians.\n\n"
            f"{table}\n")
    print(text)
    if args.write_results:
        with open(HERE / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
