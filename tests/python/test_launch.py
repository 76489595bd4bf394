"""Command lines per MPI flavour, and the watchdog ending a stuck run and naming the stuck rank."""
import os
import shutil
import sys
import time

import pytest

from pario.model.errors import ParioError
from pario.platform import mpi as mpis
from pario.platform import slurm
from pario.report.terminal.progress import Progress
from pario.run import forward, launchers, watchdog
from pario.run.launchers import srun

OMPI = mpis.MPI("/usr/bin/mpirun", "openmpi", "mpirun (Open MPI) 4.1.4")
MPICH = mpis.MPI("/usr/bin/mpiexec.hydra", "mpich", "HYDRA build details:")
INTEL = mpis.MPI("/opt/intel/mpirun", "intel", "Intel(R) MPI Library for Linux* OS, Version 2021.9")
ENGINE = ["/x/pario-engine", "s.json", "r.json"]


@pytest.mark.parametrize("text,flavour", [
    ("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/", "openmpi"),
    ("mpirun (Open MPI) 5.0.3", "openmpi"),
    ("HYDRA build details:\n    Version:                                 4.0.2", "mpich"),
    ("Intel(R) MPI Library for Linux* OS, Version 2021.10 Build 20230619", "intel"),
    ("something else", "unknown")])
def test_flavour_of(text, flavour):
    assert mpis.flavour_of(text) == flavour


def test_openmpi_command():
    argv = launchers.command(OMPI, 4, ENGINE, io="romio321", env={"PARIO_FAULT": "die:1"}, is_root=True)
    assert argv == ["/usr/bin/mpirun", "-n", "4", "--oversubscribe", "--allow-run-as-root", "--mca", "io",
                    "romio321", "-x", "PARIO_FAULT=die:1", *ENGINE]
    assert "--allow-run-as-root" not in launchers.command(OMPI, 2, ENGINE, is_root=False)


def test_mpich_and_intel_commands():
    for mpi in (MPICH, INTEL):
        argv = launchers.command(mpi, 3, ENGINE, env={"ROMIO_PRINT_HINTS": "1"}, is_root=True)
        assert argv == [mpi.path, "-n", "3", "-genv", "ROMIO_PRINT_HINTS", "1", *ENGINE]
        with pytest.raises(ParioError, match="Open MPI io component"):
            launchers.command(mpi, 3, ENGINE, io="ompio")


def test_srun_command_and_env(monkeypatch):
    # this srun's plugins as Slurm 22.05 lists them (the real `srun --mpi=list`: test_slurm_*.py)
    monkeypatch.setattr(slurm, "mpi_plugins", lambda: ("pmix", "none", "cray_shasta", "pmi2", "pmix_v4"))
    monkeypatch.delenv("SLURM_MPI_TYPE", raising=False)
    srun._choice.cache_clear()
    assert launchers.command(OMPI, 8, ENGINE, launcher="srun") == [
        "srun", "-n", "8", "--kill-on-bad-exit=1", "--mpi=pmix", *ENGINE]
    assert launchers.command(MPICH, 8, ENGINE, launcher="srun")[4] == "--mpi=pmi2"
    monkeypatch.setenv("SLURM_MPI_TYPE", "pmi2")  # the user's (or site's) choice: srun reads it itself
    assert launchers.command(OMPI, 8, ENGINE, launcher="srun") == ["srun", "-n", "8", "--kill-on-bad-exit=1", *ENGINE]
    srun._choice.cache_clear()
    assert launchers.launch_env(OMPI, "ompio", "srun", {})["OMPI_MCA_io"] == "ompio"
    with pytest.raises(ParioError, match="choose one of"):
        launchers.command(OMPI, 2, ENGINE, io="romio999")


def test_forwarded_env():
    env = forward.forwarded_env({"PARIO_FAULT": "hang:0", "ROMIO_HINTS": "/h", "HOME": "/root"})
    assert env == {"PARIO_FAULT": "hang:0", "ROMIO_HINTS": "/h"}


