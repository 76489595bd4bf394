"""pario advise and Drishti on the same logs, finding by finding.

Each case is one of the tests/advise programs with a known truth (what is wrong with it, or that
nothing is). It runs once under the Darshan runtime and once under `pario profile`; Drishti reads
the Darshan log (its triggered codes from --csv), pario advise reads both logs (calibrated and
costed, as a user runs it). The five Drishti defects of issue 10 each have a case that shows them.

    python benchmarks/advise/compare_drishti.py [--out DIR]     # writes results/drishti-STAMP.json

Needs a Darshan runtime built for Open MPI (DARSHAN_LIB) and drishti-io (DRISHTI); see common.py."""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

from common import DRISHTI, ROOT, build, clean, darshan_log, pario, pario_env

# Drishti 0.8's codes (drishti/includes/module.py), in words
DRISHTI_CODES = {
    "S01": "STDIO share high", "P05": "small reads (< 1 MB)", "P06": "small writes (< 1 MB)",
    "P07": "memory misaligned", "P08": "file misaligned", "P09": "redundant read traffic",
    "P10": "redundant write traffic", "P11": "random reads", "P13": "random writes",
    "P15": "small shared-file reads", "P16": "small shared-file writes", "P17": "long metadata",
    "P18": "shared-file data imbalance", "P19": "shared-file time imbalance",
    "P21": "per-file write imbalance", "P22": "per-file read imbalance", "M01": "no MPI-IO",
    "M02": "no collective reads", "M03": "no collective writes", "M04": "collective reads used (OK)",
    "M05": "collective writes used (OK)", "M06": "could use non-blocking reads",
    "M07": "could use non-blocking writes", "M09": "aggregators > nodes",
}
INFO = {"P01", "P02", "P03", "P04", "P12", "P14", "M08", "M10"}   # intensity notes and OKs: not advice

# (name, program, mode, ranks, count, what is true of it)
CASES = [
    ("mib-writes", "patterns", "mib-writes", None, 1100,
     "1100 aligned writes of exactly 1 MiB, in order: nothing to fix"),
    ("small-writes", "patterns", "small-writes", None, 20000, "20000 writes of 512 B: small writes"),
    ("sparse", "patterns", "sparse", None, None, "4 KiB every 64 KiB (holes): no redundant traffic"),
    ("reread", "patterns", "reread", None, None, "a 4 MiB file read 5 times: redundant reads"),
    ("coll-large", "mpi_patterns", "coll-large", 4, None,
     "write-only, 4 MiB collective blocks: no reads to make non-blocking"),
    ("ordered", "mpi_patterns", "ordered", 4, None,
     "write_ordered: Open MPI's .sm/.locktest helper files, no imbalance of the program's"),
    ("coll-small", "mpi_patterns", "coll-small", 4, None,
     "1 KiB pieces, already collective: small requests, not 'use collective'"),
    ("indep-small", "mpi_patterns", "indep-small", 4, None,
     "1 KiB interleaved pieces, independent: collective may merge them (measure)"),
    ("many-files", "patterns", "many-files", None, 300, "300 files of 8 KiB from one process: many files"),
    ("stat-each", "patterns", "stat-each", None, None, "a stat before each of 200 writes: repeated stat calls"),
    ("sync-each", "patterns", "sync-each", None, None, "fsync after each of 64 writes"),
]


def drishti_codes(log: Path, out: Path) -> tuple[list[str], str]:
    out.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([DRISHTI, "--csv", "--export_dir", str(out), str(log)], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"crash: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}"], run.stdout
    rows = list(csv.DictReader(open(out / (log.stem + ".csv"))))
    return sorted(k for k, v in rows[0].items() if v == "True"), run.stdout


def advised(doc: dict) -> dict[str, list[str]]:
    job = doc["jobs"][0]
    return {g: [f["rule"] for f in job[g]] for g in ("findings", "not_costed", "minor")} | \
        {"no_gain": [g["rule"] for g in job["no_gain"]]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "advise" / "results"))
    args = ap.parse_args()
    stamp = time.strftime("%Y%m%dT%H%M%S")
    work = Path("/tmp") / f"pario-advise-drishti-{stamp}"
    clean(work)
    exes = build(work / "bin")
    env = pario_env(work / "runs.db", work / "scratch")
    out = []
    for name, program, mode, ranks, count, truth in CASES:
        data = work / "data" / name
        clean(data)
        argv = [str(exes[program]), mode, str(data)] + ([str(count)] if count else [])
        dlog = darshan_log(argv, work / f"{name}.darshan", ranks)
        clean(data)
        plog = work / f"{name}.pario.log"
        pario(["profile", "-o", plog] + (["-n", ranks] if ranks else []) + ["--"] + argv, env)
        codes, text = drishti_codes(dlog, work / "drishti")
        on_darshan = advised(json.loads(pario(["advise", dlog, "--json"], env).stdout))
        on_pario = advised(json.loads(pario(["advise", plog, "--json"], env).stdout))
        row = {"case": name, "truth": truth, "command": " ".join(argv), "drishti": codes,
               "drishti_advice": [f"{c} {DRISHTI_CODES[c]}" for c in codes if c in DRISHTI_CODES],
               "pario_on_darshan": on_darshan, "pario_on_pario": on_pario}
        out.append(row)
        (work / f"{name}.drishti.txt").write_text(text)
        print(f"{name}: drishti {row['drishti_advice']} | pario(darshan) {on_darshan} | pario(pario) {on_pario}",
              flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) / f"drishti-{stamp}.json"
    dest.write_text(json.dumps({"stamp": stamp, "drishti": DRISHTI, "cases": out, "work": str(work)}, indent=1))
    print(f"written {dest}; logs and Drishti's reports in {work}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
