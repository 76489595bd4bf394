"""SIGKILL of `pario bench` at any moment leaves no file of the run: also before its launch, when
the engine's orphan guard (test_signals_e2e.py) cannot see it yet. pario is killed at fixed times
after its start (from before its private directory exists to its launch) and at the moment its
private directory $TMPDIR/pario-* appears; the same for the commands that make the scratch
directory and probe the device before their run starts (the default suite, --suite, --preset,
`pario tune`), killed when the directory or the probe's file appears; then, polled with a generous deadline, no $TMPDIR
entry, no scratch directory (pario made it: it did not exist), no process of the run and no
sentinel of it may remain. No timing is asserted: the times only spread the kills."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, SRC
from test_signals_e2e import assert_gone, processes_of

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

ARGS = ["-n", "2", "-F", "-t", "4k", "-b", "64k", "-i", "2", "--no-probe", "--json"]


def start(tmp_path, probe=False, args=None, command="bench"):
    """args: the command's flags (ARGS: one case); the device probe's cache is this test's own, so
    a run without --no-probe probes."""
    tmpdir, scratch = tmp_path / "tmp", tmp_path / "work" / "scratch"
    tmpdir.mkdir()
    scratch.parent.mkdir()
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"), PARIO_ENGINE=ENGINE,
               XDG_CACHE_HOME=str(tmp_path / "cache"), TMPDIR=str(tmpdir), PARIO_FAULT="hang:1")
    env.pop("PARIO_SCRATCH", None)
    args = [a for a in (ARGS if args is None else args) if a != "--no-probe" or not probe]
    with open(tmp_path / "stderr.txt", "wb") as err:  # said when pario exits before the moment of the kill
        proc = subprocess.Popen([sys.executable, "-m", "pario", command, *args, "--dir", str(scratch)], env=env,
                                stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path)
    return proc, tmpdir, scratch


def sentinels_of(tmpdir):
    """Sentinel processes (run/sentinel.py) started with this test's TMPDIR."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read().split(b"\0")
        except OSError:
            continue
        if b"pario.run.sentinel" in cmd and f"TMPDIR={tmpdir}".encode() in env:
            found.append(int(entry))
    return found


def assert_nothing_left(tmp_path, tmpdir, scratch, deadline_s=90):
    assert_gone(lambda: {
        "processes of the run are": processes_of(tmp_path),
        "files of the run are, in $TMPDIR,": sorted(str(p) for p in tmpdir.rglob("*")),
        "the scratch directory pario made is": ([str(scratch)] + sorted(str(p) for p in scratch.rglob("*"))
                                                if scratch.exists() else []),
        "the run's sentinels are": sentinels_of(tmpdir)}, deadline_s)


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL


@pytest.mark.parametrize("after_s", [0.05, 0.3, 0.6, 1.0, 1.5, 2.0])
def test_sigkill_after_a_while_leaves_nothing(tmp_path, after_s):
    proc, tmpdir, scratch = start(tmp_path)
    time.sleep(after_s)
    kill(proc)
    assert_nothing_left(tmp_path, tmpdir, scratch)


@pytest.mark.parametrize("probe", [False, True], ids=["no-probe", "probe"])
def test_sigkill_as_soon_as_the_private_directory_exists(tmp_path, probe):
    """The window the orphan guard cannot cover: the directory exists, no rank runs yet (the spec
    check, the device probe with `probe`, the stack facts, the spec)."""
    proc, tmpdir, scratch = start(tmp_path, probe=probe)
    deadline = time.monotonic() + 60
    while not list(tmpdir.glob("pario-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert list(tmpdir.glob("pario-*")), "pario never made its private directory"
    if probe:  # the scratch directory and the probe's file in it
        while not scratch.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
    kill(proc)
    assert_nothing_left(tmp_path, tmpdir, scratch)


SUITE = ["-n", "2", "--size", "256k", "-i", "1", "--time", "5", "--json"]  # the default suite: no case flags
COMMANDS = {"suite": ("bench", SUITE), "suite-layers": ("bench", [*SUITE, "--suite", "layers"]),
            "preset": ("bench", ["--preset", "kaust-strategies", "-n", "2", "-i", "1", "--time", "1", "--json"]),
            "tune": ("tune", ["-n", "2", "-w", "-t", "4k", "-b", "64k", "--trials", "4", "--json"])}


def wait_for(check, proc, what):
    deadline = time.monotonic() + 60
    seen = check()
    while not seen and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
        seen = check()  # once seen, killed at once: the probe's file lives a moment only
    said = (Path(proc.args[proc.args.index("--dir") + 1]).parent.parent / "stderr.txt").read_text()[-600:]
    assert seen, f"pario never made {what} (exit {proc.poll()}): {said}"


@pytest.mark.parametrize("when", ["directory", "probe-file"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_sigkill_before_the_run_of_a_suite_leaves_nothing(tmp_path, name, when):
    """The window before the run's own sentinel: the command made the scratch directory and
    probes the device (the probe's pario.probe.* file in it) or, for tune, asks the MPI's hints."""
    command, args = COMMANDS[name]
    proc, tmpdir, scratch = start(tmp_path, args=args, command=command)
    wait_for(scratch.exists, proc, "the scratch directory")
    if when == "probe-file":  # tune asks the MPI first (pario.stack-*), then probes the device
        wait_for(lambda: any(p.name.startswith("pario.") for p in scratch.glob("*")), proc, "a file in it")
    kill(proc)
    assert_nothing_left(tmp_path, tmpdir, scratch)


@pytest.mark.parametrize("after_s", [0.5, 1.5, 3.0])
def test_sigkill_of_the_default_suite_after_a_while_leaves_nothing(tmp_path, after_s):
    """From the probe to the launch (the engine then hangs on rank 1: PARIO_FAULT)."""
    proc, tmpdir, scratch = start(tmp_path, args=SUITE)
    time.sleep(after_s)
    kill(proc)
    assert_nothing_left(tmp_path, tmpdir, scratch)


@pytest.mark.parametrize("when", ["directory", "its-run"])
def test_sigkill_of_advise_calibrate_leaves_nothing(tmp_path, when):
    """pario advise makes the directory it measures in, then a run in DIR/.pario-advise."""
    proc, tmpdir, scratch = start(tmp_path, args=["--calibrate", "-n", "1"], command="advise")
    wait_for(scratch.exists, proc, "the scratch directory")
    if when == "its-run":
        wait_for(lambda: any(p.name.startswith("pario.") for p in scratch.rglob("*")), proc, "a file of its run")
    kill(proc)
    assert_nothing_left(tmp_path, tmpdir, scratch)