def test_no_mpi_is_exit_3(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PARIO_MPIRUN", raising=False)
    with pytest.raises(ParioError) as err:
        mpis.find_mpirun()
    assert err.value.exit_code == 3 and "apt-get install openmpi-bin" in str(err.value)
    with pytest.raises(ParioError, match="not found"):
        mpis.find_mpirun("/no/such/mpirun")


def test_detect_real_mpirun():
    found = shutil.which("mpirun")
    if not found:
        pytest.skip("no mpirun on PATH")
    found_mpi = mpis.detect(found)
    assert found_mpi.flavour in ("openmpi", "mpich", "intel") and found_mpi.version


# A stand-in launcher: forks two "ranks" that write status files like the engine; rank 1 hangs in
# its first write, rank 0 finishes it and waits (as at a barrier). It prints a start line.
FAKE = r'''
import json, os, sys, time
sd = sys.argv[1]
print("@pario " + json.dumps({"event": "start", "ncases": 1, "steps": 2}), flush=True)
print("a line that is not progress", flush=True)
pids = []
for rank in (0, 1):
    pid = os.fork()
    if pid == 0:
        with open(os.path.join(sd, "pid.%d" % rank), "w") as f:
            f.write(str(os.getpid()))
        with open(os.path.join(sd, "rank.%d" % rank), "w") as f:
            f.write("0 write 0 %s\n" % ("done" if rank == 0 else "xfer"))
        time.sleep(1000)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
'''

CASES = [{"name": "fpp-posix", "ops": ["write", "read"]}]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


def test_watchdog_names_the_stuck_rank_and_ends_everything(tmp_path, capsys):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    start = time.monotonic()
    out = watchdog.run([sys.executable, str(script), str(tmp_path)], env=dict(os.environ), timeout=1.5,
                     status_dir=str(tmp_path), ranks=2, cases=CASES, observer=Progress(plain=True))
    assert time.monotonic() - start < 15
    assert out.watchdog and "rank 1 stuck in fpp-posix write rep 0 (state xfer)" in out.watchdog
    assert "the other 1 waits" in out.watchdog
    assert out.events and out.events[0]["event"] == "start"
    assert "a line that is not progress" in capsys.readouterr().err, "other output goes to stderr"
    for rank in (0, 1):
        pid = int((tmp_path / f"pid.{rank}").read_text())
        assert not _alive(pid), f"rank {rank} survived the watchdog"


def test_stuck_ranks_from_status_files(tmp_path):
    cases = [{"name": "a", "ops": ["write", "read"]}, {"name": "b", "ops": ["write"]}]
    assert "no rank wrote" in watchdog.stuck_ranks(str(tmp_path), 4, cases)
    for r, line in enumerate(["1 write 0 done", "0 read 2 close", "0 read 2 close", "1 write 0 open"]):
        (tmp_path / f"rank.{r}").write_text(line + "\n")
    assert watchdog.stuck_ranks(str(tmp_path), 4, cases).startswith("ranks 1-2 stuck in a read rep 2 (state close)")
    (tmp_path / "rank.0").write_text("0 write -1 xfer\n")
    assert "rank 0 stuck in a write (the untimed write" in watchdog.stuck_ranks(str(tmp_path), 4, cases)
    (tmp_path / "rank.3").unlink()
    assert watchdog.stuck_ranks(str(tmp_path), 4, cases) == "rank 3 never reported a phase"


@pytest.mark.mpi
@pytest.mark.skipif(not shutil.which("mpirun"), reason="no mpirun on PATH")
def test_watchdog_under_real_mpirun(tmp_path):
    """The same through mpirun: the stuck rank is named and no rank process outlives the run."""
    engine = tmp_path / "engine.py"
    engine.write_text(r'''
import os, sys, time
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")))
sd = sys.argv[1]
open(os.path.join(sd, "pid.%d" % rank), "w").write(str(os.getpid()))
open(os.path.join(sd, "rank.%d" % rank), "w").write("0 write 0 %s\n" % ("xfer" if rank == 1 else "done"))
time.sleep(1000)
''')
    mpi = mpis.detect(shutil.which("mpirun"))
    argv = launchers.command(mpi, 2, [sys.executable, str(engine), str(tmp_path)])
    out = watchdog.run(argv, env=dict(os.environ), timeout=3, status_dir=str(tmp_path), ranks=2, cases=CASES,
                     observer=Progress(plain=True))
    assert out.watchdog and "rank 1 stuck in fpp-posix write" in out.watchdog
    for rank in (0, 1):
        pid = int((tmp_path / f"pid.{rank}").read_text())
        assert not _alive(pid)


# ---- issue 19: the watchdog's limit, stopped processes, processes that outlive the launcher -------

STOPPED = r'''
import json, os, signal, sys, time
sd = sys.argv[1]
print("@pario " + json.dumps({"event": "start", "ncases": 1, "steps": 2}), flush=True)
pid = os.fork()
if pid == 0:
    def on_term(signum, frame):
        open(os.path.join(sd, "got-term"), "w").write("TERM")
        os._exit(0)
    signal.signal(signal.SIGTERM, on_term)
    open(os.path.join(sd, "pid.0"), "w").write(str(os.getpid()))
    os.kill(os.getpid(), signal.SIGSTOP)  # a stopped rank: SIGTERM waits until SIGCONT
    time.sleep(1000)
    os._exit(0)
os.waitpid(pid, 0)
'''


def test_watchdog_continues_a_stopped_rank_so_that_it_gets_sigterm(tmp_path):
    """SIGCONT goes with SIGTERM (as Slurm sends them): a stopped rank ends at once, by SIGTERM,
    instead of holding it until the SIGKILL that comes after the grace period."""
    script = tmp_path / "stopped.py"
    script.write_text(STOPPED)
    out = watchdog.run([sys.executable, str(script), str(tmp_path)], env=dict(os.environ), timeout=1.0,
                       status_dir=str(tmp_path), ranks=1, cases=CASES, observer=Progress(plain=True))
    assert (tmp_path / "got-term").exists(), "the stopped rank never saw SIGTERM"
    assert out.watchdog and "no progress for 1 s (--timeout)" in out.watchdog
    assert not _alive(int((tmp_path / "pid.0").read_text()))


ORPHANING = r'''
import json, os, sys, time
sd = sys.argv[1]
print("@pario " + json.dumps({"event": "start", "ncases": 1, "steps": 2}), flush=True)
if os.fork() == 0:   # a rank that outlives its launcher (as when mpirun is killed with SIGKILL)
    os.close(1)
    open(os.path.join(sd, "pid.0"), "w").write(str(os.getpid()))
    time.sleep(1000)
    os._exit(0)
deadline = time.time() + 30
while not os.path.exists(os.path.join(sd, "pid.0")) and time.time() < deadline:
    time.sleep(0.05)
os._exit(9)
'''


def test_ranks_that_outlive_the_launcher_are_ended(tmp_path):
    script = tmp_path / "orphaning.py"
    script.write_text(ORPHANING)
    out = watchdog.run([sys.executable, str(script), str(tmp_path)], env=dict(os.environ), timeout=60,
                       status_dir=str(tmp_path), ranks=1, cases=CASES, observer=Progress(plain=True))
    assert out.returncode == 9 and not out.watchdog
    assert not _alive(int((tmp_path / "pid.0").read_text())), "a rank outlived its launcher and pario"
    assert out.stragglers == 1


DATA = [{"name": "big", "pattern": "segmented", "block": 64 << 20, "segments": 1, "ops": ["write", "read"]},
        {"name": "md", "workload": "metadata", "files_per_dir": 100, "ops": ["create", "remove"]}]


def test_limit_is_measured_from_the_phases():
    limit = watchdog.Limit(None, DATA, 2)
    # before any phase ended: the floor plus the largest phase at a pessimistic 4 MiB/s
    assert limit.seconds() == limit.FLOOR_S + (128 << 20) / (4 << 20)
    limit.event({"event": "open", "case": 0, "op": "write", "rep": 0}, 100.0)
    limit.event({"event": "phase", "case": 0, "op": "write", "rep": 0}, 108.0)   # 8 s for 128 MiB
    assert limit.seconds() == 80.0, "10x the slowest phase"
    limit.event({"event": "open", "case": 0, "op": "read", "rep": 0}, 109.0)
    limit.event({"event": "phase", "case": 0, "op": "read", "rep": 0}, 109.5)
    assert limit.seconds() == 80.0, "a faster phase does not lower it"
    limit.event({"event": "open", "case": 1, "op": "create", "rep": 0}, 110.0)
    assert limit.seconds() == limit.FLOOR_S + 100 / limit.FIRST_FILES_S, "metadata is measured on its own"
    limit.event({"event": "phase", "case": 1, "op": "create", "rep": 0}, 110.1)
    assert limit.seconds() == 80.0
    small = watchdog.Limit(None, [{"name": "s", "pattern": "segmented", "block": 1 << 20, "ops": ["write"]}], 2)
    small.event({"event": "open", "case": 0, "op": "write", "rep": 0}, 0.0)
    small.event({"event": "phase", "case": 0, "op": "write", "rep": 0}, 0.01)
    assert small.seconds() == small.FLOOR_S, "never under the floor"
    assert "60 s" in small.policy() and "10x the slowest phase" in small.policy()
    fixed = watchdog.Limit(7.5, DATA, 2)
    assert fixed.seconds() == 7.5 and "--timeout" in fixed.policy()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0.0, -3.0])
