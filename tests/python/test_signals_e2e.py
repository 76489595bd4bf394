"""`pario bench` killed from outside, end to end with the real engine under the real mpirun:
SIGTERM/SIGHUP/SIGINT to pario (timeout, a Slurm time limit, a closed terminal, Ctrl-C), SIGTERM
to every process of the job (scancel), SIGKILL of mpirun, SIGKILL of pario itself. Each time the
job ends, what it measured is stored (partial), and no process and no file of the run is left:
not in the scratch directory, not in $TMPDIR (pario's spec/result/status files, Open MPI's
session directory), not in /dev/shm. Conditions are polled with generous deadlines; no timing
is asserted."""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, SRC

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

# 2 ranks, 3 repetitions of write+read of 64 KiB per rank; rank 1 hangs in its third timed phase
# (write rep 1), so that two phases are measured and the job then waits for the signal.
ARGS = ["-n", "2", "-F", "-t", "4k", "-b", "64k", "-i", "3", "--no-probe", "--json"]
HANG_AFTER_TWO = {"PARIO_FAULT": "hang:1:2"}


class Bench:
    """`pario bench` in the background with a private TMPDIR, its stderr read as it comes."""

    def __init__(self, tmp_path, args=ARGS, extra_env=None, prefix=()):
        self.tmp_path = tmp_path
        self.scratch = tmp_path / "scratch"
        self.scratch.mkdir()
        (self.scratch / "keep.me").write_text("user data")
        self.tmpdir = tmp_path / "tmp"
        self.tmpdir.mkdir()
        self.db = tmp_path / "runs.db"
        env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(self.db), PARIO_ENGINE=ENGINE,
                   XDG_CACHE_HOME=str(tmp_path / "cache"), TMPDIR=str(self.tmpdir), **(extra_env or {}))
        env.pop("PARIO_SCRATCH", None)
        self.proc = subprocess.Popen([*prefix, sys.executable, "-m", "pario", "bench", *args, "--dir",
                                      str(self.scratch)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=tmp_path)
        self.lines: queue.Queue = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, text, deadline_s=120):
        """Until a stderr line holds text (e.g. the second phase's progress line)."""
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                break
            self.err.append(line)
            if text in line:
                return
        raise AssertionError(f"never saw {text!r}; stderr so far:\n{''.join(self.err)}")

    def finish(self, timeout=120):
        out = self.proc.stdout.read()
        self.proc.wait(timeout=timeout)
        while True:
            try:
                line = self.lines.get(timeout=30)
            except queue.Empty:  # the launch inherited pario's stderr: some process of it still runs
                left = processes_of(self.tmp_path)
                raise AssertionError(f"pario's stderr is still open 30 s after it ended: {left}; "
                                     f"stderr so far:\n{''.join(self.err)}") from None
            if line is None:
                break
            self.err.append(line)
        return self.proc.returncode, out, "".join(self.err)

    def launcher(self, deadline_s=60):
        """The pid of the launcher (mpirun) pario started."""
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            for pid in children(self.proc.pid):
                if comm(pid) in ("mpirun", "mpiexec", "orterun", "mpiexec.hydra"):
                    return pid
            time.sleep(0.1)
        raise AssertionError("pario never started mpirun")


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rpartition(")")[2].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError):
                pass
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def session_of(sid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    out.append(int(entry))
            except OSError:
                pass
    return out


def processes_of(tmp_path):
    """Processes (not zombies) whose command line names this test's directory: the run's engine
    ranks and launcher (their spec is in the private TMPDIR)."""
    mine = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as fh:
                state = fh.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if str(tmp_path) in cmd and state != "Z":
            mine.append((int(entry), cmd[:120]))
    return mine


def shm_of(pids):
    """The /dev/shm files the given processes map."""
    found = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps") as fh:
                for line in fh:
                    parts = line.split(None, 5)
                    if len(parts) == 6 and parts[5].strip().startswith("/dev/shm/"):
                        found.add(parts[5].strip())
        except OSError:
            pass
    return found


def assert_gone(left, deadline_s):
    """Poll left() ({what: the leftovers found}) until nothing is left or the deadline passes (the
    ends are asynchronous), then assert that each is empty."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            found = left()
        except FileNotFoundError:   # a directory went while it was being listed: its removal is under way
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
            continue
        if not any(found.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for what, items in found.items():
        assert not items, f"{what} left: {items}"


def assert_nothing_left(bench, shm=(), deadline_s=60):
    """No process and no file of the run, polled until the deadline."""
    assert_gone(lambda: {
        "processes of the run are": processes_of(bench.tmp_path),
        "files of the run are, in the scratch directory,": sorted(set(os.listdir(bench.scratch)) - {"keep.me"}),
        "files of the run are, in $TMPDIR,": sorted(str(p) for p in bench.tmpdir.rglob("*")),
        "shared-memory segments of the run are": sorted(p for p in shm if os.path.exists(p))}, deadline_s)
    assert (bench.scratch / "keep.me").read_text() == "user data"


def stored(bench):
    sys.path.insert(0, str(SRC))
    from pario.store import Store
    runs = Store(str(bench.db)).list_runs()
    return [Store(str(bench.db)).get_run(r["id"]) for r in runs]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["TERM", "HUP", "INT"])
def test_a_signal_to_pario_ends_the_job_and_stores_what_was_measured(tmp_path, sig):
    bench = Bench(tmp_path, extra_env=HANG_AFTER_TWO)
    bench.wait_for("[2/6]")
    launcher = bench.launcher()
    shm = shm_of(session_of(launcher))
    bench.proc.send_signal(sig)
    code, out, err = bench.finish()
    assert code == 128 + sig, err
    name = signal.Signals(sig).name
    doc = json.loads(out)
    assert doc["status"] == "partial" and f"stopped by {name}" in doc["error"], doc.get("error")
    assert [p["op"] for p in doc["result"]["cases"][0]["phases"]] == ["write", "read"]
    runs = stored(bench)
    assert len(runs) == 1 and runs[0]["status"] == "partial" and runs[0]["id"] == doc["run"]
    assert "Traceback" not in err
    assert_nothing_left(bench, shm)


def test_sigterm_to_every_process_of_the_job_like_scancel(tmp_path):
    """scancel and a Slurm time limit send SIGTERM to every process of the job at once."""
    bench = Bench(tmp_path, extra_env=HANG_AFTER_TWO)
    bench.wait_for("[2/6]")
    launcher = bench.launcher()
    everyone = [bench.proc.pid] + session_of(launcher)
    shm = shm_of(everyone)
    for pid in everyone:
        try:
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    code, out, err = bench.finish()
    assert code == 143, err
    doc = json.loads(out)
    assert doc["status"] == "partial" and len(doc["result"]["cases"][0]["phases"]) == 2
    assert [r["status"] for r in stored(bench)] == ["partial"]
    assert_nothing_left(bench, shm)


def test_timeout_command_leaves_no_process_and_no_file(tmp_path):
    """`timeout 10 pario bench ...`: SIGTERM after 10 s, whatever the run was doing then."""
    bench = Bench(tmp_path, extra_env={"PARIO_FAULT": "hang:1:1"}, prefix=["timeout", "10"])
    code, out, err = bench.finish()
    assert code == 124, err  # timeout's own code: it sent the signal
    assert "Traceback" not in err
    assert all(r["status"] in ("partial", "failed") for r in stored(bench))
    assert_nothing_left(bench)


def test_sigkill_of_mpirun_leaves_no_rank_no_file_and_no_segment(tmp_path):
    """Killed with SIGKILL, mpirun cannot tear its job down: pario ends the ranks it leaves and
    removes the run's files, the MPI's shared-memory segments and Open MPI's session directory."""
    bench = Bench(tmp_path, extra_env=HANG_AFTER_TWO)
    bench.wait_for("[2/6]")
    launcher = bench.launcher()
    shm = shm_of(session_of(launcher))
    os.kill(launcher, signal.SIGKILL)
    code, out, err = bench.finish()
    assert code == 1, err
    doc = json.loads(out)
    assert doc["status"] == "partial" and "killed by SIGKILL" in doc["error"], doc["error"]
    assert [r["status"] for r in stored(bench)] == ["partial"]
    assert_nothing_left(bench, shm)


@pytest.mark.parametrize("when", ["measuring", "before-a-phase", "starting"])
def test_sigkill_of_pario_leaves_no_process_and_no_file(tmp_path, when):
    """No handler sees SIGKILL: the engine notices that pario is gone (the orphan guard), ends the
    launch and removes the run's files, within a few seconds (polled here for up to a minute)."""
    fault = HANG_AFTER_TWO if when == "measuring" else {"PARIO_FAULT": "hang:1"}
    bench = Bench(tmp_path, extra_env=fault)
    bench.wait_for("[2/6]" if when == "measuring" else "watchdog:")
    launcher = bench.launcher()
    deadline = time.monotonic() + 60
    while when != "starting" and time.monotonic() < deadline and len(session_of(launcher)) < 3:
        time.sleep(0.1)  # mpirun and both ranks are up
    shm = shm_of(session_of(launcher))
    bench.proc.kill()
    code, out, err = bench.finish()
    assert code == -signal.SIGKILL
    assert_nothing_left(bench, shm)
    assert not stored(bench) if bench.db.exists() else True


@pytest.mark.parametrize("pid_file", ["missing", "stale"])
def test_sigkill_of_pario_before_it_named_the_launcher(tmp_path, pid_file):
    """pario writes the launcher's pid file just after starting it. Killed in between (a window of
    milliseconds, which a loaded machine widens), it leaves no pid file, or after a settings launch
    (Open MPI with hints) one naming that ended launcher: the ranks then know their launcher by its
    command line. The window is made certain here: mpirun is stopped as soon as it runs (its ranks
    cannot get through MPI_Init, after which the guard starts, without it), pario is killed, its
    pid file removed or made to name an ended process, and mpirun continued."""
    bench = Bench(tmp_path, extra_env={"PARIO_FAULT": "hang:1"})
    bench.wait_for("watchdog:")
    launcher = bench.launcher()
    os.kill(launcher, signal.SIGSTOP)
    with open(f"/proc/{bench.proc.pid}/stat") as fh:
        pario_start = fh.read().rpartition(")")[2].split()[19]
    bench.proc.kill()
    bench.proc.wait()
    (run_dir,) = bench.tmpdir.glob("pario-*")
    (run_dir / "launcher").unlink(missing_ok=True)
    if pid_file == "stale":
        (run_dir / "launcher").write_text(f"{bench.proc.pid} {pario_start}\n")
    # what rank 0 leaves when it is killed between writing its result document and renaming it
    (run_dir / "result.json.tmp.99999").write_text("{")
    os.kill(launcher, signal.SIGCONT)
    code, out, err = bench.finish()
    assert code == -signal.SIGKILL
    assert_nothing_left(bench)
