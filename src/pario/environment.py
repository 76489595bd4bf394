"""The environment stored with each run: enough to say where and how a figure was measured,
including the stack facts of `pario stack` (file system, layout, MPI-IO, libraries) under `stack`."""
from __future__ import annotations

import os
import platform
import socket
import subprocess
from typing import Any

from . import __version__


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
    """File system type name (e.g. ext2/ext3, xfs, lustre, tmpfs) via GNU stat; None if unknown."""
    try:
        out = subprocess.run(["stat", "-f", "-c", "%T", directory], capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def disk_free(directory: str) -> int:
    try:
        st = os.statvfs(directory)
        return st.f_bavail * st.f_frsize
    except OSError:
        return 0


def collect(*, directory: str, mpi=None, io: str | None = None, launcher_argv: list[str] | None = None,
            ceiling: dict[str, Any] | None = None, dropped_caches: bool = False,
            ranks: int | None = None, engine: str | None = None) -> dict[str, Any]:
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "cpus": cpus(),
        **meminfo(),
        "dir": directory,
        "disk_free": disk_free(directory),
        "fs_type": fs_type(directory),
        "mpi_flavour": getattr(mpi, "flavour", None),
        "mpi_version": getattr(mpi, "version", None),
        "io_component": io or ("default" if getattr(mpi, "flavour", None) == "openmpi" else None),
        "launcher_argv": list(launcher_argv or []),
        "ranks": ranks,
        "ceiling": ceiling or {},
        "dropped_caches": dropped_caches,
        "pario_version": __version__,
        "python_version": platform.python_version(),
        "slurm_job": os.environ.get("SLURM_JOB_ID"),
    }
    # The stack facts of `pario stack` without its MPI probe (the run itself measures the hints);
    # the slow parts are cached by pario.stack.
    from . import stack
    try:
        env["stack"] = stack.collect(directory, probe_mpi=False, engine=engine, mpirun=getattr(mpi, "path", None),
                                     io=io)
        env["fs_name"] = (env["stack"].get("fs") or {}).get("type")
    except Exception as exc:  # noqa: BLE001 - a fact we cannot gather must not cost the run
        env["stack"] = {"error": f"stack facts not collected: {exc}"}
    return env
