"""A real striped parallel file system for the tests: CephFS on 127.0.0.1 (scripts/local-pfs.sh).

`local_pfs(base)` starts one in a new directory under `base` and returns where it is mounted;
`stop(pfs)` ends it and checks that nothing is left (process, mount, cgroup). Tests skip, with the
script's own line, where this machine cannot run it: Ceph not installed (exit code 3), not root or
no /dev/fuse (exit code 4). The session-wide file system is the `pfs` fixture of conftest.py."""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "local-pfs.sh"
NOT_INSTALLED, CANNOT = 3, 4
CGROOT = Path("/sys/fs/cgroup/blkio")
TAG = "PARIO_LOCAL_PFS"
# The per-server cap of the session's file system: low enough that the servers, not the one FUSE
# client on 2 shared cores, bound a one-server write (100 MiB/s; 4 servers: 400).
CAP = "100m"
CAP_BYTES = 100 << 20


@dataclass
class Pfs:
    dir: Path
    mount: Path
    conf: Path
    servers: int
    cap: int | None          # bytes/s per server, None when uncapped


def script(action, *args, env=None, timeout=180):
    return subprocess.run(["bash", str(SCRIPT), action, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def skip(reason: str) -> None:
    """Skip, or fail where the CephFS tests must run (.ci/run sets PARIO_REQUIRE_PFS=1)."""
    if os.environ.get("PARIO_REQUIRE_PFS") == "1":
        pytest.fail(f"PARIO_REQUIRE_PFS=1 but the CephFS tests cannot run here: {reason}")
    pytest.skip(reason)


def can_cap() -> str | None:
    """Why per-server caps cannot be set here, or None."""
    if not os.access(CGROOT, os.W_OK) or not (CGROOT / "blkio.throttle.write_bps_device").exists():
        return f"no writable cgroup v1 blkio controller at {CGROOT}"
    return None


def local_pfs(base, servers=4, cap=None, env=None) -> Pfs:
    """Start a CephFS in a new directory under `base` (under /tmp when that path is too long for
    Ceph's admin sockets); skip when this machine cannot run one."""
    base = Path(base)
    if len(str(base)) + len("/pfs-xxxxxxxx") > 56:
        base = Path(tempfile.gettempdir())
    directory = Path(tempfile.mkdtemp(prefix="pfs-", dir=base))
    out = script("start", "--dir", directory, "--servers", servers, *(["--cap", cap] if cap else []), env=env)
    if out.returncode in (NOT_INSTALLED, CANNOT):
        skip(" ".join(out.stderr.split("\n")).strip())
    assert out.returncode == 0, f"local-pfs.sh start failed:\n{out.stdout}{out.stderr}"
    mount = Path(out.stdout.strip().splitlines()[-1])
    assert mount == directory / "mnt" and os.path.ismount(mount), out.stdout
    cap_bytes = None
    if cap:
        from pario.model.units import parse_size
        cap_bytes = parse_size(cap, "cap")
    return Pfs(directory, mount, directory / "ceph.conf", servers, cap_bytes)


def leftovers(directory) -> list[str]:
    """What a stopped file system left: processes of its directory, its mount, its cgroup."""
    directory = os.path.realpath(directory)
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                tagged = f"{TAG}={directory}".encode() in fh.read().split(b"\0")
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                state = fh.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if tagged and state not in ("Z", "X"):
            out.append(f"process {pid}")
    with open("/proc/self/mounts", encoding="utf-8") as fh:
        out += [f"mount {line.split()[1]}" for line in fh if line.split()[1].startswith(directory + "/")]
    if CGROOT.is_dir():
        import hashlib
        cg = CGROOT / f"pario-pfs.{hashlib.md5((directory + chr(10)).encode()).hexdigest()[:12]}"
        if cg.exists():
            out.append(f"cgroup {cg}")
    return out


def stop(pfs: Pfs) -> None:
    out = script("stop", "--dir", pfs.dir)
    assert out.returncode == 0, f"local-pfs.sh stop failed:\n{out.stdout}{out.stderr}"
    assert leftovers(pfs.dir) == []
