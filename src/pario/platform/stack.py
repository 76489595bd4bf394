"""What the I/O stack under a path really is: file system and layout, host and allocation, the MPI
and its MPI-IO implementation, the hints in effect for a new file there, the I/O libraries and the
engine's backends. `collect` returns one dict (the `--json` of `pario stack`, and `env.stack` of
every bench run); the slow parts (the MPI probe, ompi_info, library versions) are cached."""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import time
from functools import lru_cache
from typing import Any, Callable, Optional

from pario.model.errors import ParioError
from pario.platform import cephfs, fsinfo, host, slurm
from pario.platform.mpi import detect, find_mpirun
from pario.settings import effective

CACHE_TTL_S = 3600.0
ENV_KEYS = ("OMPI_MCA_", "ROMIO_", "MPICH_MPIIO_", "PARIO_MPIRUN", "PARIO_ENGINE", "PATH")


def lustre_facts(path: str) -> dict[str, Any]:
    if not _which("lfs"):
        return {"available": False, "reason": "lfs not found on PATH (no Lustre client tools here)"}
    out: dict[str, Any] = {"available": True}
    text = fsinfo.run_tool(["lfs", "getstripe", "-d", path])
    entries = fsinfo.parse_getstripe(text) if text else []
    if entries:
        out["dir_layout"] = {k: v for k, v in entries[0].items() if k != "path"}
    df = fsinfo.run_tool(["lfs", "df", path])
    if df:
        out.update(fsinfo.parse_lfs_df(df))
    return out


def gpfs_facts(device: str) -> dict[str, Any]:
    tool = _which("mmlsfs") or ("/usr/lpp/mmfs/bin/mmlsfs" if os.access("/usr/lpp/mmfs/bin/mmlsfs", os.X_OK)
                                else None)
    if not tool:
        return {"available": False, "reason": "mmlsfs not found (module load gpfs, or /usr/lpp/mmfs/bin)"}
    text = fsinfo.run_tool([tool, os.path.basename(device)])
    if not text:
        return {"available": False, "reason": f"{tool} {device} failed (it may need admin rights)"}
    parsed = fsinfo.parse_mmlsfs(text)
    return {"available": True, "block_size": parsed.get("block_size"), "min_fragment": parsed.get("min_fragment")}


def slurm_facts(environ=None) -> dict[str, Any] | None:
    """The Slurm allocation this runs in (None outside one): job, cluster, partition, nodes, tasks."""
    alloc = slurm.allocation(environ)
    return alloc.to_dict() if alloc else None


def srun_plugin(mpi: dict[str, Any]) -> dict[str, Any]:
    """srun's MPI plugins and the one pario launches this MPI with (srun --mpi=list)."""
    try:
        available = slurm.mpi_plugins()
        info = fsinfo.run_tool(["ompi_info", "--parsable"]) if mpi.get("flavour") == "openmpi" else None
        pick = slurm.choose_plugin(mpi.get("flavour") or "unknown", mpi.get("version") or "", available, info)
    except ParioError as exc:
        return {"mpi_plugin_error": str(exc)}
    return {"mpi_plugins": list(available), "mpi_plugin": pick.plugin or os.environ.get("SLURM_MPI_TYPE"),
            "mpi_plugin_source": "chosen for this MPI" if pick.plugin else pick.source}


def libraries() -> dict[str, str | None]:
    """Versions of the I/O libraries found on this machine (None: not found)."""
    def first(*argvs):
        for argv in argvs:
            if _which(argv[0]) or os.path.isabs(argv[0]):
                text = fsinfo.run_tool(argv)
                if text and text.strip():
                    return text.strip().splitlines()[0]
        return None
    h5 = first(["pkg-config", "--modversion", "hdf5"])
    if h5 is None:
        cfg = first(["h5pcc", "-showconfig"]) and fsinfo.run_tool(["h5pcc", "-showconfig"])
        m = re.search(r"HDF5 Version:\s*(\S+)", cfg or "")
        h5 = m.group(1) if m else None
    pnc = first(["pnetcdf-config", "--version"], ["pkg-config", "--modversion", "pnetcdf"])
    nc = first(["nc-config", "--version"], ["pkg-config", "--modversion", "netcdf-mpi"],
               ["pkg-config", "--modversion", "netcdf"])
    adios = [a for a in [_which("adios2-config")] + sorted(glob.glob(os.path.expanduser(
        "~/.cache/pario/adios2-*/bin/adios2-config"))) if a]
    ad = first([adios[0], "--version"]) if adios else None
    clean = lambda v: re.sub(r"^(PnetCDF|netCDF|ADIOS2?)\s+", "", v, flags=re.I) if v else None  # noqa: E731
    return {"hdf5": h5, "pnetcdf": clean(pnc), "netcdf": clean(nc), "adios2": clean(ad)}


@lru_cache(maxsize=8)
def _ompi_info(argv: tuple[str, ...], where: str | None) -> str:
    """ompi_info's answer, once per process and installation (it takes about half a second)."""
    return fsinfo.run_tool(list(argv)) or ""


def openmpi_io(io: str | None) -> dict[str, Any]:
    """Open MPI's io components, the one in effect, and OMPIO's MCA parameter values."""
    where = shutil.which("ompi_info")
    text = _ompi_info(("ompi_info", "--parsable"), where)
    comps = sorted(set(re.findall(r"^mca:io:(\w+):version:", text, re.M)))
    chosen = io or os.environ.get("OMPI_MCA_io")
    params: dict[str, str] = {}
    detail = _ompi_info(("ompi_info", "--param", "io", "ompio", "--level", "9", "--parsable"), where)
    for name, value in re.findall(r"^mca:io:ompio:param:(\w+):value:(.*)$", detail, re.M):
        params[name] = value.strip('"')
    return {"io_components": comps, "io_component": chosen or ("ompio" if "ompio" in comps else None),
            "io_selected_by": "--io" if io else ("OMPI_MCA_io" if chosen else "default (highest priority)"),
            "ompio_params": params}


