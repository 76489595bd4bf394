"""The environment stored with each run: enough to say where and how a figure was measured,
including the stack facts of `pario stack` (file system, layout, MPI-IO, libraries) under `stack`."""
from __future__ import annotations

import os
import platform
import socket
from typing import Any

from pario import __version__
from pario.platform import host, stack


def collect(*, directory: str, mpi=None, io: str | None = None, launcher_argv: list[str] | None = None,
            ceiling: dict[str, Any] | None = None, dropped_caches: bool = False,
            ranks: int | None = None, engine: str | None = None) -> dict[str, Any]:
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "cpus": host.cpus(),
        **host.meminfo(),
        "dir": directory,
        "disk_free": host.disk_free(directory),
        "fs_type": host.fs_type(directory),
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
    # the slow parts are cached by pario.platform.stack.
    try:
        env["stack"] = stack.collect(directory, engine=engine, mpirun=getattr(mpi, "path", None),
                                     io=io)
        env["fs_name"] = (env["stack"].get("fs") or {}).get("type")
    except Exception as exc:  # noqa: BLE001 - a fact we cannot gather must not cost the run
        env["stack"] = {"error": f"stack facts not collected: {exc}"}
    return env
