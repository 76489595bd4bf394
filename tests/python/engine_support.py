"""Running pario-engine directly under mpirun, for the engine-level tests (test_engine.py,
test_layers_engine.py, test_metadata_engine.py)."""
import glob
import json
import os
import shutil
import signal
import subprocess
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("hdf5", "pnetcdf", "netcdf4", "adios2")


def built_backends(engine):
    out = subprocess.run([engine, "--list"], capture_output=True, text=True, timeout=30)
    if out.returncode:
        return {}
    return {b["name"]: b for b in json.loads(out.stdout)["backends"]}


def find_engine():
    """PARIO_ENGINE, else the build under build/ with the most library layers built."""
    env = os.environ.get("PARIO_ENGINE")
    if env:
        return env
    try:  # the engine installed with the package (make setup)
        from pario.platform.engine import engine_path
        return engine_path()
    except Exception:
        pass
    best, best_n = None, -1
    for cand in sorted(glob.glob(str(ROOT / "build" / "*" / "pario-engine"))):
        n = sum(1 for b in built_backends(cand).values() if b["name"] in LAYERS and b["built"])
        if n > best_n:
            best, best_n = cand, n
    return best


ENGINE = find_engine()
BACKENDS = built_backends(ENGINE) if ENGINE else {}
HAVE_MPIRUN = shutil.which("mpirun") is not None


def layer_built(name):
    b = BACKENDS.get(name)
    return bool(b and b["built"])


def why_not_built(name):
    b = BACKENDS.get(name)
    if not ENGINE:
        return "pario-engine not found (set PARIO_ENGINE or build it)"
    return f"backend {name} is not built in {ENGINE}: {b.get('missing') if b else 'unknown'}"


def mpirun(n):
    argv = ["mpirun", "-n", str(n)]
    out = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in out or "OpenRTE" in out:
        argv[1:1] = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return argv


def prefix_for(tmp_path):
    """A file prefix no other test shares. Open MPI's OMPIO names a semaphore after each open
    file's basename (/dev/shm/sem.OMPIO_<name>); a job killed during an open leaves it taken,
    and every later open of that basename, in any directory, waits for ever."""
    return f"pario.t{zlib.crc32(str(tmp_path).encode()):08x}"


def launch(argv, timeout, env=None):
    """subprocess.run with a gentler timeout: mpirun gets SIGTERM (which it forwards to the
    ranks) before SIGKILL, which would leave the ranks running."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def run_engine(tmp_path, cases, n=2, prefix=None, timeout=300, env=None, status=False, wrap=()):
    """One engine launch; returns (completed process, result document or None). status: the
    per-rank status files go into tmp_path; env: extra environment (e.g. PARIO_FAULT);
    prefix: the data files' prefix, by default prefix_for(tmp_path); wrap: a command each rank's
    engine runs under (e.g. strace)."""
    spec = {"schema": "pario.spec/1", "run_id": "t", "dir": str(tmp_path),
            "prefix": prefix or prefix_for(tmp_path), "cases": cases}
    if status:
        spec["status_dir"] = str(tmp_path)
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    result = tmp_path / "result.json"
    proc = launch(mpirun(n) + list(wrap) + [ENGINE, str(tmp_path / "spec.json"), str(result)], timeout,
                  env={**os.environ, **(env or {})})
    doc = json.loads(result.read_text()) if result.exists() else None
    return proc, doc


def tool(name):
    """A format tool on PATH, or next to the ADIOS2 that scripts/build-adios2.sh built."""
    found = shutil.which(name)
    if found:
        return found
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pario"
    for cand in sorted(cache.glob(f"adios2-*/bin/{name}")):
        return str(cand)
    return None
