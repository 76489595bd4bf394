"""Shared by the test_buffer_* files: build the programs of tests/buffer (and smallwrites), run
them with and without the buffer, and read the per-process stats files it writes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from profile_support import ROOT, preload_lib

PROGRAMS = ROOT / "tests" / "buffer"
SMALLWRITES = ROOT / "benchmarks" / "buffer" / "smallwrites.c"

__all__ = ["ROOT", "build", "buffer_env", "lib_path", "run", "stats", "preload_lib"]


def build(tmp_dir: Path, name: str, *flags: str, cc: str = "cc") -> Path:
    """Compile tests/buffer/NAME.c (or smallwrites) into tmp_dir."""
    src = SMALLWRITES if name == "smallwrites" else PROGRAMS / f"{name}.c"
    exe = tmp_dir / name
    if exe.exists():
        return exe
    if not shutil.which(cc):
        pytest.skip(f"{cc} not found: cannot build {src.name}")
    subprocess.run([cc, "-O2", *flags, "-o", str(exe), str(src), "-lpthread"], check=True)
    return exe


def lib_path(tmp_factory) -> str:
    return preload_lib(tmp_factory)


def buffer_env(lib: str, stats_dir: Path | None = None, size: str | None = None, profile: bool = False,
               **extra: str) -> dict[str, str]:
    """The environment `pario buffer` gives a program (csrc/buffer/README.md)."""
    env = dict(os.environ, LD_PRELOAD=lib, PARIO_BUFFER="1")
    if not profile:
        env["PARIO_PROFILE_DISABLE"] = "1"
    if size:
        env["PARIO_BUFFER_SIZE"] = size
    if stats_dir is not None:
        stats_dir.mkdir(parents=True, exist_ok=True)
        env["PARIO_BUFFER_STATS"] = str(stats_dir)
    env.update(extra)
    return env


def plain_env() -> dict[str, str]:
    env = dict(os.environ)
    for key in ("LD_PRELOAD", "PARIO_BUFFER", "PARIO_BUFFER_STATS"):
        env.pop(key, None)
    return env


def run(argv, env=None, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 120)
    return subprocess.run([str(a) for a in argv], env=env if env is not None else plain_env(), **kw)


def stats(stats_dir: Path) -> list[dict]:
    """The per-process stats documents the buffer wrote."""
    return [json.loads(p.read_text()) for p in sorted(stats_dir.glob("*.json"))]


def file_stats(stats_dir: Path, path: Path, stdio: bool = False) -> dict:
    """One file's counters, summed over the processes that wrote it."""
    out: dict = {}
    for doc in stats(stats_dir):
        for f in doc["files"]:
            if f["path"] == str(path) and f["stdio"] == stdio:
                for k, v in f.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        out[k] = out.get(k, 0) + v
                    elif k == "flush_reasons":
                        reasons = out.setdefault("flush_reasons", {})
                        for why, n in v.items():
                            reasons[why] = reasons.get(why, 0) + n
    return out


def run_paused(driver: Path, lines: list[str], work: Path, env, watch: str = "f0") -> tuple[str, list[int]]:
    """Run opsdriver; at each "pause" look at the size of work/watch from outside the process.
    Returns (everything it printed, the sizes seen)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "ops.txt").write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([str(driver), str(work / "ops.txt"), str(work)],
                            env=env if env is not None else plain_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin and proc.stdout
    out, sizes = [], []
    for line in proc.stdout:
        out.append(line)
        if line.rstrip().endswith("paused"):
            target = work / watch
            sizes.append(target.stat().st_size if target.exists() else -1)
            proc.stdin.write("\n")
            proc.stdin.flush()
    proc.wait(timeout=60)
    return "".join(out), sizes
