"""The launcher's session: every process pario started for one launch runs in a session of its
own (the launcher is its leader), so that ending the launch reaches the ranks it forked, and what
an MPI leaves behind when its launcher is killed can be found and removed (Linux /proc)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time

GRACE_S = 3.0  # after SIGTERM, before SIGKILL: an orderly launcher teardown takes about a second
# after the launcher exits, for the rest of its session to end by itself: mpirun can exit before the
# ssh clients (or a node's daemon reached through them) that it started have ended
OUTLIVE_S = 2.0


def session_pids(sid: int) -> list[int]:
    """Processes of the session `sid` (the launcher's pid), so that ranks it forked are ended too."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def _alive(pid: int) -> bool:
    """Running (zombies do not count: they hold no file and do no I/O)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def outliving(sid: int, wait: float = OUTLIVE_S) -> list[int]:
    """Processes of the launcher's session (its pid `sid`) still running `wait` seconds after it exited."""
    deadline = time.monotonic() + wait
    while True:
        left = [p for p in session_pids(sid) if p != sid and _alive(p)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def _signal_all(proc: subprocess.Popen, pids: list[int], sig: int) -> None:
    for target in [-proc.pid] + pids:  # the group first, then every process that left it
        try:
            if target < 0:
                os.killpg(-target, sig)
            else:
                os.kill(target, sig)
        except OSError:
            pass


def _ended(proc: subprocess.Popen) -> bool:
    """The launcher exited (not reaped: its pid stays taken) and no process of its session runs."""
    return exit_status(proc, block=False) is not None and not [p for p in session_pids(proc.pid) if _alive(p)]


def terminate(proc: subprocess.Popen, grace: float = GRACE_S) -> int:
    """End the launcher and everything in its session. SIGCONT goes with SIGTERM, as Slurm sends
    it: a stopped process would otherwise hold SIGTERM until the SIGKILL. Returns 0 when nothing
    ran any more, 1 when SIGTERM ended it all, 2 when SIGKILL was needed. The launcher is not
    reaped (remove_leftovers needs its pid)."""
    if _ended(proc):
        return 0
    for level, sigs in ((1, (signal.SIGCONT, signal.SIGTERM)), (2, (signal.SIGKILL,))):
        pids = session_pids(proc.pid)
        for sig in sigs:
            _signal_all(proc, pids, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if _ended(proc):
                return level
            time.sleep(0.05)
    return 2


def shm_files(sid: int, since: float) -> set[str]:
    """Shared-memory files (/dev/shm) the session's processes map and that were made after `since`
    (epoch seconds) by this user: the MPI's own segments, which it removes at an orderly end only."""
    found: set[str] = set()
    for pid in session_pids(sid):
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            continue
        for line in lines:
            path = line.split(None, 5)[5] if len(line.split(None, 5)) == 6 else ""
            if path.startswith("/dev/shm/") and not path.endswith(" (deleted)"):
                found.add(path)
    mine = set()
    for path in found:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if st.st_uid == os.geteuid() and st.st_ctime >= since - 1:
            mine.add(path)
    return mine


def remove_leftovers(launcher_pid: int, shm: set[str]) -> list[str]:
    """Once the launch has ended: remove what its MPI removes only at an orderly end (a launcher
    killed, or ended together with its ranks, as scancel does): the shared-memory files its
    processes mapped (shm_files) and Open MPI's session directory of that launcher
    ($TMPDIR/ompi.HOST.UID/pid.PID). Call it while the launcher's pid is not yet reaped, so that
    no other process can have that pid. Returns what it removed (nothing after an orderly end)."""
    removed = []
    for path in sorted(shm):
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    base = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"ompi.{socket.gethostname()}.{os.geteuid()}")
    mine = os.path.join(base, f"pid.{launcher_pid}")
    if os.path.isdir(mine) and not os.path.islink(mine):
        shutil.rmtree(mine, ignore_errors=True)
        removed.append(mine)
        try:
            os.rmdir(base)  # only when no other launcher of this user uses it
        except OSError:
            pass
    return removed


def exit_status(proc: subprocess.Popen, block: bool = True) -> int | None:
    """The launcher's exit as Popen.returncode would say it (-N: killed by signal N), without
    reaping it, so that its pid stays taken while pario cleans up after it; None while it runs
    (block=False). Popen.wait() reaps it afterwards."""
    if proc.returncode is not None:
        return proc.returncode
    flags = os.WEXITED | os.WNOWAIT | (0 if block else os.WNOHANG)
    try:
        info = os.waitid(os.P_PID, proc.pid, flags)
    except ChildProcessError:  # reaped already (by Popen.poll)
        return proc.poll()
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def start_time(pid: int) -> int | None:
    """The start time of `pid` in clock ticks since boot (/proc/PID/stat field 22): with the pid,
    it names one process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return int(fh.read().rpartition(")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def boot_id() -> str:
    """This host's boot id: a process on another host (or after a reboot) never matches it."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return ""
