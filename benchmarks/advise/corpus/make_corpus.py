"""Record the logs of the advise corpus: every case directory holding a truth.toml gets its
program run under `pario profile` (pario.log) and under the Darshan runtime (darshan.darshan), as
its [run] table says, and a run.json with what the runs measured (commands, wall times, the
fixed program's time beside the original where the truth has a [fixed] table).

    python benchmarks/advise/corpus/make_corpus.py [CASE ...] [--rounds 3] [--missing] [--logs pario]

The truth files are written by hand from what each program does (README.md); this script never
writes one. The programs are built by the repository's CMake (-DPARIO_ADVISE_CORPUS=ON); the
peers come from the environment (/work/notes/peers.md has the recipe):
  DARSHAN_LIB  libdarshan.so of a Darshan runtime built for Open MPI (default
               /work/peers/darshan/lib/libdarshan.so); without it, only --logs pario records
  IOR          the ior binary (default /work/peers/ior/bin/ior), for the cases that run IOR"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from corpus_truth import ROOT, Case, load_cases  # noqa: E402

DARSHAN_LIB = Path(os.environ.get("DARSHAN_LIB", "/work/peers/darshan/lib/libdarshan.so"))
IOR = Path(os.environ.get("IOR", "/work/peers/ior/bin/ior"))
WORK = Path(os.environ.get("PARIO_CORPUS_WORK", "/tmp/pario-corpus"))


def build() -> Path:
    """The corpus's programs, built by the repository's CMake; returns their directory."""
    out = WORK / "build"
    cmake = shutil.which("cmake", path=str(ROOT / ".venv" / "bin")) or "cmake"
    for cmd in ([cmake, "-S", str(ROOT), "-B", str(out), "-DPARIO_ADVISE_CORPUS=ON"],
                [cmake, "--build", str(out), "--target", "corpus-programs", "-j2"]):
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode:
            sys.exit(f"{' '.join(cmd)} failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return out / "benchmarks" / "advise" / "corpus" / "programs"


def argv_of(case: Case, bins: Path, data: Path, fixed: bool = False) -> list[str]:
    spec = case.fixed if fixed and case.fixed else case.run
    program = spec.get("program", case.run["program"])
    args = [a.replace("{dir}", str(data)) for a in spec["args"]]
    if program == "ior":
        if not IOR.is_file():
            raise SystemExit(f"{case.name}: no IOR at {IOR} (set IOR)")
        return [str(IOR), *args]
    if program.endswith(".py"):
        return [sys.executable, str(ROOT / program), *args]
    if program.endswith(".sh"):
        return ["bash", str(ROOT / program), *args]
    exe = bins / Path(program).stem
    if not exe.is_file():
        raise SystemExit(f"{case.name}: {exe.name} was not built (its library was not found by CMake)")
    return [str(exe), *args]


def mpirun(ranks: int, exports: list[str]) -> list[str]:
    cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    for e in exports:
        cmd += ["-x", e]
    return cmd


def pario_env() -> dict[str, str]:
    env = dict(os.environ, PARIO_DB=str(WORK / "runs.db"))
    env.pop("LD_PRELOAD", None)
    return env


def fresh(data: Path) -> Path:
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    return data


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    run = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, run


def record_pario(case: Case, argv: list[str], data: Path) -> dict:
    log = case.dir / "pario.log"
    ranks = int(case.run.get("ranks", 0))
    cmd = [str(ROOT / ".venv" / "bin" / "pario"), "profile", "-o", str(log)]
    cmd += (["-n", str(ranks)] if ranks else []) + (["--buffer"] if case.run.get("buffer") else [])
    env = dict(pario_env(), **case.run.get("env", {}))
    wall, run = timed(cmd + ["--", *argv], env, data)
    if run.returncode:
        raise SystemExit(f"{case.name}: pario profile failed ({run.returncode}): {run.stderr[-1500:]}")
    shown = ["pario", "profile", "-o", log.name] + cmd[4:]
    return {"log": log.name, "command": " ".join(shown + ["--", *argv]), "wall_s": round(wall, 4)}


def record_darshan(case: Case, argv: list[str], data: Path) -> dict:
    log = case.dir / "darshan.darshan"
    if log.exists():
        log.chmod(0o644)
        log.unlink()
    ranks = int(case.run.get("ranks", 0))
    env = dict(os.environ, DARSHAN_LOGFILE=str(log), **case.run.get("env", {}))
    if ranks:
        cmd = mpirun(ranks, ["DARSHAN_LOGFILE", f"LD_PRELOAD={DARSHAN_LIB}"] +
                     list(case.run.get("env", {}))) + argv
    else:   # Darshan's non-MPI mode: only for programs run as one process
        env.update(DARSHAN_ENABLE_NONMPI="1", LD_PRELOAD=str(DARSHAN_LIB))
        cmd = argv
    wall, run = timed(cmd, env, data)
    if run.returncode or not log.exists():
        raise SystemExit(f"{case.name}: the Darshan run failed ({run.returncode}): {run.stderr[-1500:]}")
    log.chmod(0o644)
    return {"log": log.name, "command": " ".join(cmd), "wall_s": round(wall, 4)}


def plain(case: Case, argv: list[str]) -> list[str]:
    ranks = int(case.run.get("ranks", 0))
    return (mpirun(ranks, list(case.run.get("env", {}))) if ranks else []) + argv


def fixed_runs(case: Case, bins: Path, rounds: int) -> dict:
    """The program as it is and with the fix, unprofiled, alternated `rounds` times: wall times."""
    env = dict(os.environ, **case.run.get("env", {}))
    env.pop("LD_PRELOAD", None)
    walls: dict[str, list[float]] = {"original": [], "fixed": []}
    for _ in range(rounds):
        for side in ("original", "fixed"):
            data = fresh(WORK / "data" / f"{case.name}-{side}")
            wall, run = timed(plain(case, argv_of(case, bins, data, side == "fixed")), env, data)
            if run.returncode:
                raise SystemExit(f"{case.name}: the {side} run failed: {run.stderr[-1500:]}")
            walls[side].append(round(wall, 4))
    return {"what": case.fixed["what"], "command": " ".join(plain(case, argv_of(case, bins, Path("DIR"), True))),
            "rounds": rounds, "original_wall_s": walls["original"], "fixed_wall_s": walls["fixed"],
            "original_median_s": statistics.median(walls["original"]),
            "fixed_median_s": statistics.median(walls["fixed"])}


def foreign(case: Case) -> dict:
    """A log from another system, copied from where the truth says it comes from."""
    src = case.run["source"]
    if src.startswith("darshan:"):   # a log shipped inside the PyDarshan wheel
        import darshan
        path = Path(darshan.__file__).parent / src.split(":", 1)[1]
    else:
        path = Path(src)
    shutil.copyfile(path, case.dir / "darshan.darshan")
    return {"log": "darshan.darshan", "copied_from": src}


def versions() -> dict:
    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"
    return {"pario": out(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]),
            "mpi": out(["mpirun", "--version"]), "darshan_lib": str(DARSHAN_LIB) if DARSHAN_LIB.is_file() else None,
            "host": platform.node(), "kernel": platform.release()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case names (default: every case)")
    ap.add_argument("--rounds", type=int, default=3, help="alternated rounds of a case's fixed run")
    ap.add_argument("--missing", action="store_true", help="only the cases without a run.json")
    ap.add_argument("--logs", default="pario,darshan", choices=("pario,darshan", "pario", "darshan"),
                    help="which logs to record again (the others and their run.json entries are kept)")
    args = ap.parse_args()
    cases = load_cases(args.cases or None)
    if args.missing:
        cases = [c for c in cases if not (c.dir / "run.json").exists()]
    wanted = args.logs.split(",")
    if "darshan" in wanted and not DARSHAN_LIB.is_file() and any("darshan" in c.logs for c in cases):
        sys.exit(f"no Darshan runtime at {DARSHAN_LIB}: set DARSHAN_LIB (recipe: /work/notes/peers.md), "
                 "or record the pario logs alone with --logs pario")
    bins = build()
    meta = versions()
    for case in cases:
        t0 = time.time()
        before = case.recorded() or {}
        rec: dict = {"recorded": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta, "load": os.getloadavg()[0],
                     "logs": {k: v for k, v in before.get("logs", {}).items() if k not in wanted}}
        if case.run["program"] == "foreign":
            rec["logs"]["darshan"] = foreign(case)
        else:
            data = WORK / "data" / case.name
            argv = argv_of(case, bins, data)
            if "pario" in case.logs and "pario" in wanted:
                rec["logs"]["pario"] = record_pario(case, argv, fresh(data))
            if "darshan" in case.logs and "darshan" in wanted:
                rec["logs"]["darshan"] = record_darshan(case, argv, fresh(data))
            if case.fixed:
                rec["fixed"] = fixed_runs(case, bins, args.rounds)
            shutil.rmtree(data, ignore_errors=True)
        (case.dir / "run.json").write_text(json.dumps(rec, indent=1) + "\n")
        print(f"{case.name}: {', '.join(rec['logs'])} in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
