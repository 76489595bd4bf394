"""run/engine_mpi.py: the engine's MPI (`pario-engine --mpi-library`, no launch) against the
launcher's, before the first launch. The real engines say their MPI; the decision (refuse only
Open MPI against MPICH under mpirun, skip what cannot be told) and the per-process cache are
checked with small stand-in engines that print what a real one would."""
import os
import subprocess

import pytest

from mpi_flavours import MPICH, OPENMPI
from pario.model.errors import ParioError
from pario.platform.mpi import MPI
from pario.run import engine_mpi

OMPI_LINE = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
MPICH_LINE = "MPICH Version:\t4.0.2"
LAUNCHERS = {"openmpi": MPI("/usr/bin/mpirun", "openmpi", "mpirun (Open MPI) 4.1.4"),
             "mpich": MPI("/usr/bin/mpiexec.mpich", "mpich", "MPICH (Hydra) 4.0.2"),
             "intel": MPI("/opt/intel/bin/mpirun", "intel", "Intel(R) MPI Library 2021.6"),
             "unknown": MPI("/opt/cray/pals/bin/mpiexec", "unknown", "mpiexec (PALS) 1.2")}


def fake_engine(tmp_path, line, rc=0, name="pario-engine"):
    """An executable answering --mpi-library as an engine would; each call is counted in calls.txt."""
    path = tmp_path / name
    count = tmp_path / "calls.txt"
    path.write_text(f"#!/bin/sh\necho x >> '{count}'\nprintf '%s\\n' '{line}'\nexit {rc}\n")
    path.chmod(0o755)
    return str(path)


def calls(tmp_path):
    return len((tmp_path / "calls.txt").read_text().splitlines())


@pytest.mark.parametrize("flavour", [OPENMPI, MPICH], ids=["openmpi", "mpich"])
def test_the_real_engine_names_its_mpi_without_a_launch(flavour):
    if not flavour["engine"]:
        pytest.skip(f"no {flavour['name']} engine (scripts/build-mpich-engine.sh for MPICH)")
    out = subprocess.run([flavour["engine"], "--mpi-library"], capture_output=True, text=True, timeout=60,
                         env={k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI"))})
    assert out.returncode == 0 and out.stderr == "", out.stderr
    (line,) = out.stdout.splitlines()
    assert ("Open MPI" in line) == (flavour["name"] == "openmpi") and ("MPICH" in line) == (flavour["name"] == "mpich")


@pytest.mark.parametrize("built,launcher", [(OMPI_LINE, "mpich"), (MPICH_LINE, "openmpi")])
def test_open_mpi_against_mpich_is_refused_naming_both_and_the_fix(tmp_path, built, launcher):
    engine = fake_engine(tmp_path, built)
    with pytest.raises(ParioError) as err:
        engine_mpi.check(engine, LAUNCHERS[launcher], "mpirun")
    text = str(err.value)
    assert "\n" not in text and engine_mpi.FIX in text and LAUNCHERS[launcher].version in text
    assert ("Open MPI v4.1.4" if built == OMPI_LINE else "MPICH Version: 4.0.2") in text
    assert "package:" not in text   # the library's name and version, not its package details


@pytest.mark.parametrize("built,launcher,how", [
    (OMPI_LINE, "openmpi", "mpirun"), (MPICH_LINE, "mpich", "mpirun"),        # the same MPI
    (MPICH_LINE, "intel", "mpirun"), (OMPI_LINE, "unknown", "mpirun"),        # launchers pario cannot tell
    ("MPI VERSION : CRAY MPICH version 8.1.25", "unknown", "mpirun"),
    ("Intel(R) MPI Library 2021.6 for Linux* OS", "mpich", "mpirun"),        # MPICH-based: runs under Hydra
    (OMPI_LINE, "mpich", "srun"),                                           # srun: its --mpi plugin decides
    ("", "mpich", "mpirun")])                                               # an engine that cannot say
def test_what_is_not_known_to_fail_is_not_refused(tmp_path, built, launcher, how):
    engine_mpi.check(fake_engine(tmp_path, built), LAUNCHERS[launcher], how)


def test_an_engine_without_the_option_is_not_judged(tmp_path):
    """An older engine prints its usage and exits 2: no answer, no refusal (the launch's checks remain)."""
    engine = fake_engine(tmp_path, "usage: mpirun -n N pario-engine SPEC.json RESULT.json", rc=2)
    assert engine_mpi.library(engine) is None
    engine_mpi.check(engine, LAUNCHERS["mpich"], "mpirun")
    engine_mpi.check(str(tmp_path / "missing"), LAUNCHERS["mpich"], "mpirun")


def test_one_exec_per_engine_path_and_mtime(tmp_path):
    engine = fake_engine(tmp_path, OMPI_LINE)
    for _ in range(3):
        assert engine_mpi.library(engine) == " ".join(OMPI_LINE.split())
        engine_mpi.check(engine, LAUNCHERS["openmpi"], "mpirun")
    assert calls(tmp_path) == 1
    st = os.stat(engine)   # rebuilt in place (a new mtime): asked again
    fake_engine(tmp_path, MPICH_LINE)
    os.utime(engine, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert engine_mpi.library(engine) == "MPICH Version: 4.0.2" and calls(tmp_path) == 2
