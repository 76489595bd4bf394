"""Facts of this host: memory, usable CPUs, the free space and type of a directory's file system,
the operating system."""
from __future__ import annotations

import os
import platform
import re
import socket
from typing import Any

from pario.platform import fsinfo


def meminfo(path: str = "/proc/meminfo") -> dict[str, int]:
    """{'mem_total': bytes, 'mem_available': bytes}; zeros where unknown."""
    out = {"mem_total": 0, "mem_available": 0}
    keys = {"MemTotal:": "mem_total", "MemAvailable:": "mem_available"}
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                parts = line.split()
                if parts and parts[0] in keys:
                    out[keys[parts[0]]] = int(parts[1]) * 1024
    except (OSError, ValueError):
        pass
    return out


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def fs_type(directory: str) -> str | None:
    """File system type name as mounted (e.g. ext4, xfs, lustre, tmpfs), of the nearest existing
    parent; None if unknown. The mount table first: GNU `stat -f` names by superblock magic, which
    ext2, ext3 and ext4 share ("ext2/ext3"); the magic only where the mount table cannot be read."""
    probe = os.path.abspath(directory)
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    mounted = fsinfo.mount_of(probe).get("fstype")
    if mounted in ("fuse.ceph-fuse", "ceph"):  # CephFS through its FUSE or its kernel client
        return "cephfs"
    if mounted:
        return mounted
    # no mount table: the statfs magic, named as `pario stack` names it (ext4 for ext2/3/4)
    magic = fsinfo.statfs_magic(probe)
    return fsinfo.fs_name(magic) if magic is not None else None


def disk_free(directory: str) -> int:
    try:
        st = os.statvfs(directory)
        return st.f_bavail * st.f_frsize
    except OSError:
        return 0


def disk_room(directory: str) -> tuple[int, int | None] | None:
    """(bytes this user may still write, free inodes or None where the file system has no inode
    limit) of directory's file system; None when it cannot be asked. Root may use the blocks a
    file system reserves for it, so root's room is the free blocks, a user's the available ones."""
    try:
        st = os.statvfs(directory)
    except OSError:
        return None
    if st.f_blocks == 0:  # no size reported at all (CephFS without a manager daemon, some FUSE file systems)
        return None
    blocks = st.f_bfree if os.geteuid() == 0 else st.f_bavail
    return blocks * st.f_frsize, (st.f_favail if st.f_files else None)


def host_facts() -> dict[str, Any]:
    mem = meminfo()
    return {"hostname": socket.gethostname(), "cpus_usable": cpus(), "cpus": os.cpu_count(),
            "mem_total": mem["mem_total"], "mem_available": mem["mem_available"],
            "kernel": platform.release(), "os": os_name()}


def os_name() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as fh:
            m = re.search(r'^PRETTY_NAME="?([^"\n]*)', fh.read(), re.M)
            return m.group(1) if m else platform.system()
    except OSError:
        return platform.system()


def nearest_existing(path: str) -> str:
    """path, or its nearest parent that exists (where its files would go)."""
    path = os.path.abspath(path)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path
