"""Shared by the test_advise_* files: build the pattern programs of tests/advise, profile them with
`pario profile` (the command, from the tree), and run `pario advise --json` on the logs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "advise"
SCHEMA = ROOT / "schemas" / "advise.schema.json"


def build(tmp_dir: Path, name: str, cc: str = "cc") -> Path:
    if not shutil.which(cc):
        pytest.skip(f"{cc} not found: cannot build {name}.c")
    exe = tmp_dir / name
    subprocess.run([cc, "-O2", "-o", str(exe), str(PROGRAMS / f"{name}.c")], check=True)
    return exe


def env(lib: str | None, tmp: Path) -> dict[str, str]:
    e = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PARIO_DB=str(tmp / "runs.db"),
             XDG_CACHE_HOME=str(tmp / "cache"), PARIO_SCRATCH=str(tmp / "scratch"))
    e.pop("LD_PRELOAD", None)
    if lib:
        e["PARIO_PRELOAD"] = lib
    return e


def pario(args, lib: str | None, tmp: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pario", *map(str, args)], capture_output=True, text=True,
                          env=env(lib, tmp), cwd=tmp, timeout=timeout)


def profile(exe: Path, mode: str, lib: str, tmp: Path, ranks: int | None = None) -> Path:
    """The log of one run of `exe MODE DIR` under `pario profile` (in a directory of its own)."""
    work = tmp / f"w-{mode}"
    work.mkdir(exist_ok=True)
    log = tmp / f"{mode}.log"
    args = ["profile", "-o", log] + (["-n", ranks] if ranks else []) + ["--", exe, mode, work]
    run = pario(args, lib, tmp)
    assert run.returncode == 0, run.stderr
    return log


def advise(logs, tmp: Path, *extra, lib: str | None = None, check: bool = True) -> dict:
    run = pario(["advise", *logs, "--json", *extra], lib, tmp)
    if check:
        assert run.returncode == 0, run.stderr
    return json.loads(run.stdout) if run.stdout.strip() else {"stderr": run.stderr, "code": run.returncode}


def rules(job: dict) -> set[str]:
    """Every rule the advice names for a job: findings, not costed, minor and measured-no-gain."""
    out = {f["rule"] for group in ("findings", "not_costed", "minor") for f in job[group]}
    return out | {g["rule"] for g in job["no_gain"]}


def validate(doc: dict) -> None:
    import jsonschema
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
