"""What a killed run of scripts/local-pfs.sh or local-cluster.sh left in another directory (its
processes, once its directory has lost the script's mark; local-pfs's port claims in /tmp) is
cleaned, and said, by the next start or stop of the same script; a live instance (its directory
still marked) and another script's processes are left alone. The scripts run in a sandbox of
their own (new PID, mount and network namespaces, a private /tmp and blkio cgroup directory), so
that the test sees, and could touch, nothing of the machine's other runs. A ceph-fuse mount left
by a killed run is unmounted by the same code (reclaim in local-pfs.sh): that needs a real CephFS
and is checked by hand (see the commit that added this test)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The sandbox: the old /tmp is staged on /mnt (private to this namespace), a tmpfs covers /tmp and
# the blkio cgroups, and the scripts' tree is bound back when it lives under /tmp (a CI clone).
SANDBOX = r"""
set -eu
root=$1
mount --bind /tmp /mnt
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -d /sys/fs/cgroup/blkio ]; then mount -t tmpfs tmpfs /sys/fs/cgroup/blkio; fi
case $root/ in /tmp/*) mkdir -p "$root"; mount --bind "/mnt/${root#/tmp/}" "$root" ;; esac
umount -l /mnt
ip link set lo up 2>/dev/null || true
cd /tmp
eval "$2"
"""


def _sandbox(script: str) -> subprocess.CompletedProcess:
    if os.geteuid() != 0 or not shutil.which("unshare") or not os.path.isdir("/mnt"):
        pytest.skip("needs root, unshare and /mnt (a private PID, mount and network namespace)")
    probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "--mount", "--propagation", "private",
                            "--net", "true"], capture_output=True, text=True)
    if probe.returncode:
        pytest.skip(f"no new PID, mount and network namespaces here: {probe.stderr.strip()}")
    return subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "--mount", "--propagation", "private",
                           "--net", "bash", "-c", SANDBOX, "sandbox", str(ROOT), script],
                          capture_output=True, text=True, timeout=120)


def _claim(directory: str) -> str:
    return "/tmp/.pario-pfs-port." + hashlib.md5((directory + "\n").encode()).hexdigest()[:12]


# Three processes as runs leave them: of a killed run in /tmp/gone (its mark gone), of a live run
# in /tmp/live (marked), and of the other script's run in /tmp/gone; then STOP runs, and each
# process is said to be alive or ended.
RUNS = """
mkdir -p /tmp/gone /tmp/live && touch /tmp/live/{mark}
env {tag}=/tmp/gone sleep 300 & gone=$!
env {tag}=/tmp/live sleep 300 & live=$!
env {other}=/tmp/gone sleep 300 & other=$!
{before}
sleep 0.2
{stop}; echo "rc=$?"
for p in $gone $live $other; do s=$(awk '{{print $3}}' /proc/$p/stat 2>/dev/null || true)
    if [ -n "$s" ] && [ "$s" != Z ]; then echo "alive $p"; else echo "ended $p"; fi; done
echo "gone=$gone live=$live other=$other"
{after}
"""


def _runs(tag: str, other: str, mark: str, stop: str, before: str = "", after: str = "") -> str:
    """(the sandbox's output): RUNS; the killed run's process must be ended, the others kept."""
    out = _sandbox(RUNS.format(tag=tag, other=other, mark=mark, stop=stop, before=before, after=after))
    text = out.stdout
    assert "rc=0" in text, text + out.stderr
    pids = dict(kv.split("=") for kv in next(line for line in text.splitlines() if line.startswith("gone=")).split())
    assert f"ended {pids['gone']}" in text and f"alive {pids['live']}" in text and f"alive {pids['other']}" in text
    assert "ending processes left by an earlier run in /tmp/gone (its directory is gone or no longer" in text
    assert f"pid {pids['gone']}" in text, text
    return text


def test_local_pfs_stop_ends_a_killed_runs_processes_and_claims_and_keeps_a_live_ones():
    claims = (f"printf '13300\\n/tmp/gone\\n' > {_claim('/tmp/gone')}\n"
              f"echo 13400 > {_claim('/tmp/live')}\necho 13500 > {_claim('/tmp/never')}")
    text = _runs("PARIO_LOCAL_PFS", "PARIO_LOCAL_CLUSTER", ".pario-local-pfs",
                 f"bash {ROOT}/scripts/local-pfs.sh stop --dir /tmp/mine", claims, "ls -a /tmp | grep pario-pfs-port")
    assert f"removed the claim on ports from 13300 ({_claim('/tmp/gone')}, /tmp/gone)" in text
    assert f"removed the claim on ports from 13500 ({_claim('/tmp/never')})" in text
    left = [line for line in text.splitlines() if line.startswith(".pario-pfs-port.") and "lock" not in line]
    assert left == [os.path.basename(_claim("/tmp/live"))], text


def test_local_cluster_stop_ends_a_killed_runs_processes_and_keeps_a_live_ones():
    text = _runs("PARIO_LOCAL_CLUSTER", "PARIO_LOCAL_PFS", ".pario-local-cluster",
                 f"bash {ROOT}/scripts/local-cluster.sh stop /tmp/mine")
    assert "not running (/tmp/mine)" in text
