#!/usr/bin/env python3
"""pario against IOR on the same cases, in one run, pairs alternated.

Cases (4 ranks by default): file per process and one shared file; 1 MiB, 4 KiB and 512 B
transfers; POSIX, MPI-IO independent and MPI-IO collective; Open MPI's ompio and romio321.
Each case runs pario (its -i repetitions), then IOR with the same flags, alternated --rounds
times, so that both see the same machine states; the figures are medians over all repetitions
of all rounds and the ratio pario/IOR is computed within the case. Where IOR is not installed,
pario's figures are recorded alone.

    python3 benchmarks/compare_ior.py [--ranks 4] [--reps 5] [--rounds 3] [--ior PATH] [--dir DIR] [--quick]

Writes benchmarks/results/<date>.json (everything) and prints a Markdown table to paste into
benchmarks/RESULTS.md with the command that made it.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (label, pario flags, IOR flags); sizes chosen so that each phase moves enough data to time.
SIZES = [("1m", "64m"), ("4k", "8m"), ("512", "2m")]
APIS = [
    ("posix fpp", ["-a", "posix", "-F"], ["-a", "POSIX", "-F"]),
    ("posix shared", ["-a", "posix"], ["-a", "POSIX"]),
    ("mpiio shared ind", ["-a", "mpiio"], ["-a", "MPIIO"]),
    ("mpiio shared coll", ["-a", "mpiio", "-c"], ["-a", "MPIIO", "-c"]),
    ("mpiio fpp ind", ["-a", "mpiio", "-F"], ["-a", "MPIIO", "-F"]),
]


def find_ior(given):
    for cand in (given, os.environ.get("IOR"), shutil.which("ior"), "/opt/ior/bin/ior"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def mpirun_prefix(n, io):
    argv = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        argv.append("--allow-run-as-root")
    return argv + ["--mca", "io", io]


def run_pario(flags, ranks, reps, io, directory, db):
    cmd = [sys.executable, "-m", "pario", "bench", *flags, "-n", str(ranks), "-w", "-r", "-i", str(reps),
           "--io", io, "--dir", directory, "--db", db, "--no-probe", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1:] or ["?"], "command": " ".join(cmd)}
    doc = json.loads(out.stdout)
    phases = doc["result"]["cases"][0]["phases"]
    return {"command": " ".join(cmd[2:]), "run": doc["run"], "xfer": doc["result"]["cases"][0]["xfer"],
            "rows": [(p["op"], p["bw_mib"]) for p in phases]}


def run_ior(ior, flags, ranks, reps, io, directory, xfer):
    summary = os.path.join(directory, "ior-summary.json")
    cmd = mpirun_prefix(ranks, io) + [ior, *flags, "-w", "-r", "-i", str(reps), "-o",
                                      os.path.join(directory, "ior.dat"),
                                      "-O", "summaryFormat=JSON", "-O", f"summaryFile={summary}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode or not os.path.exists(summary):
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["?"], "command": " ".join(cmd)}
    with open(summary) as fh:
        doc = json.load(fh)
    os.unlink(summary)
    rows = []
    for item in doc["tests"][0]["Results"]:
        for e in item if isinstance(item, list) else [item]:
            if e.get("access") in ("write", "read"):
                rows.append((e["access"], e["bwMiB"]))
    return {"command": " ".join(cmd), "xfer": xfer, "rows": rows}


def merge(runs):
    """One tool's rounds of one case: the figures over all their repetitions, or the first error."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    rows = [row for r in runs for row in r["rows"]]
    return {"commands": [r["command"] for r in runs], **figures(rows, runs[0]["xfer"])}


def figures(rows, xfer):
    """Median [min-max] open-to-close MiB/s per op; IOPS computed the same way for both tools
    (open-to-close rate / transfer size: IOR 3 reports no per-iteration IOPS)."""
    out = {}
    for op in ("write", "read"):
        bw = [r[1] for r in rows if r[0] == op]
        iops = [b * 2**20 / xfer for b in bw]
        if bw:
            out[op] = {"bw_median": statistics.median(bw), "bw_min": min(bw), "bw_max": max(bw),
                       "iops_median": statistics.median(iops), "samples": bw}
    return out


