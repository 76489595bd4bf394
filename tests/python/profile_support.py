"""Shared by the test_profile_* files: find (or build) the preload library, compile the known-I/O
programs of tests/preload, run them under the profiler and read their logs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "preload"
sys.path.insert(0, str(ROOT / "src"))

from pario.analysis.profile import load  # noqa: E402
from pario.analysis.profile.views import file_view  # noqa: E402

_built: dict = {}


def preload_lib(tmp_factory) -> str:
    """$PARIO_PRELOAD, the installed library, or one built here from csrc/intercept."""
    env = os.environ.get("PARIO_PRELOAD")
    if env:
        assert os.path.isfile(env), f"PARIO_PRELOAD={env} does not exist"
        return env
    installed = ROOT / "src" / "pario" / "lib" / "libpario-preload.so"
    try:
        import pario
        installed = Path(pario.__file__).parent / "lib" / "libpario-preload.so"
    except ImportError:
        pass
    if installed.is_file():
        return str(installed)
    if "lib" in _built:
        return _built["lib"]
    if not shutil.which("cmake") or not shutil.which("cc"):
        pytest.skip("libpario-preload.so not found and cmake/cc are missing to build it (set PARIO_PRELOAD)")
    build = tmp_factory.mktemp("preload-build")
    subprocess.run(["cmake", "-S", str(ROOT / "csrc" / "intercept"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    _built["lib"] = str(build / "libpario-preload.so")
    return _built["lib"]


def compile_c(tmp_dir: Path, name: str, *flags: str, cc: str = "cc", out: str | None = None) -> Path:
    exe = tmp_dir / (out or name)
    if not shutil.which(cc):
        pytest.skip(f"{cc} not found: cannot build {name}.c")
    subprocess.run([cc, *flags, "-o", str(exe), str(PROGRAMS / f"{name}.c"), "-lpthread"], check=True)
    return exe


def run_profiled(lib: str, argv, log_dir: Path, extra_env=None, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update({"LD_PRELOAD": lib, "PARIO_PROFILE_DIR": str(log_dir)})
    env.update(extra_env or {})
    return subprocess.run([str(a) for a in argv], env=env, capture_output=True, timeout=120, **kw)


def files(log_dir: Path):
    """(module, path) -> merged file row."""
    return {(f["module"], f["path"]): f for f in file_view(load(log_dir))}


def parts(log_dir: Path):
    return [json.loads(p.read_text()) for p in sorted(log_dir.glob("*.json"))]
