"""The MPIs the end-to-end tests run under: Open MPI (PARIO_ENGINE, mpirun) and MPICH
(PARIO_ENGINE_MPICH, mpiexec.mpich; scripts/build-mpich-engine.sh builds that engine).
`FLAVOURS` is a pytest parametrization whose MPICH entry is skipped, with the reason, where
MPICH or its engine is missing."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def _engine(var, default):
    path = os.environ.get(var) or (str(default) if default.is_file() else None)
    return path if path and os.access(path, os.X_OK) else None


def _flavour_of(mpirun):
    if not mpirun or not shutil.which(mpirun):
        return None
    text = subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    return "openmpi" if "Open MPI" in text or "OpenRTE" in text else ("mpich" if "HYDRA" in text or
                                                                        "mpich" in text.lower() else None)


OPENMPI = {"name": "openmpi", "engine": _engine("PARIO_ENGINE", ROOT / "build" / "dev" / "pario-engine"),
           "mpirun": "mpirun" if _flavour_of("mpirun") == "openmpi" else None}
MPICH = {"name": "mpich", "engine": _engine("PARIO_ENGINE_MPICH", ROOT / "build" / "mpich" / "pario-engine"),
         "mpirun": "mpiexec.mpich" if shutil.which("mpiexec.mpich") else None}


def _param(f):
    missing = [what for what, ok in (("an engine", f["engine"]), ("its launcher", f["mpirun"])) if not ok]
    how = ("set PARIO_ENGINE_MPICH (scripts/build-mpich-engine.sh) and apt-get install mpich libmpich-dev"
           if f["name"] == "mpich" else "set PARIO_ENGINE and install Open MPI")
    marks = [pytest.mark.skipif(bool(missing), reason=f"{f['name']}: no {' or '.join(missing)}; {how}")]
    return pytest.param(f, id=f["name"], marks=marks)


FLAVOURS = [_param(OPENMPI), _param(MPICH)]


def backends(flavour):
    out = subprocess.run([flavour["engine"], "--list"], capture_output=True, text=True, timeout=30)
    return {b["name"] for b in json.loads(out.stdout)["backends"] if b["built"]} if out.returncode == 0 else set()


def bench(flavour, args, tmp_path, extra_env=None, timeout=300):
    """`pario bench --json` under the flavour's MPI; returns (process, JSON document or None)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PARIO_ENGINE=flavour["engine"])
    for key in ("PARIO_FAULT", "OMPI_MCA_io", "ROMIO_HINTS", "ROMIO_PRINT_HINTS"):
        env.pop(key, None)
    env.update(extra_env or {})
    argv = [sys.executable, "-m", "pario", "bench", "--json", "--no-probe", "--mpirun", flavour["mpirun"],
            "--dir", str(tmp_path / "scratch"), *args]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path)
    try:
        return out, json.loads(out.stdout)
    except ValueError:
        return out, None