def nbytes(text):
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def machine():
    mpi = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    return {"host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release(),
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "mpi": mpi[0] if mpi else "?", "python": platform.python_version()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="pario/IOR alternations per case (default 3)")
    ap.add_argument("--ior")
    ap.add_argument("--dir", help="scratch directory (default: a new one under the current directory)")
    ap.add_argument("--quick", action="store_true", help="smaller blocks (a smoke run, not for the record)")
    ap.add_argument("--table", metavar="JSON", help="print the table of a recorded run and exit")
    args = ap.parse_args()
    if args.table:
        return rerender(args.table)
    ior = find_ior(args.ior)
    directory = args.dir or tempfile.mkdtemp(prefix="pario-vs-ior-", dir=os.getcwd())
    db = os.path.join(directory, "bench.db")
    results = []
    for io in ("ompio", "romio321"):
        for label, pflags, iflags in APIS:
            if io == "romio321" and label.startswith("posix"):
                continue  # the io component does not touch POSIX
            for t, b in SIZES:
                if args.quick:
                    b = {"64m": "8m", "8m": "1m", "2m": "256k"}[b]
                size = ["-t", t, "-b", b]
                row = {"case": f"{label} -t {t}", "io": io, "transfer": t, "block": b}
                runs = {"pario": [], "ior": []}
                for _ in range(args.rounds):
                    runs["pario"].append(run_pario(pflags + size, args.ranks, args.reps, io, directory, db))
                    if ior:
                        runs["ior"].append(run_ior(ior, iflags + size, args.ranks, args.reps, io, directory, nbytes(t)))
                for tool, done in runs.items():
                    if done:
                        row[tool] = merge(done)
                results.append(row)
                print(line(row), file=sys.stderr, flush=True)
    doc = {"date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z", "machine": machine(),
           "ranks": args.ranks, "reps": args.reps, "rounds": args.rounds, "ior": ior, "command": " ".join(sys.argv), "results": results}
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    out = os.path.join(HERE, "results", doc["date"].replace(":", "") + ".json")
    with open(out, "w") as fh:
        json.dump(doc, fh, indent=1)
    print(markdown(doc))
    print(f"\nraw figures: {out}", file=sys.stderr)
    if not args.dir:
        shutil.rmtree(directory, ignore_errors=True)


def cell(side, op, key="bw_median"):
    v = (side or {}).get(op, {}).get(key)
    return f"{v:.0f}" if isinstance(v, (int, float)) else "-"


def ratio(row, op, key):
    a = (row.get("pario") or {}).get(op, {}).get(key)
    b = (row.get("ior") or {}).get(op, {}).get(key)
    return f"{a / b:.2f}" if a and b else "-"


def line(row):
    return (f"{row['io']:9} {row['case']:28} pario w {cell(row['pario'], 'write')} r {cell(row['pario'], 'read')}"
            f" | ior w {cell(row.get('ior'), 'write')} r {cell(row.get('ior'), 'read')}")


def markdown(doc):
    m = doc["machine"]
    out = [f"### {doc['date']}: {doc['ranks']} ranks, {doc.get('rounds', 1)} rounds of {doc['reps']} repetitions, "
           f"{m['cpus']} cpus, {m['mem_gib']} GiB, {m['mpi']}", "", f"Command: `{doc['command']}`", "",
           "Medians over all repetitions; best = ratio of the maxima (the machine's slow spells last whole "
           "launches); IOPS = MiB/s / transfer for both tools, so IOPS ratios equal the MiB/s ratios.", "",
           "| io | case | pario write MiB/s | IOR write | ratio | best | pario read | IOR read | ratio | best "
           "| pario write / read IOPS |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        p, i = r["pario"], r.get("ior")
        out.append(f"| {r['io']} | {r['case']} | {cell(p, 'write')} | {cell(i, 'write')} | "
                   f"{ratio(r, 'write', 'bw_median')} | {ratio(r, 'write', 'bw_max')} | {cell(p, 'read')} | "
                   f"{cell(i, 'read')} | {ratio(r, 'read', 'bw_median')} | {ratio(r, 'read', 'bw_max')} | "
                   f"{cell(p, 'write', 'iops_median')} / {cell(p, 'read', 'iops_median')} |")
    if not doc["ior"]:
        out.append("\nIOR was not found (set IOR=/path/to/ior): pario's figures only.")
    return "\n".join(out)


def rerender(path):
    """The Markdown table of a recorded run (benchmarks/results/*.json)."""
    with open(path) as fh:
        print(markdown(json.load(fh)))


if __name__ == "__main__":
    main()