def test_timeout_must_be_a_positive_number(value):
    with pytest.raises(ParioError, match="positive number of seconds"):
        watchdog.check_timeout(value)
    watchdog.check_timeout(30.0)


def test_hydra_version_is_the_version_line_not_its_header(tmp_path):
    """MPICH's `mpiexec --version` starts with the header "HYDRA build details:": the version is
    the "Version:" line below it (run records and messages said "mpich (HYDRA build details:)")."""
    fake = tmp_path / "mpiexec.hydra"
    fake.write_text("#!/bin/sh\nprintf 'HYDRA build details:\\n    Version:                                 4.0.2\\n"
                    "    Release Date:                            Thu Apr  7 12:34:45 CDT 2022\\n'\n")
    fake.chmod(0o755)
    found = mpis.detect(str(fake))
    assert (found.flavour, found.version) == ("mpich", "MPICH (Hydra) 4.0.2")
    assert mpis.version_of("mpirun (Open MPI) 4.1.4\n\nReport bugs", "openmpi") == "mpirun (Open MPI) 4.1.4"


def test_an_engine_of_another_mpi_than_the_launcher_is_a_failed_run(tmp_path):
    """The Open MPI engine under MPICH's mpiexec runs as N singletons (each rank 0 of 1) that
    'complete': it was stored as a complete parallel run, and pario tune tuned it."""
    from pario.run.bench import judge
    case = {"name": "c", "ops": ["write"], "reps": 1}
    result = {"status": "complete", "cases": [{"phases": [{"op": "write"}]}],
              "mpi": {"library": "Open MPI v4.1.4, package: Debian OpenMPI", "ranks": 1}}
    status, why = judge(watchdog.Outcome(returncode=0), result, str(tmp_path), 4, [case])
    assert status == "failed" and "4 separate MPI jobs of 1 rank(s)" in why and "Open MPI v4.1.4" in why
    result["mpi"]["ranks"] = 4
    assert judge(watchdog.Outcome(returncode=0), result, str(tmp_path), 4, [case]) == ("complete", None)


