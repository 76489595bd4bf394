"""What checking input at the door costs (issue 16), measured, not asserted:

1. `pario profile show --json` of job logs of 10, 100 and 1,000 processes (a real process part
   from profiling a small shell loop, replicated), with the schema check as shipped, and the
   schema check alone as jsonschema would do it without the two measures of
   analysis/profile/logread.py (repeated counter-name lists checked once, local $refs inlined);
2. `pario-engine --check` of a one-case spec (run before every launch);
3. the bad-input table (tests/python/test_bad_inputs.py) end to end.

    PARIO_ENGINE=... .venv/bin/python benchmarks/input_checks/run.py [--reps 5] [--write-results]

(the venv's pario, as `make setup` installs it: it carries the profiler library `profile` needs).

Figures go to benchmarks/input_checks/RESULTS.md with --write-results."""
from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def _seconds(argv: list[str], reps: int, env: dict | None = None) -> list[float]:
    out = []
    for _ in range(reps):
        start = time.perf_counter()
        run = subprocess.run(argv, capture_output=True, text=True, env=env)
        out.append(time.perf_counter() - start)
        if run.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed: {run.stderr.strip()}")
    return out


def _log(tmp: Path, nprocs: int, part: dict) -> Path:
    doc = {"format": "pario-profile", "version": 1, "kind": "job", "job": {"command": ["sh"]},
           "processes": []}
    for i in range(nprocs):
        proc = copy.deepcopy(part)
        proc["process"]["pid"] = 1000 + i
        doc["processes"].append(proc)
    path = tmp / f"log-{nprocs}.json"
    path.write_text(json.dumps(doc))
    return path


def _schema_alone(path: Path, reps: int) -> list[float]:
    """jsonschema on the whole log, $refs resolved at every instance: what the check cost before."""
    import jsonschema

    sys.path.insert(0, str(ROOT / "src"))
    from pario.platform import documents

    schema = documents.schema("profile-log")
    plain = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/job"})
    doc = json.loads(path.read_text())
    out = []
    for _ in range(reps):
        start = time.perf_counter()
        assert next(plain.iter_errors(doc), None) is None
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    engine = os.environ.get("PARIO_ENGINE")
    if not engine:
        sys.exit("set PARIO_ENGINE to the pario-engine to measure (make test prints it)")
    env = dict(os.environ)
    py = [sys.executable, "-m", "pario"]
    rows = []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        prof = subprocess.run(py + ["profile", "-o", str(tmp / "real.json"), "--", "sh", "-c",
                                    f"for i in 1 2 3 4; do echo x > {tmp}/f$i; cat {tmp}/f$i; done"],
                              capture_output=True, text=True, env=env, cwd=tmp)
        if prof.returncode != 0:
            sys.exit(f"pario profile failed: {prof.stderr.strip()}")
        part = json.loads((tmp / "real.json").read_text())["processes"][0]
        for n in (10, 100, 1000):
            path = _log(tmp, n, part)
            shipped = _seconds(py + ["profile", "show", str(path), "--json"], args.reps, env)
            alone = _schema_alone(path, max(1, args.reps if n < 1000 else 1))
            rows.append((f"profile show --json, {n} processes ({path.stat().st_size / 2**20:.1f} MiB)",
                         statistics.median(shipped), statistics.median(alone)))
        spec = {"schema": "pario.spec/1", "run_id": "x", "dir": str(tmp), "prefix": "p",
                "cases": [{"name": "a", "backend": "posix", "strategy": "shared", "pattern": "segmented",
                           "xfer": 1 << 20, "block": 1 << 24, "ops": ["write"], "reps": 1}]}
        (tmp / "spec.json").write_text(json.dumps(spec))
        check = _seconds([engine, "--check", str(tmp / "spec.json")], args.reps * 4)
        rows.append(("pario-engine --check, one case", statistics.median(check), None))
    table_rows = sum(1 for _ in (ROOT / "tests/python/data/bad-inputs.jsonl").open())
    whole = _seconds([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                      str(ROOT / "tests/python/test_bad_inputs.py")], 1, dict(env, PARIO_ENGINE=engine))
    rows.append((f"the bad-input table, {table_rows} rows (pytest, whole file)", whole[0], None))
    table = ["| what | median s | jsonschema alone, before (s) |", "|---|---:|---:|"]
    table += [f"| {w} | {s:.3f} | {'' if a is None else f'{a:.3f}'} |" for w, s, a in rows]
    command = f"PARIO_ENGINE={engine} .venv/bin/python benchmarks/input_checks/run.py --reps {args.reps}"
    text = "\n".join([
        "# What checking input at the door costs", "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with:", "", f"    {command}", "",
        f"Machine: {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"1-minute load average before: {load:.1f} (other helpers' work shows as time here).",
        f"Medians of {args.reps} runs (the 1,000-process schema-alone figure and the bad-input table: "
        "one run).", "", *table, ""])
    print(text)
    if args.write_results:
        RESULTS.write_text(text + RESULTS_NOTES)


RESULTS_NOTES = """
"profile show --json" is the whole command (start-up, reading, the schema and the checks a schema
cannot make, the views, the JSON out). "jsonschema alone, before" is what the schema check took
when jsonschema validated every process's counter-name lists and resolved each `$ref` at every
instance: on logs of hundreds of processes it was most of the time. Now each distinct list of
counter names is checked once, at its first place in the log, and the schema's local `$ref`s are
inlined (platform/documents.py), with the same violations reported at the same paths.

The bad-input table runs in process, in a pool of worker processes (`make test` runs it; pytest
prints its three slowest rows with -s); its figure includes pytest's start-up and the few rows run
as subprocesses.
"""

if __name__ == "__main__":
    main()
