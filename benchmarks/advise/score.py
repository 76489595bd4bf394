"""Score `pario advise` and Drishti on the advise corpus (benchmarks/advise/corpus): precision,
recall of the defects each log can show, fixes right and wrong, and the seconds claimed against
the job's time and against what the applied fix measured (README.md of the corpus says how).

    python benchmarks/advise/score.py [CASE ...] [--tool pario|drishti|both] [--advise-arg=ARG]... [--twice]
                                      [--out DIR] [--markdown FILE]
    python benchmarks/advise/score.py --render results/score-STAMP.json [--markdown FILE]

`pario advise LOG --json` runs as a user runs it (this tree, the engine `make setup` installed,
one results store for the whole scoring run, so a measurement made for one log serves the next),
with no --verify unless --advise-arg=--verify is given. Drishti (DRISHTI, default
/work/peers/drishti-venv/bin/drishti) reads the Darshan logs. Results: results/score-STAMP.json."""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, clean, pario_env
from corpus_score import LogScore, drishti_claims, from_dict, pario_claims, score_log, totals
from corpus_truth import CORPUS, Case, load_cases, mapping
from score_report import markdown, summary_table, table

DRISHTI = os.environ.get("DRISHTI", "/work/peers/drishti-venv/bin/drishti")
ADVISE_TIMEOUT = 900
QUICK_S = 10   # what advise may spend measuring unasked (issue 25: "at most about 10 s and 1 GiB")


def job_time(case: Case, which: str) -> float | None:
    """The job's run time as the log itself records it (read here, not through pario)."""
    path = case.log(which)
    try:
        if which == "pario":
            job = json.loads(path.read_text())["job"]
            return float(job["end"]) - float(job["start"])
        import darshan
        return float(darshan.DarshanReport(str(path), read_all=False).metadata["job"]["run_time"])
    except Exception as exc:   # a log the scorer cannot read: no time check, said in the notes
        print(f"{case.name}/{path.name}: no job time ({exc})", file=sys.stderr)
        return None


def run_pario(case: Case, which: str, env: dict[str, str], extra: list[str], m: dict) -> LogScore:
    cmd = [str(ROOT / ".venv" / "bin" / "python"), "-m", "pario", "advise", str(case.log(which)), "--json", *extra]
    t0 = time.perf_counter()
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=ADVISE_TIMEOUT)
    except subprocess.TimeoutExpired:
        s = score_log(case, which, "pario", [], job_time(case, which), error=f"timed out after {ADVISE_TIMEOUT} s")
        s.advise_s = ADVISE_TIMEOUT
        return s
    took = time.perf_counter() - t0
    try:
        doc = json.loads(run.stdout)
        job = doc["jobs"][0]
    except (ValueError, KeyError, IndexError):
        last = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
        s = score_log(case, which, "pario", [], job_time(case, which), error=f"no advice: {last[:200]}")
        s.advise_s = took
        return s
    claims, unmapped = pario_claims(job, m)
    s = score_log(case, which, "pario", claims, job_time(case, which), unmapped,
                  error="" if run.returncode == 0 else f"exit {run.returncode}")
    s.advise_s = took
    s.costed_by = str((job.get("calibration") or {}).get("where") or "")
    if job.get("no_gain"):
        s.notes.append("checked, not advised: " + ", ".join(g["rule"] for g in job["no_gain"]))
    if took > QUICK_S and not any(a in extra for a in ("--verify", "--calibrate")):
        s.notes.append(f"advise took {took:.0f} s without --verify or --calibrate (the issue allows about {QUICK_S} s)")
    if case.foreign:
        if "this machine" in (job.get("stack") or {}).get("impl_source", ""):
            s.notes.append(f"FOREIGN LOG'S HEADER NAMES THIS MACHINE: {job['stack']['impl']} "
                           f"({job['stack']['impl_source']})")
        local = [what for what, bad in (("a calibration of this machine", job.get("calibration") is not None),
                                        ("measured-here vetoes", bool(job.get("no_gain"))),
                                        ("a verification run here", any(
                                            f.get("verification") for g in ("findings", "not_costed", "minor")
                                            for f in job.get(g, [])))) if bad]
        if local:
            s.notes.append("FOREIGN LOG USED LOCAL MEASUREMENTS: " + ", ".join(local))
    return s


def run_drishti(case: Case, work: Path, m: dict) -> LogScore:
    out = work / "drishti" / case.name
    clean(out)
    log = case.log("darshan")
    run = subprocess.run([DRISHTI, "--csv", "--export_dir", str(out), str(log)], capture_output=True, text=True)
    (out / "report.txt").write_text(run.stdout + run.stderr)
    rows = list(csv.DictReader(open(out / (log.stem + ".csv")))) if (out / (log.stem + ".csv")).exists() else []
    if run.returncode or not rows:
        last = (run.stderr.strip().splitlines() or [f"exit {run.returncode}"])[-1]
        return score_log(case, "darshan", "drishti", [], job_time(case, "darshan"), error=f"crash: {last[:200]}")
    codes = sorted(k for k, v in rows[0].items() if v == "True")
    import darshan
    modules = set(darshan.DarshanReport(str(log), read_all=False).modules)
    claims, unmapped = drishti_claims(codes, m, modules)
    return score_log(case, "darshan", "drishti", claims, job_time(case, "darshan"), unmapped)


