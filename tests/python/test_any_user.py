"""Any user runs every backend of a root install: the engine is installed with what it links
(ADIOS2 beside it, never in the installer's ~/.cache, which is mode 0700), and a shared library
the engine cannot load is named as such. Runs `pario bench` as `nobody` (setpriv) against this
install; skipped with a reason where setpriv is missing or the tests do not run as root."""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cli_support import SRC
from engine_support import BACKENDS, ENGINE, HAVE_MPIRUN

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)"),
              pytest.mark.skipif(os.geteuid() != 0, reason="switching to an unprivileged user needs root"),
              pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) is not installed")]

BUILT = [name for name, b in BACKENDS.items() if b["built"] and name != "null"]


def _nobody():
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' on this system")


@pytest.fixture
def home():
    """A directory the unprivileged user owns (pytest's tmp_path is root's, mode 0700)."""
    user = _nobody()
    path = Path(tempfile.mkdtemp(prefix="pario-anyuser-"))
    os.chown(path, user.pw_uid, user.pw_gid)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def as_nobody(args, home, timeout=300):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(home),
           "PYTHONPATH": str(SRC), "PARIO_DB": str(home / "runs.db"), "PARIO_ENGINE": ENGINE,
           "XDG_CACHE_HOME": str(home / "cache"), "COLUMNS": "200", "LANG": "C.UTF-8"}
    argv = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
            sys.executable, "-m", "pario", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=home)


@pytest.mark.parametrize("backend", BUILT)
def test_unprivileged_user_runs_every_backend(backend, home):
    scratch = home / "scratch"
    run = as_nobody(["bench", "-a", backend, "-n", "2", "-t", "16k", "-b", "64k", "-w", "-r", "--no-probe",
                     "--dir", str(home)], home)
    assert run.returncode == 0, f"{backend} as nobody: rc {run.returncode}\n{run.stderr[-3000:]}"
    assert "Stored as run" in run.stdout + run.stderr
    assert not scratch.exists() or not any(scratch.iterdir())


def test_engine_libraries_are_beside_it():
    """No library the engine loads comes from a home directory or a cache."""
    out = subprocess.run(["ldd", ENGINE], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "not found" not in out.stdout, out.stdout
    homes = [line for line in out.stdout.splitlines() if "/root/" in line or "/.cache/" in line or "/home/" in line]
    assert homes == [], homes


def test_missing_shared_library_is_named(home):
    """An engine whose library cannot be loaded: pario names the library, not 'stuck before the
    first phase'."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build a program whose library is missing")
    # a real program linked to a real library that is then removed: the loader refuses it (127)
    (home / "gone.c").write_text("int pario_gone(void) { return 0; }\n")
    (home / "main.c").write_text("int pario_gone(void);\nint main(void) { return pario_gone(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(home / "libpario_gone.so.1"), "-Wl,-soname,libpario_gone.so.1",
                    str(home / "gone.c")], check=True, timeout=60)
    broken = home / "broken-engine"
    subprocess.run([cc, "-o", str(broken), str(home / "main.c"), str(home / "libpario_gone.so.1")], check=True,
                   timeout=60)
    (home / "libpario_gone.so.1").unlink()
    env = {"PARIO_ENGINE": str(broken)}
    run = subprocess.run([sys.executable, "-m", "pario", "bench", "-n", "2", "-b", "64k", "-w", "--no-probe",
                          "--dir", str(home)], capture_output=True, text=True, timeout=120, cwd=home,
                         env={**os.environ, "PYTHONPATH": str(SRC), "PARIO_DB": str(home / "runs.db"), **env})
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert "libpario_gone.so.1" in last and "shared librar" in last, run.stderr
