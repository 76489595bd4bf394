"""Facts of this host: memory, usable CPUs, the free space and type of a directory's file system,
the operating system."""
from __future__ import annotations

import os
import platform
import re
import socket
from typing import Any

from pario.model.filesystems import fs_name
from pario.platform.fsinfo import statfs_magic


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
    """File system type name (ext4, xfs, lustre, tmpfs...) from its statfs magic, named as `pario
    stack` and the profiler name it (GNU stat's %T says "ext2/ext3" for ext4); None if unknown."""
    if not os.path.exists(directory):
        return None
    magic = statfs_magic(directory)
    return fs_name(magic) if magic is not None else None


def disk_free(directory: str) -> int:
    try:
        st = os.statvfs(directory)
        return st.f_bavail * st.f_frsize
    except OSError:
        return 0


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
