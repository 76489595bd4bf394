#!/usr/bin/env python3
"""Calibrate `pario predict` on this machine, then predict `pario bench` cases it did not
calibrate on (1-4 ranks, POSIX and MPI-IO, file per process and shared) and compare with what
bench measures, each case run --rounds times (its median of medians).

    python benchmarks/predict/this_machine.py --dir /tmp/scratch [--rounds 5] [--system FILE]

Without --system the calibration's probes (pario predict --calibrate's five) and the cases run in
alternate rounds, so that both see the same minutes of a shared machine; each case's figure is its
median over the rounds. A case is within target when predicted/measured is within 1.5x either way.
Needs an installed pario (make setup): the probes and the cases are real `pario bench` runs."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src"))

from pario.plan.cases import build_case  # noqa: E402
from pario.predict import model, sysfile, system  # noqa: E402
from pario.predict.calibrate import measured  # noqa: E402
from pario.predict.pattern import from_case  # noqa: E402

# (name, ranks, case): none of them is a calibration probe (predict/calibrate.py probes())
CASES = [
    ("fpp-posix-2r-1m", 2, {"backend": "posix", "strategy": "fpp", "transfer": "1m", "block": "64m"}),
    ("fpp-posix-4r-256k", 4, {"backend": "posix", "strategy": "fpp", "transfer": "256k", "block": "32m"}),
    ("shared-posix-3r-1m", 3, {"backend": "posix", "transfer": "1m", "block": "48m"}),
    ("shared-posix-1r-16k", 1, {"backend": "posix", "transfer": "16k", "block": "32m"}),
    ("shared-mpiio-2r-1m", 2, {"backend": "mpiio", "transfer": "1m", "block": "64m"}),
    ("shared-mpiio-coll-4r-1m", 4, {"backend": "mpiio", "collective": True, "transfer": "1m", "block": "32m"}),
    ("shared-mpiio-coll-2r-s8", 2, {"backend": "mpiio", "collective": True, "transfer": "1m", "block": "1m",
                                    "segments": 32}),
    ("fpp-mpiio-4r-4m", 4, {"backend": "mpiio", "strategy": "fpp", "transfer": "4m", "block": "32m"}),
]


def bench(directory: str, ranks: int, case: dict, reps: int) -> float | None:
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as fh:
        fh.write(f"[defaults]\nreps = {reps}\n\n[[case]]\nops = [\"write\"]\n"
                 + "".join(f"{k} = {json.dumps(v)}\n" for k, v in case.items()))
        job = fh.name
    try:
        out = subprocess.run([sys.executable, "-m", "pario", "bench", "--config", job, "-n", str(ranks), "--dir",
                              directory, "--json", "--no-probe", "--db", os.path.join(directory, "db.sqlite")],
                             capture_output=True, text=True, timeout=900)
    finally:
        os.unlink(job)
    if out.returncode:
        print(out.stderr[-500:], file=sys.stderr)
        return None
    rows = json.loads(out.stdout).get("summary") or []
    return measured(rows[0]) if rows else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="the directory measured")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the probes and of the cases, alternated")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--system", help="a system file already calibrated here (default: calibrate now, alternated "
                                     "with the cases)")
    ap.add_argument("--save", metavar="JSON", help="keep the cases' measured seconds per round (and the system file)")
    ap.add_argument("--load", metavar="JSON", help="measure nothing: predict the cases of a --save file again (the "
                                                   "same measurements, e.g. with a changed model)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    got: dict[str, list[float]] = {name: [] for name, _, _ in CASES}
    if args.load:
        with open(args.load, encoding="utf-8") as fh:
            kept = json.load(fh)
        got.update(kept["measured"])
        return report(refit(kept, args.dir) if "probes" in kept else kept["system"], got, kept["rounds"])

    def cases_round(r: int) -> None:
        print(f"pario: round {r + 1}/{args.rounds}: the {len(CASES)} cases", file=sys.stderr)
        for name, ranks, case in (CASES if r % 2 == 0 else CASES[::-1]):
            seconds = bench(args.dir, ranks, case, args.reps)
            if seconds:
                got[name].append(seconds)

    path = args.system
    if path:
        for r in range(args.rounds):
            cases_round(r)
    else:  # the probes and the cases in alternate rounds: both see the same minutes of a shared machine
        from pario.predict import calibrate
        path = os.path.join(args.dir, "this-machine.toml")
        if os.path.exists(path):
            os.unlink(path)
        sys_, kind, ranks, unit = calibrate.prepare(path, os.path.abspath(args.dir), None)
        prepared = sysfile.dump(sys_)
        samples = calibrate.measure(os.path.abspath(args.dir), ranks, kind, unit, args.reps, args.rounds, cases_round)
        probes = {"kind": kind, "ranks": ranks, "unit": unit, "prepared": prepared,
                  "seconds": {s.label: s.seconds for s in samples}}
        calibrate.write(sys_, path, kind, ranks, samples, os.path.abspath(args.dir))
        print("probe spread (slowest/fastest round): "
              + ", ".join(f"{s.label} {s.spread:.2f}x" for s in samples))
    if args.save:
        with open(args.save, "w", encoding="utf-8") as fh:
            json.dump({"system": os.path.abspath(path), "dir": os.path.abspath(args.dir), "rounds": args.rounds,
                       "measured": got,
                       **({"probes": probes} if not args.system else {})}, fh, indent=1)
    return report(path, got, args.rounds)


def refit(kept: dict, directory: str) -> str:
    """The calibration of a --save file fitted again by the model as it is now (the same probes'
    seconds, the system as prepare() stated it): the path of the system file written."""
    from pario.model.formats import parse_toml
    from pario.predict import calibrate
    pr = kept["probes"]
    path = os.path.join(directory, "this-machine.refit.toml")
    doc = parse_toml(pr["prepared"], "prepared")
    for section in system.SECTIONS[1:]:  # a figure an older model does not know: left out, said so
        for key in [k for k in doc.get(section, {}) if k not in system.SPECS]:
            print(f"pario: {key}: not a figure of this model; left out", file=sys.stderr)
            del doc[section][key]
    sys_ = system.from_dict(doc, path)
    for name, (value, how) in calibrate.site_facts(kept["dir"], pr["kind"]).items():
        if name not in sys_.params or sys_.status(name) == "default":  # a fact read now, not at the run
            print(f"pario: {name} = {value}: read now ({how}), not stated when the probes ran", file=sys.stderr)
            sys_.params[name] = system.Param(name, value, "stated", how, how=how)
    plan = {str(c["name"]): (n, c) for _, n, cases in calibrate.probes(pr["ranks"], pr["unit"], pr["kind"])
            for c in cases}
    samples = [calibrate.Sample(label, calibrate._pattern(plan[label][1], plan[label][0]), secs)
               for label, secs in pr["seconds"].items() if label in plan]  # an older model's probes: a subset
    if os.path.exists(path):
        os.unlink(path)
    calibrate.write(sys_, path, pr["kind"], pr["ranks"], samples, directory)
    return path


def report(path: str, got: dict[str, list[float]], rounds: int) -> int:
    sys_ = system.load(path)
    print(f"\n{'case':<26} {'measured':>10} {'predicted':>10} {'ratio':>6}  binding [rounds' range] (interval)")
    ok = inside = 0
    for name, ranks, case in CASES:
        runs = got[name]
        if not runs:
            print(f"{name:<26} failed")
            continue
        seconds = statistics.median(runs)
        pat = from_case(build_case({**case, "ops": ["write"]}), {"nodes": 1, "ranks_per_node": ranks})
        pred = model.predict(sys_, pat)
        ratio = pred.seconds / seconds
        ok += 1 / 1.5 <= ratio <= 1.5
        inside += pred.low <= seconds <= pred.high
        print(f"{name:<26} {seconds:>8.3g} s {pred.seconds:>8.3g} s {ratio:>5.2f}x  {pred.binding} "
              f"[{min(runs):.3g}-{max(runs):.3g}] ({pred.low:.3g}-{pred.high:.3g})")
    print(f"\nwithin 1.5x: {ok} of {len(CASES)} (time predicted / median time measured over {rounds} rounds); "
          f"measured median inside the predicted interval: {inside} of {len(CASES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
