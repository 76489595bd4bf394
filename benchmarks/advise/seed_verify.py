"""`pario advise --verify` against the estimate and against the fix applied, for three seed cases
run on this machine:

  a  2,000,000 writes of 512 B from one process (KAUST: 1080 s -> 4.5 s with IOBUF)
  b  many small pieces of one shared file, written independently by 4 ranks, vs collectively
  c  many small files from one process (ARCHER: 36,000 files) vs the same bytes in one file

Each case: the program with the defect is profiled (`pario profile`, and under Darshan for case a),
`pario advise LOG --verify --json` gives the time at stake (estimate) and the measured gain of the
bench replay (verify); then the program with the defect and the program with the fix applied by
hand (`pario buffer` is issue 11: until it lands, case a's fix is the program writing the advised
size) are run alternately --rounds times, unprofiled, and their wall times compared.

    python benchmarks/advise/seed_verify.py [--rounds 3] [--cases abc] [--out DIR]"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

from common import ROOT, build, clean, darshan_log, mpirun, pario, pario_env, timed

CASES = {
    "a": {"program": "patterns", "defect": ["small-writes", "{data}", "2000000"],
          "fixed": ["coalesced", "{data}", "2000000", "{size}"], "ranks": None, "rule": "posix-small-writes",
          "what": "2,000,000 x 512 B write() calls vs the same bytes in the advised size"},
    "b": {"program": "mpi_patterns", "defect": ["indep-small", "{data}", "20000"],
          "fixed": ["coll-small", "{data}", "20000"], "ranks": 4, "rule": "independent-writes",
          "what": "4 ranks x 20,000 interleaved 1 KiB pieces: MPI_File_write_at vs MPI_File_write_at_all"},
    "c": {"program": "patterns", "defect": ["many-files", "{data}", "20000"],
          "fixed": ["one-file", "{data}", "20000"], "ranks": None, "rule": "many-files",
          "what": "20,000 files of 8 KiB vs the same bytes in one file"},
}


def finding(doc: dict, rule: str) -> dict | None:
    job = doc["jobs"][0]
    for group in ("findings", "not_costed", "minor"):
        for f in job[group]:
            if f["rule"] == rule:
                return dict(f, group=group, run_time=job["run_time"], io_time=job["io_time"])
    return None


def not_advised(doc: dict, rule: str) -> str | None:
    """Why a finding was measured here and not advised (its fix was not faster)."""
    return next((g["why"] for g in doc["jobs"][0]["no_gain"] if g["rule"] == rule), None)


def argv_of(spec: list[str], exe: Path, data: Path, size: str = "") -> list[str]:
    return [str(exe)] + [a.format(data=data, size=size) for a in spec]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="abc")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "advise" / "results"))
    ap.add_argument("--darshan", action="store_true", help="also advise on a Darshan log of case a")
    args = ap.parse_args()
    stamp = time.strftime("%Y%m%dT%H%M%S")
    work = Path("/tmp") / f"pario-advise-seeds-{stamp}"
    clean(work)
    exes = build(work / "bin")
    env = pario_env(work / "runs.db", work / "scratch")
    results = []
    for key in args.cases:
        case = CASES[key]
        exe, ranks = exes[case["program"]], case["ranks"]
        data = work / f"data-{key}"
        clean(data)
        argv = argv_of(case["defect"], exe, data)
        log = work / f"{key}.pario.log"
        pario(["profile", "-o", log] + (["-n", ranks] if ranks else []) + ["--"] + argv, env)
        t0 = time.perf_counter()
        doc = json.loads(pario(["advise", log, "--verify", "--json"], env).stdout)
        advise_s = time.perf_counter() - t0
        f = finding(doc, case["rule"])
        row = {"case": key, "what": case["what"], "command": " ".join(argv), "advise_s": advise_s, "finding": f,
               "not_advised": not_advised(doc, case["rule"]), "log_run_time": doc["jobs"][0]["run_time"]}
        if args.darshan and key == "a":
            clean(data)
            dlog = darshan_log(argv, work / "a.darshan", ranks)
            ddoc = json.loads(pario(["advise", dlog, "--verify", "--json"], env).stdout)
            row["darshan_finding"] = finding(ddoc, case["rule"])
        size = ""
        if f and f["fix"].get("command"):
            m = re.search(r"--size (\S+)", f["fix"]["command"])
            if m:
                units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
                size = str(int(m.group(1)[:-1]) * units[m.group(1)[-1]]) if m.group(1)[-1] in units else m.group(1)
        fixed = argv_of(case["fixed"], exe, data, size or str(1 << 20))
        walls: dict[str, list[float]] = {"defect": [], "fixed": []}
        for _ in range(args.rounds):   # alternated: drift on a shared machine hits both
            for side, cmd in (("defect", argv), ("fixed", fixed)):
                clean(data)
                walls[side].append(timed((mpirun(ranks) if ranks else []) + cmd))
        clean(data)
        med = {k: statistics.median(v) for k, v in walls.items()}
        row.update(fixed_command=" ".join(fixed), walls=walls, median=med,
                   applied_saving_s=med["defect"] - med["fixed"], applied_gain=med["defect"] / med["fixed"])
        if f:
            est = f["seconds_at_stake"]
            row["estimated_saving_s"] = est
            row["estimated_gain"] = f["run_time"] / (f["run_time"] - est) if est is not None and \
                f["run_time"] and f["run_time"] > est else None
            v = f.get("verification")
            if v:
                row["verified_gain"] = v["before_s"] / v["after_s"] if v["after_s"] else None
        results.append(row)
        print(json.dumps({k: row.get(k) for k in ("case", "estimated_saving_s", "estimated_gain", "verified_gain",
                                                  "applied_saving_s", "applied_gain", "median")}), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) / f"seeds-{stamp}.json"
    dest.write_text(json.dumps({"stamp": stamp, "rounds": args.rounds, "results": results}, indent=1))
    print(f"written {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