def test_an_mpi_error_the_engine_found_itself_goes_before_the_world_mismatch(tmp_path):
    """Under srun with a --mpi plugin that does not match MPICH, every task is a 1-rank job: the
    engine says so itself (srun's plugin, and which one to use), which beats the generic mismatch.
    Other failures of the singletons (a partial run, an I/O error) still name the mismatch."""
    from pario.run.bench import judge
    case = {"name": "c", "ops": ["write"], "reps": 1}
    srun = "srun started 2 tasks but MPI sees 1 rank: ..., so srun's --mpi=pmix does not match"
    result = {"status": "failed", "cases": [], "error": {"code": "mpi", "message": srun},
              "mpi": {"library": "MPICH Version:\t4.0.2\nMPICH Release date: x", "ranks": 1}}
    status, why = judge(watchdog.Outcome(returncode=1), result, str(tmp_path), 2, [case])
    assert status == "failed" and why.endswith(srun)
    result["error"] = {"code": "io", "message": "cannot open the file"}
    result["cases"] = [{"phases": [{"op": "write"}]}]
    status, why = judge(watchdog.Outcome(returncode=1), result, str(tmp_path), 2, [case])
    assert status == "failed" and "2 separate MPI jobs of 1 rank(s)" in why
    assert "built against MPICH Version: 4.0.2, not" in why
