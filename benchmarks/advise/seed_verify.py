"""`pario advise --verify` against the estimate and against the fix applied, for three seed cases
run on this machine:

  a  2,000,000 writes of 512 B from one process (KAUST: 1080 s -> 4.5 s with IOBUF)
  b  many small pieces of one shared file, written independently by 4 ranks, vs collectively
  c  many small files from one process (ARCHER: 36,000 files) vs the same bytes in one file

Each case: the program with the defect is profiled (`pario profile`; case a also under Darshan)
and `pario advise LOG --verify --json` gives the time at stake and the measured gain of the bench
replay, storing its measurements. Then, --rounds times alternated, the program with the defect
and the program with the fix applied by hand are both run under `pario profile`, and each defect
log is advised again (the stored measurements serve: nothing is measured again). Per round the
advice predicts the fixed program's I/O time (the defect log's I/O time minus the seconds at
stake); the fixed program's log says what it really took. `pario buffer` is issue 11, built in
parallel: case a's fix is applied as the program writing the size the advice computed
(`patterns coalesced`), which is what the buffer will do with the same calls.

    python benchmarks/advise/seed_verify.py [--rounds 3] [--cases abc] [--darshan] [--out DIR]"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from common import ROOT, build, clean, darshan_log, pario, pario_env

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


def io_time(doc: dict) -> float:
    return doc["jobs"][0]["io_time"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="abc")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "advise" / "results"))
    ap.add_argument("--darshan", action="store_true", help="also advise (and verify) on a Darshan log of case a")
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
        launch = ["-n", ranks] if ranks else []

        def profiled(argv: list[str], name: str, data: Path = data, launch: list = launch) -> Path:
            clean(data)
            log = work / f"{name}.pario.log"
            pario(["profile", "-o", log] + launch + ["--"] + argv, env)
            return log

        argv = argv_of(case["defect"], exe, data)
        t0 = time.perf_counter()
        doc = json.loads(pario(["advise", profiled(argv, f"{key}-defect"), "--verify", "--json"], env).stdout)
        row = {"case": key, "what": case["what"], "command": " ".join(argv), "advise_verify_s":
               time.perf_counter() - t0, "load": os.getloadavg()[0], "finding": finding(doc, case["rule"]),
               "not_advised": not_advised(doc, case["rule"])}
        if args.darshan and key == "a":
            clean(data)
            dlog = darshan_log(argv, work / "a.darshan", ranks)
            ddoc = json.loads(pario(["advise", dlog, "--verify", "--json"], env).stdout)
            row["darshan_finding"] = finding(ddoc, case["rule"])
            row["darshan_io_time"] = io_time(ddoc)
        f = row["finding"]
        size = str(1 << 20)
        if f and f["fix"].get("command"):
            m = re.search(r"--size (\S+)", f["fix"]["command"])
            if m:
                units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
                size = str(int(m.group(1)[:-1]) * units[m.group(1)[-1]]) if m.group(1)[-1] in units else m.group(1)
        fixed = argv_of(case["fixed"], exe, data, size)
        rounds = []
        for r in range(args.rounds):   # alternated: drift on a shared machine hits both
            d = json.loads(pario(["advise", profiled(argv, f"{key}-defect-{r}"), "--json"], env).stdout)
            x = json.loads(pario(["advise", profiled(fixed, f"{key}-fixed-{r}"), "--json", "--no-calibrate"],
                                 env).stdout)
            fr = finding(d, case["rule"])
            saving = fr["seconds_at_stake"] if fr else None
            rounds.append({"defect_io_s": io_time(d), "defect_run_s": d["jobs"][0]["run_time"],
                           "seconds_at_stake": saving,
                           "predicted_fixed_io_s": io_time(d) - saving if saving is not None else None,
                           "fixed_io_s": io_time(x), "fixed_run_s": x["jobs"][0]["run_time"],
                           "load": os.getloadavg()[0]})
            print(json.dumps({"case": key, "round": r, **rounds[-1]}), flush=True)
        clean(data)

        def med(k: str, rounds: list = rounds) -> float | None:
            xs = [x[k] for x in rounds if x[k] is not None]
            return statistics.median(xs) if xs else None
        row.update(fixed_command=" ".join(fixed), rounds=rounds,
                   median={k: med(k) for k in ("defect_io_s", "predicted_fixed_io_s", "fixed_io_s",
                                               "seconds_at_stake", "defect_run_s", "fixed_run_s")})
        m_ = row["median"]
        if m_["predicted_fixed_io_s"]:
            row["estimated_gain"] = m_["defect_io_s"] / m_["predicted_fixed_io_s"]
        row["applied_gain"] = m_["defect_io_s"] / m_["fixed_io_s"] if m_["fixed_io_s"] else None
        if f and f.get("verification") and f["verification"]["after_s"]:
            row["verified_gain"] = f["verification"]["before_s"] / f["verification"]["after_s"]
        results.append(row)
        print(json.dumps({k: row.get(k) for k in ("case", "median", "estimated_gain", "verified_gain",
                                                  "applied_gain", "not_advised")}), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) / f"seeds-{stamp}.json"
    dest.write_text(json.dumps({"stamp": stamp, "rounds": args.rounds, "results": results}, indent=1))
    print(f"written {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