def mpi_facts(mpirun: str | None, io: str | None) -> dict[str, Any]:
    try:
        mpi = detect(find_mpirun(mpirun))
    except ParioError as exc:
        return {"available": False, "reason": str(exc)}
    out: dict[str, Any] = {"available": True, "launcher": mpi.path, "flavour": mpi.flavour, "version": mpi.version}
    if mpi.flavour == "openmpi":
        out.update(openmpi_io(io))
        out["mpiio"] = "romio" if (out["io_component"] or "").startswith("romio") or \
            (out["io_component"] or "").startswith("^ompio") else "ompio"
    else:
        out["mpiio"] = "romio"
    return out


# The MPI probe (run.probe.probes): runs the engine, so the caller above the run layer passes it in.
# Called as probe(engine, mpirun, path, io, mpi facts) -> one dict per probe run.
Probe = Callable[[str, Optional[str], str, Optional[str], dict[str, Any]], list[dict[str, Any]]]


def collect(path: str, *, probe: Probe | None = None, engine: str | None = None, mpirun: str | None = None,
            io: str | None = None, refresh: bool = False) -> dict[str, Any]:
    """The facts of `pario stack`; with `probe`, also the hints in effect for a new file there."""
    probe_mpi = probe is not None
    fs = fsinfo.describe(path)
    doc: dict[str, Any] = {"path": os.path.abspath(path), "fs": fs, "host": host.host_facts(), "slurm": slurm_facts()}
    if fs.get("type") == "lustre":
        doc["lustre"] = lustre_facts(fs["path"])
    elif fs.get("type") == "gpfs":
        doc["gpfs"] = gpfs_facts(fs.get("source", ""))
    elif cephfs.is_cephfs(fs):
        doc["cephfs"] = cephfs.facts(fs, doc["path"] if os.path.isdir(doc["path"]) else fs["path"])
    key = _cache_key(path, engine, mpirun, io, probe_mpi, fs)
    slow = None if refresh else _cache_get(key)
    if slow is None:
        slow = {"mpi": mpi_facts(mpirun, io), "libraries": libraries(), "backends": _backends(engine)}
        if probe is not None and engine and slow["mpi"].get("available"):
            slow["probes"] = probe(engine, mpirun, fs["path"], io, slow["mpi"])
        _cache_put(key, slow)
    doc.update(slow)
    mpi = doc["mpi"]
    if doc["slurm"] is not None and mpi.get("available") and _which("srun"):
        doc["slurm"].update(srun_plugin(mpi))
    if mpi.get("mpiio") == "ompio":
        mpi["ompio_fs"] = {"lustre": "lustre", "gpfs": "gpfs"}.get(fs.get("type") or "", "ufs")
    for p in doc.get("probes") or []:
        if p.get("ok") and p.get("library"):
            mpi.setdefault("library", p["library"])
            if "cray mpich" in p["library"].lower():
                mpi["mpiio"] = "cray"
        if p.get("romio_driver"):
            mpi.setdefault("romio_driver", p["romio_driver"])
        if p.get("ok") and p.get("means") == effective.OMPIO_VERBOSE and not p.get("hints"):
            # OMPIO prints nothing without hints: what it uses are its MCA values.
            params = mpi.get("ompio_params") or {}
            p["hints"] = {h: params[m] for h, m in _OMPIO_INFO.items() if m in params}
            p["means"] = "ompi_info (OMPIO's MCA values; OMPIO reports no hints by itself)"
    return doc


_OMPIO_INFO = {"cb_buffer_size": "io_ompio_bytes_per_agg", "cb_nodes": "io_ompio_num_aggregators",
               "io_ompio_cycle_buffer_size": "io_ompio_cycle_buffer_size",
               "io_ompio_grouping_option": "io_ompio_grouping_option",
               "io_ompio_max_aggregators_ratio": "io_ompio_max_aggregators_ratio"}


def _backends(engine: str | None) -> list[dict[str, Any]] | None:
    if not engine:
        return None
    text = fsinfo.run_tool([engine, "--list"], timeout=30)
    try:
        return json.loads(text)["backends"] if text else None
    except (ValueError, KeyError):
        return None


def _which(name: str) -> str | None:
    import shutil
    return shutil.which(name)


def _cache_dir() -> str:
    try:
        from platformdirs import user_cache_dir
        return user_cache_dir("pario")
    except ImportError:
        return os.path.expanduser("~/.cache/pario")


def _cache_key(path, engine, mpirun, io, probe_mpi, fs) -> str:
    mtime = os.stat(engine).st_mtime if engine and os.path.exists(engine) else None
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_KEYS))
    raw = json.dumps([engine, mtime, mpirun, io, probe_mpi, fs.get("mount_point"), fs.get("path"), env])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _cache_get(key: str) -> dict[str, Any] | None:
    try:
        with open(os.path.join(_cache_dir(), f"stack-{key}.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        return doc["facts"] if time.time() - doc["time"] < CACHE_TTL_S else None
    except (OSError, ValueError, KeyError):
        return None


def _cache_put(key: str, facts: dict[str, Any]) -> None:
    try:
        os.makedirs(_cache_dir(), exist_ok=True)
        tmp = os.path.join(_cache_dir(), f".stack-{key}.{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"time": time.time(), "facts": facts}, fh)
        os.replace(tmp, os.path.join(_cache_dir(), f"stack-{key}.json"))
    except OSError:
        pass  # a cache that cannot be written only costs time
