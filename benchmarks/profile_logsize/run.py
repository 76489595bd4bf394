"""Size of a `pario profile` job log against the rank count (issue 15).

The program (tests/preload/mpi_shared.c) has every rank write 4 x 64 KiB collectively into one
shared file and read it back: the program's own I/O does not grow per rank in the log (the shared
file is reduced across ranks at MPI_Finalize), so whatever grows is overhead. The ranks are
oversubscribed on small machines: the figure is the log's size, not a speed.

    python benchmarks/profile_logsize/run.py [--pario PATH] [--ranks 4,16,64,256] [--out FILE.json]

--pario names the pario to measure (default: the one on PATH); the table goes to stdout, the
figures to --out as JSON. At 256 ranks on 2 cores Open MPI 4.1's mpirun often reports a rank
"exiting improperly" after every rank has called MPI_Finalize (with or without the profiler:
plain mpirun does it too) and exits 1; the log is complete then (every process finalized, the
reduction done), so its size is recorded with the exit status beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "tests", "preload", "mpi_shared.c")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pario", default=shutil.which("pario") or "pario")
    ap.add_argument("--ranks", default="4,16,64,256")
    ap.add_argument("--out", help="write the figures here as JSON")
    ap.add_argument("--label", default="", help="a name for this pario in the JSON (before, after, ...)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pario-logsize-")
    prog = os.path.join(work, "mpi_shared")
    subprocess.run(["mpicc", "-O2", "-o", prog, SOURCE], check=True)
    rows = []
    for n in (int(x) for x in args.ranks.split(",")):
        log = os.path.join(work, f"job{n}.log")
        data = os.path.join(work, "shared.dat")
        t0 = time.time()
        proc = subprocess.run([args.pario, "profile", "-n", str(n), "-o", log, "--", prog, data],
                              capture_output=True, text=True)
        took = time.time() - t0
        if not os.path.exists(log):
            print(f"{n} ranks: pario profile failed ({proc.returncode}): {proc.stderr.strip()[-300:]}",
                  file=sys.stderr)
            continue
        size = os.path.getsize(log)
        with open(log, encoding="utf-8") as fh:
            doc = json.load(fh)
        records = sum(len(m["records"]) if isinstance(m, dict) else len(m)
                      for p in doc["processes"] for m in (p.get("modules") or {}).values())
        procs = doc["processes"]
        common = (doc.get("common") or {}).get("process") or {}  # version 2 keeps shared fields once
        finalized = sum(1 for p in procs if {**common, **p.get("process", {})}.get("mpi_finalized"))
        rows.append({"ranks": n, "bytes": size, "records": records, "version": doc.get("version"),
                     "processes": len(procs), "finalized": finalized, "exit": proc.returncode,
                     "seconds": round(took, 1)})
        print(f"{n:5d} ranks: {size:9d} bytes, {records:5d} records, log version {doc.get('version')}, "
              f"{finalized}/{len(procs)} processes finalized, exit {proc.returncode}, {took:.1f} s", flush=True)
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        print(f"growth: {(b['bytes'] - a['bytes']) / (b['ranks'] - a['ranks']):.0f} bytes per rank "
              f"from {a['ranks']} to {b['ranks']} ranks")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"label": args.label, "pario": args.pario, "host": os.uname().nodename,
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}, fh, indent=1)
            fh.write("\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