def summarize(scores: list[LogScore]) -> dict:
    summary = {}
    for tool in ("pario", "drishti"):
        mine = [s for s in scores if s.tool == tool]
        if mine:
            summary[tool] = {"all logs": totals(mine).to_dict(),
                             "darshan logs": totals([s for s in mine if s.log == "darshan"]).to_dict()}
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case names (default: every case)")
    ap.add_argument("--tool", choices=("pario", "drishti", "both"), default="both")
    ap.add_argument("--advise-arg", action="append", default=[], metavar="ARG",
                    help="one more argument for every `pario advise` (repeat; with =: --advise-arg=--verify)")
    ap.add_argument("--twice", action="store_true",
                    help="advise every log twice and name the logs whose findings changed")
    ap.add_argument("--corpus", default=str(CORPUS), help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "advise" / "results"))
    ap.add_argument("--markdown", metavar="FILE", help="also write the per-case table as Markdown")
    ap.add_argument("--render", metavar="RESULTS", help="no scoring: print (and --markdown) a results JSON's tables")
    args = ap.parse_args()
    if args.render:
        doc = json.loads(Path(args.render).read_text())
        scores = [from_dict(d) for d in doc["logs"]]
        doc["summary"] = summarize(scores)   # recomputed: a file from an older score.py lacks newer totals
        print(table(scores) + "\n\n" + summary_table(doc["summary"]))
        if args.markdown:
            Path(args.markdown).write_text(markdown(doc, scores))
        return 0
    base = Path(args.corpus)
    cases = load_cases(args.cases or None, base)
    m = mapping(base)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    work = Path("/tmp") / f"pario-advise-score-{stamp}"
    clean(work)
    env = pario_env(work / "runs.db", work / "scratch")
    if args.tool != "pario" and not os.path.isfile(DRISHTI):
        sys.exit(f"no Drishti at {DRISHTI} (set DRISHTI, or --tool pario)")
    scores: list[LogScore] = []
    load = [os.getloadavg()[0]]
    for case in cases:
        for which in case.logs:
            if not case.log(which).is_file():
                print(f"{case.name}: {case.log(which).name} missing (record it with make_corpus.py)", file=sys.stderr)
                continue
            if args.tool in ("pario", "both"):
                scores.append(run_pario(case, which, env, args.advise_arg, m))
                if args.twice:
                    again = run_pario(case, which, env, args.advise_arg, m)
                    first = sorted((c.group, c.id) for c in scores[-1].claims)
                    second = sorted((c.group, c.id) for c in again.claims)
                    if first != second:
                        scores[-1].notes.append(f"NOT THE SAME ON A SECOND RUN: {first} then {second}")
                print(table([scores[-1]], header=False), flush=True)
            if which == "darshan" and args.tool in ("drishti", "both"):
                scores.append(run_drishti(case, work, m))
                print(table([scores[-1]], header=False), flush=True)
        load.append(os.getloadavg()[0])
    summary = summarize(scores)
    issue: dict[str, dict[str, bool]] = {}   # issue number -> case -> every pario log passed
    for c in cases:
        mine = [s for s in scores if s.case == c.name and s.tool == "pario"]
        if c.issue and mine:
            number = c.issue.split(":", 1)[0] if re.match(r"\d+:", c.issue) else "25"
            issue.setdefault(number, {})[c.name] = all(s.passed for s in mine)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    doc = {"stamp": stamp, "commit": commit, "command": " ".join(["python", "benchmarks/advise/score.py"] +
                                                                 sys.argv[1:]),
           "load": {"min": min(load), "max": max(load)}, "drishti": DRISHTI, "work": str(work),
           "summary": summary, "issue_cases": issue, "logs": [s.to_dict() for s in scores]}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    dest = Path(args.out) / f"score-{stamp}.json"
    dest.write_text(json.dumps(doc, indent=1) + "\n")
    print()
    print(table(scores))
    print()
    print(summary_table(summary))
    for number, got in sorted(issue.items()):
        failing = sorted(k for k, ok in got.items() if not ok)
        print(f"issue {number}'s cases (truth.toml 'issue'): pario passes {len(got) - len(failing)} of {len(got)}"
              + (f"; not: {', '.join(failing)}" if failing else ""))
    if args.markdown:
        Path(args.markdown).write_text(markdown(doc, scores))
    print(f"written {dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
