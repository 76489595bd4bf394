#!/usr/bin/env python3
"""pario against IOR (4.x and 3.x when both are there) and fio on the same cases, in one run,
tools alternated.

Page-cache cases (4 ranks by default): file per process and one shared file; 1 MiB, 4 KiB and
512 B transfers; POSIX, MPI-IO independent and MPI-IO collective; Open MPI's ompio and romio321.
They compare the tools' own overheads: the data sets sit in page cache.

Device cases, where the disk and not the page cache is measured, with fio on the same directory
as a third column (the device's own figure): O_DIRECT writes and reads (pario --odirect, IOR
--posix.odirect / -B, fio direct=1), and cold reads (pario --drop-caches; IOR writes and keeps
the file in one launch, the files are evicted, a second launch reads them; fio invalidates the
file before reading, its default).

Each case runs pario (its -i repetitions), then each IOR, then fio, alternated --rounds times,
so that all see the same machine states; the figures are medians over all repetitions of all
rounds and the ratios pario/peer are computed within the case.

pario's timed reads are run with --no-read-check, as IOR's -r (IOR never compares its timed reads;
its -R is a separate pass): pario's default check is untimed but takes cache and CPU from the
reads (0.65-0.91x at 1 MiB on page cache here). --read-check keeps pario's default instead.

    python3 benchmarks/compare_ior.py [--ranks 4] [--reps 5] [--rounds 3] [--ior PATH ...] [--fio PATH]
                                      [--dir DIR] [--only page|device] [--case TEXT ...] [--quick]
                                      [--read-check]

Writes benchmarks/results/<date>.json (everything, with the peers' versions and commands) and
prints a Markdown table to paste into benchmarks/RESULTS.md with the command that made it.
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
import time

import peers

from pario.analysis import noise  # python -m pario runs the cases: pario is importable here

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
# The device cases: 256 MiB per rank, so that a phase lasts long enough on a disk of ~1-2 GB/s.
DEVICE = [
    ("posix fpp O_DIRECT", ["-a", "posix", "-F", "--odirect"], ["-a", "POSIX", "-F"], True, "odirect"),
    ("posix shared O_DIRECT", ["-a", "posix", "--odirect"], ["-a", "POSIX"], False, "odirect"),
    ("posix fpp cold read", ["-a", "posix", "-F", "--drop-caches"], ["-a", "POSIX", "-F"], True, "cold"),
    ("mpiio shared coll cold read", ["-a", "mpiio", "-c", "--drop-caches"], ["-a", "MPIIO", "-c"], False, "cold"),
]
DEFAULT_IORS = ("/opt/ior4/bin/ior", "/opt/ior32/bin/ior", "/opt/ior/bin/ior")


def find_iors(given):
    found = []
    for cand in [*(given or []), os.environ.get("IOR"), shutil.which("ior"), *DEFAULT_IORS]:
        if cand and os.access(cand, os.X_OK) and os.path.realpath(cand) not in [os.path.realpath(f) for f in found]:
            found.append(cand)
    return found if not given else [g for g in given if os.access(g, os.X_OK)]


def run_pario(flags, ranks, reps, io, directory, db):
    cmd = [sys.executable, "-m", "pario", "bench", *flags, "-n", str(ranks), "-w", "-r", "-i", str(reps),
           "--io", io, "--dir", directory, "--db", db, "--no-probe", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1:] or ["?"], "command": " ".join(cmd)}
    doc = json.loads(out.stdout)
    case = doc["result"]["cases"][0]
    rows = [{"op": p["op"], "bw": p["bw_mib"], "xfer_bw": p.get("xfer_bw_mib"), "share": p.get("open_close_share"),
             "resident": (p.get("cache") or {}).get("resident")}
            for p in case["phases"] if p["op"] in ("write", "read")]
    return {"command": " ".join(cmd[2:]), "run": doc["run"], "rows": rows}


def merge(runs, xfer):
    """One tool's rounds of one case: the figures over all their repetitions, or the first error."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    rows = [row for r in runs for row in r["rows"]]
    out = {"commands": [r["command"] for r in runs], "version": runs[0].get("version")}
    for op in ("write", "read"):
        bw = [r["bw"] for r in rows if r["op"] == op]
        if not bw:
            continue
        fig = {"bw_median": statistics.median(bw), "bw_min": min(bw), "bw_max": max(bw),
               "iops_median": statistics.median(bw) * 2**20 / xfer, "samples": bw}
        # transfer-only rate and open+close share: pario records them; IOR prints open, wr/rd, close
        xfer_bw = [r["xfer_bw"] for r in rows if r["op"] == op and r.get("xfer_bw")]
        xfer_bw += [r["bw"] * r["total"] / r["xfer"] for r in rows if r["op"] == op and r.get("xfer")]
        share = [r["share"] for r in rows if r["op"] == op and r.get("share") is not None]
        share += [(r["open"] + r["close"]) / r["total"] for r in rows if r["op"] == op and r.get("total")]
        resident = [r["resident"] for r in rows if r["op"] == op and r.get("resident") is not None]
        if xfer_bw:
            fig["xfer_bw_median"] = statistics.median(xfer_bw)
        if share:
            fig["open_close_share_median"] = statistics.median(share)
        if resident:
            fig["resident_max"] = max(resident)
        out[op] = fig
    return out


