"""Where the native engine is, and a clear word when it is not built."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from pario.model.errors import ParioError

_HOW = ("install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev, or load your "
        "site's MPI module) and reinstall pario (make setup)")


def engine_path() -> str:
    """Path of pario-engine: $PARIO_ENGINE, else the one installed inside this package."""
    env = os.environ.get("PARIO_ENGINE")
    if env:
        if not os.access(env, os.X_OK):
            raise ParioError(f"PARIO_ENGINE={env} is not an executable file; unset it or point it at pario-engine")
        return env
    here = Path(__file__).resolve().parents[1] / "bin" / "pario-engine"  # pario/bin, installed with the package
    if here.is_file():
        return str(here)
    found = shutil.which("pario-engine")
    if found:
        return found
    raise ParioError(f"the pario engine is not built (no MPI was found at build time): {_HOW}", exit_code=3)


def engine_listing(engine: str | None) -> dict[str, Any] | None:
    """`pario-engine --list` (its backends, their capabilities and settings), or None when it cannot say."""
    if not engine:
        return None
    try:
        out = subprocess.run([engine, "--list"], capture_output=True, text=True, timeout=30)
        doc = json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if out.returncode == 127:
        check_loadable(engine, out.stderr)
    return doc if isinstance(doc, dict) and "backends" in doc else None


# the dynamic loader's own words (glibc): "PROG: error while loading shared libraries: LIB: WHY"
_LOADER = re.compile(r"error while loading shared libraries: ([^:\s]+): (.+)")


def check_loadable(engine: str, stderr: str) -> None:
    """Name a shared library the loader could not load for the engine (exit 127): otherwise every
    rank dies before MPI starts and the run looks stuck before its first phase."""
    found = _LOADER.search(stderr or "")
    if found:
        lib, why = found.group(1), found.group(2).strip()
        raise ParioError(f"pario-engine cannot start: the shared library {lib} cannot be loaded ({why}) "
                         f"for this user; {engine} needs it beside the engine (in its ../lib) or on the "
                         "loader's path: reinstall pario (make setup) or load the module that provides it",
                         exit_code=3)


def counter_docs() -> dict[str, str]:
    """Counter name -> its one-line meaning, as `pario-counters` prints them (include/pario/counters.h,
    the one place they are written); {} when the tool is not there."""
    try:
        tool = Path(engine_path()).with_name("pario-counters")
    except ParioError:
        tool = Path(__file__).resolve().parents[1] / "bin" / "pario-counters"
    if not tool.is_file():
        found = shutil.which("pario-counters")
        if not found:
            return {}
        tool = Path(found)
    try:
        out = subprocess.run([str(tool)], capture_output=True, text=True, timeout=30)
        doc = json.loads(out.stdout) if out.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}
    docs: dict[str, str] = {}
    for module in (doc.get("modules") or {}).values():
        for row in (module.get("counters") or []) + (module.get("fcounters") or []):
            if row.get("name") and row.get("doc"):
                docs[row["name"]] = row["doc"]
    return docs
