"""What the engine-vs-launcher MPI check costs a command: one `pario-engine --mpi-library` exec
(run/engine_mpi.py; cached per engine path and mtime, so once per command). Pairs alternated:
`--mpi-library` against `--version` (the same binary started, no MPI call), per engine; then a
whole small `pario bench` (null backend, 2 ranks) under the engine's own launcher, for scale.

    PARIO_ENGINE=... PARIO_ENGINE_MPICH=build/mpich/pario-engine python benchmarks/engine_mpi/run.py --pairs 21
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, **kw):
    t = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, stdin=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=21)
    ap.add_argument("--benches", type=int, default=5)
    args = ap.parse_args()
    engines = [("Open MPI", os.environ.get("PARIO_ENGINE"), "mpirun"),
               ("MPICH", os.environ.get("PARIO_ENGINE_MPICH"), "mpiexec.mpich")]
    print(f"load average before: {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")
    print("| engine | --mpi-library median ms | --version median ms | ratio (median of pairs) | "
          "pario bench null, median s |")
    print("|---|---:|---:|---:|---:|")
    for name, engine, launcher in engines:
        if not engine:
            print(f"| {name} | not built | | | |")
            continue
        lib, ver, ratios = [], [], []
        for k in range(args.pairs):
            order = [("lib", "--mpi-library"), ("ver", "--version")]
            if k % 2:
                order.reverse()
            got = {key: timed([engine, flag]) for key, flag in order}
            lib.append(got["lib"])
            ver.append(got["ver"])
            ratios.append(got["lib"] / got["ver"])
        whole = []
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PARIO_ENGINE=engine, PARIO_DB=f"{tmp}/runs.db", XDG_CACHE_HOME=f"{tmp}/cache")
            for _ in range(args.benches):
                whole.append(timed([sys.executable, "-m", "pario", "bench", "-a", "null", "-n", "2", "-t", "64k",
                                    "-b", "256k", "-w", "--no-probe", "--mpirun", launcher, "--dir", f"{tmp}/s"],
                                   env=env))
        print(f"| {name} | {1e3 * statistics.median(lib):.1f} | {1e3 * statistics.median(ver):.1f} | "
              f"{statistics.median(ratios):.2f} | {statistics.median(whole):.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
