"""SIGKILL of `pario advise` in the cases issue 19 left open, end to end with the real engine:

- during `--verify`, while pario runs the user's program again: the program must end with pario
  (it was left running, orphaned, rewriting the user's files after pario was gone), nothing pario
  made may stay, and nothing the program or the user made may go (pario never deletes a file it
  did not create);
- a measuring directory more than one level deep (--dir A/B/C, none of which exists): every level
  pario made must go (they were made without a guard and stayed; the normal end is in
  test_signals_guard.py).

The moment of the kill is polled for (the program's process, a file of the run); what must not be
left is polled with a generous deadline. No timing is asserted."""
import os
import signal
import subprocess
import sys
import time

import pytest

from advise_support import build, profile
from cli_support import ENGINE, HAVE_MPIRUN, SRC
from profile_support import preload_lib
from test_signals_e2e import assert_gone, processes_of
from test_signals_sigkill_early import sentinels_of

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]


def start(tmp_path, args, lib=None):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"), PARIO_ENGINE=ENGINE,
               XDG_CACHE_HOME=str(tmp_path / "cache"), TMPDIR=str(tmpdir))
    env.pop("PARIO_SCRATCH", None)
    env.pop("LD_PRELOAD", None)
    if lib:
        env["PARIO_PRELOAD"] = lib
    with open(tmp_path / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "pario", "advise", *map(str, args)], env=env,
                                stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path)
    return proc, tmpdir


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL


def said(tmp_path):
    return (tmp_path / "stderr.txt").read_text(errors="replace")[-600:]


def children_running(pid, exe):
    """Children of pid whose executable is exe."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rpartition(")")[2].split()[1])
            if ppid == pid and os.readlink(f"/proc/{entry}/exe") == os.path.realpath(exe):
                found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


def entries(root):
    """Every path under root (os.walk: a directory removed meanwhile is no error)."""
    out = []
    for top, dirs, files in os.walk(root):
        out += [os.path.join(top, n) for n in dirs + files]
    return sorted(out)


def files_under(root, skip):
    return {os.path.relpath(p, root) for p in entries(root)
            if not any(p == str(s) or p.startswith(str(s) + os.sep) for s in skip)}


def test_sigkill_during_verify_ends_the_program_and_keeps_its_files(tmp_path_factory, tmp_path):
    """The log's program, run again by --verify, sleeps there (DIR/wait_s, written after profiling:
    the log's run was short, so --verify plans its alternated runs); pario is killed while it runs."""
    lib = preload_lib(tmp_path_factory)
    exe = build(tmp_path, "patterns")
    log = profile(exe, "small-wait", lib, tmp_path)   # runs `patterns small-wait tmp_path/w-small-wait`
    work = tmp_path / "w-small-wait"
    (work / "wait_s").write_text("600\n")
    (work / "keep.me").write_text("user data")
    # the results store and the calibrations kept beside it are what pario keeps on purpose
    skip = [tmp_path / "runs.db", tmp_path / "systems", tmp_path / "cache", tmp_path / "stderr.txt", tmp_path / "tmp"]
    before = files_under(tmp_path, skip)
    proc, tmpdir = start(tmp_path, [log, "--verify", "--budget", "10", "-n", "1"], lib=lib)
    try:
        deadline = time.monotonic() + 240   # the calibration runs first
        while not children_running(proc.pid, exe) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children_running(proc.pid, exe), f"pario never ran the program again (exit {proc.poll()}): " \
                                                f"{said(tmp_path)}"
        kill(proc)
        assert_gone(lambda: {
            "processes of the run (the user's program) are": processes_of(tmp_path),
            "entries pario made are": sorted(files_under(tmp_path, skip) - before),
            "files in $TMPDIR are": entries(tmpdir),
            "the run's sentinels are": sentinels_of(tmpdir)}, 90)
        assert files_under(tmp_path, skip) >= before, "a file pario did not make was removed"
        assert (work / "keep.me").read_text() == "user data" and (work / "out").is_file()
    finally:   # the program this test started, if the fix does not hold: it would sleep 600 s
        for pid, _ in processes_of(tmp_path):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.parametrize("when", ["directory", "its-run"])
def test_sigkill_of_advise_in_a_deep_directory_leaves_no_level(tmp_path, when):
    work = tmp_path / "work"
    work.mkdir()
    deep = work / "a" / "b" / "c"
    proc, tmpdir = start(tmp_path, ["--calibrate", "-n", "1", "--dir", deep])
    deadline = time.monotonic() + 120
    seen = False
    while not seen and proc.poll() is None and time.monotonic() < deadline:
        try:   # its run's files are in DIR/.pario-advise/
            seen = deep.exists() if when == "directory" else any(
                p.name.startswith("pario.") for p in (deep / ".pario-advise").iterdir())
        except OSError:
            seen = False
        if not seen:
            time.sleep(0.002)
    assert seen, f"pario never made {when} (exit {proc.poll()}): {said(tmp_path)}"
    kill(proc)
    assert_gone(lambda: {
        "processes of the run are": processes_of(tmp_path),
        "levels pario made are": entries(work),
        "files in $TMPDIR are": entries(tmpdir),
        "the run's sentinels are": sentinels_of(tmpdir)}, 120)

