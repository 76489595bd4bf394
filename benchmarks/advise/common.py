"""What the benchmarks/advise scripts share: the pattern programs of tests/advise built here, pario
run from this tree (against the engine and profiler installed in .venv by `make setup`), Darshan
runs, and a timer. Third-party tools are found through the environment:
  DARSHAN_LIB   libdarshan.so of a Darshan runtime built for Open MPI (default /opt/darshan/lib/libdarshan.so)
  DRISHTI       the drishti command of drishti-io (default /opt/drishti-venv/bin/drishti)"""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DARSHAN_LIB = os.environ.get("DARSHAN_LIB", "/opt/darshan/lib/libdarshan.so")
DRISHTI = os.environ.get("DRISHTI", "/opt/drishti-venv/bin/drishti")


def installed(name: str) -> str:
    hits = glob.glob(str(ROOT / ".venv" / "lib" / "python*" / "site-packages" / "pario" / name))
    if not hits:
        sys.exit(f"{name} not found under .venv: run `make setup` first")
    return hits[0]


def pario_env(db: Path, scratch: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PARIO_DB=str(db), PARIO_SCRATCH=str(scratch),
               PARIO_ENGINE=installed("bin/pario-engine"), PARIO_PRELOAD=installed("lib/libpario-preload.so"))
    env.pop("LD_PRELOAD", None)
    return env


def pario(args, env, check=True, **kw) -> subprocess.CompletedProcess:
    run = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "pario", *map(str, args)],
                         capture_output=True, text=True, env=env, **kw)
    if check and run.returncode != 0:
        sys.exit(f"pario {' '.join(map(str, args))} failed ({run.returncode}): {run.stderr.strip()[-2000:]}")
    return run


def build(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    exes = {"patterns": out / "patterns", "mpi_patterns": out / "mpi_patterns"}
    subprocess.run(["cc", "-O2", "-o", str(exes["patterns"]), str(ROOT / "tests/advise/patterns.c")], check=True)
    subprocess.run(["mpicc", "-O2", "-o", str(exes["mpi_patterns"]), str(ROOT / "tests/advise/mpi_patterns.c")],
                   check=True)
    return exes


def mpirun(ranks: int, exports: list[str] | None = None) -> list[str]:
    cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    for e in exports or []:
        cmd += ["-x", e]
    return cmd


def darshan_log(argv: list[str], log: Path, ranks: int | None) -> Path:
    """Run argv under the Darshan runtime, its log written to `log`."""
    if not os.path.isfile(DARSHAN_LIB):
        sys.exit(f"no Darshan runtime at {DARSHAN_LIB} (set DARSHAN_LIB)")
    env = dict(os.environ, DARSHAN_LOGFILE=str(log))
    if not ranks:   # non-MPI mode only for serial programs: under mpirun each rank would write its own log
        env["DARSHAN_ENABLE_NONMPI"] = "1"
    if log.exists():
        log.chmod(0o600)
        log.unlink()
    if ranks:
        cmd = mpirun(ranks, ["DARSHAN_LOGFILE", f"LD_PRELOAD={DARSHAN_LIB}"]) + argv
    else:
        env["LD_PRELOAD"] = DARSHAN_LIB
        cmd = argv
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return log


def timed(cmd: list[str], env=None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def clean(directory: Path) -> None:
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)


def load_json(text: str) -> dict:
    return json.loads(text)