def nbytes(text):
    units = {"k": 2**10, "m": 2**20, "g": 2**30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def machine():
    mpi = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    return {"host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release(),
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "mpi": mpi[0] if mpi else "?", "python": platform.python_version()}


def cases(quick, only):
    out = []
    if only in (None, "page"):
        for io in ("ompio", "romio321"):
            for label, pflags, iflags in APIS:
                if io == "romio321" and label.startswith("posix"):
                    continue  # the io component does not touch POSIX
                for t, b in SIZES:
                    if quick:
                        b = {"64m": "8m", "8m": "1m", "2m": "256k"}[b]
                    out.append({"case": f"{label} -t {t}", "kind": "page", "io": io, "transfer": t, "block": b,
                                "pario": pflags, "ior": iflags, "fpp": "-F" in pflags})
    if only in (None, "device"):
        for label, pflags, iflags, fpp, how in DEVICE:
            b = "32m" if quick else "256m"
            out.append({"case": f"{label} -t 1m", "kind": how, "io": "ompio", "transfer": "1m", "block": b,
                        "pario": pflags, "ior": iflags, "fpp": fpp, "odirect": how == "odirect"})
    return out


def run_case(c, args, iors, versions, fio, directory, db):
    size = ["-t", c["transfer"], "-b", c["block"]]
    runs = {"pario": [], **{f"ior {versions[i]}": [] for i in iors}, **({"fio": []} if fio and c["kind"] != "page"
                                                                        else {})}
    path = os.path.join(directory, "ior.dat")
    for _ in range(args.rounds):
        check = [] if args.read_check else ["--no-read-check"]
        runs["pario"].append(run_pario(c["pario"] + size + check, args.ranks, args.reps, c["io"], directory, db))
        for ior in iors:
            flags = c["ior"] + size + (peers.odirect_flag(versions[ior]) if c.get("odirect") else [])
            if c["kind"] == "cold":
                got = peers.run_ior_cold(ior, flags, args.ranks, args.reps, c["io"], path, directory)
            else:
                got = peers.run_ior(ior, flags + ["-w", "-r"], args.ranks, args.reps, c["io"], path)
            runs[f"ior {versions[ior]}"].append(got)
        if "fio" in runs:
            runs["fio"].append(peers.run_fio(fio, c, args.ranks, args.reps, directory))
    return {tool: merge(done, nbytes(c["transfer"])) for tool, done in runs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3, help="tool alternations per case (default 3)")
    ap.add_argument("--ior", action="append", help="an IOR to compare with (repeatable; default: the ones found)")
    ap.add_argument("--fio", default=shutil.which("fio"), help="fio for the device cases (default: on PATH)")
    ap.add_argument("--dir", help="scratch directory (default: a new one under /var/tmp, a disk file system)")
    ap.add_argument("--only", choices=["page", "device"], help="only the page-cache or the device cases")
    ap.add_argument("--case", action="append", help="only cases whose 'io case' label contains this (repeatable)")
    ap.add_argument("--quick", action="store_true", help="smaller blocks (a smoke run, not for the record)")
    ap.add_argument("--read-check", action="store_true",
                    help="pario checks its timed reads (its default; IOR does not): off unless given")
    ap.add_argument("--table", metavar="JSON", help="print the table of a recorded run and exit")
    args = ap.parse_args()
    if args.table:
        return rerender(args.table)
    iors = find_iors(args.ior)
    versions = {i: peers.ior_version(i) for i in iors}
    directory = args.dir or tempfile.mkdtemp(prefix="pario-vs-ior-", dir="/var/tmp")
    db = os.path.join(directory, "bench.db")
    results, started, load_before = [], time.time(), os.getloadavg()
    for c in cases(args.quick, args.only):
        if args.case and not any(want in f"{c['io']} {c['case']}" for want in args.case):
            continue
        row = {k: v for k, v in c.items() if k not in ("pario", "ior")}
        row["tools"] = run_case(c, args, iors, versions, args.fio, directory, db)
        results.append(row)
        print(line(row), file=sys.stderr, flush=True)
    doc = {"date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z", "machine": machine(),
           "ranks": args.ranks, "reps": args.reps, "rounds": args.rounds,
           "minutes": round((time.time() - started) / 60),
           # the machine is shared: the load around the run says how far to trust its figures
           "load": {"before": [round(x, 1) for x in load_before], "after": [round(x, 1) for x in os.getloadavg()]},
           "iors": {i: versions[i] for i in iors}, "fio": args.fio, "command": " ".join(sys.argv), "results": results}
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


def ratio(a_side, b_side, op, key="bw_median"):
    """pario / peer, with "~" when pario's own noise test (the bootstrap interval of the ratio of
    medians, analysis/noise.py, as bench's "fastest" and results compare use) cannot tell the two
    apart from this run's repetitions: such a ratio is not a difference between the tools."""
    a = (a_side or {}).get(op, {}).get(key)
    b = (b_side or {}).get(op, {}).get(key)
    if not (a and b):
        return "-"
    verdict = noise.compare((b_side or {})[op].get("samples") or [], (a_side or {})[op].get("samples") or [])
    return f"{a / b:.2f}" + (" ~" if verdict.verdict == "within noise" else "")


def line(row):
    return f"{row['io']:9} {row['case']:34} " + " | ".join(
        f"{tool} w {cell(side, 'write')} r {cell(side, 'read')}" for tool, side in row["tools"].items())


def markdown(doc):
    m = doc["machine"]
    peers_ = [t for t in (doc["results"][0]["tools"] if doc["results"] else {}) if t.startswith("ior")]
    out = [f"### {doc['date']}: {doc['ranks']} ranks, {doc.get('rounds', 1)} rounds of {doc['reps']} repetitions, "
           f"{m['cpus']} cpus, {m['mem_gib']} GiB, {m['mpi']} ({doc.get('minutes', '?')} min)", "",
           *([f"Load average (1, 5, 15 min) before {doc['load']['before']}, after {doc['load']['after']} on "
              f"{m['cpus']} cpus: other jobs shared the machine." if max(doc['load']['before'] + doc['load']['after'])
              > m['cpus'] / 2 else f"Load average before {doc['load']['before']}, after {doc['load']['after']}.", ""]
             if doc.get("load") else []),
           f"Command: `{doc['command']}`; IOR: " + ", ".join(f"{v} ({p})" for p, v in doc.get("iors", {}).items())
           + (f"; {doc['fio']} for the device cases" if doc.get("fio") else ""), "",
           "Medians over all repetitions of all rounds, open-to-close MiB/s; ratio = pario / peer within the case; "
           "~ = within this run's noise (the 95% bootstrap interval of the ratio of medians includes 1: "
           "pario's own noise test, the one behind bench's verdicts).",
           ""]
    for op in ("write", "read"):
        head = f"| io | case | pario {op} | " + " | ".join(f"{p} | ratio" for p in peers_) + " | fio | ratio |"
        out += [f"**{op}**", "", head, "|" + "---|" * (head.count("|") - 1)]
        for r in doc["results"]:
            if op == "write" and r.get("kind") == "cold":
                continue  # the writes of the cold-read cases are there to lay the files down (the JSON keeps them)
            t = r["tools"]
            cells = [r["io"], r["case"], cell(t["pario"], op)]
            for p in peers_:
                cells += [cell(t.get(p), op), ratio(t["pario"], t.get(p), op)]
            cells += [cell(t.get("fio"), op), ratio(t["pario"], t.get("fio"), op)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    errors = [(r["case"], tool, side["error"]) for r in doc["results"] for tool, side in r["tools"].items()
              if "error" in side]
    out += [f"- {case}: {tool} failed: {err}" for case, tool, err in errors]
    if not peers_:
        out.append("IOR was not found (set IOR=/path/to/ior or --ior): pario's figures only.")
    return "\n".join(out)


def rerender(path):
    """The Markdown table of a recorded run (benchmarks/results/*.json; the runs before the
    device cases kept one IOR as "ior" beside "pario")."""
    with open(path) as fh:
        doc = json.load(fh)
    for r in doc["results"]:
        if "tools" not in r:
            r["tools"] = {"pario": r.get("pario") or {}, **({"ior": r["ior"]} if r.get("ior") else {})}
    print(markdown(doc))


if __name__ == "__main__":
    main()
