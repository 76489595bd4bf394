"""The device ceiling of a directory: an O_DIRECT write and read probe by the engine, cached per
(device, real path) for a day because it costs seconds and changes slowly. A rate above it is page
cache."""
from __future__ import annotations

import datetime
import json
import os
import subprocess
from collections.abc import Mapping
from typing import Any


def _cache_path() -> str:
    import platformdirs
    return os.path.join(platformdirs.user_cache_dir("pario"), "ceilings.json")


def _cache_key(directory: str, streams: int) -> str:
    return f"{os.stat(directory).st_dev}:{os.path.realpath(directory)}:{streams}"


def _load_cache(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def streams_per_host(ranks: int, environ: Mapping[str, str] | None = None) -> int:
    """The ranks a run will have on one host, before it starts: all of them outside Slurm, the
    allocation's share per node inside it."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    try:
        nodes = int(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or 1)
    except ValueError:
        nodes = 1
    return max(1, -(-ranks // max(nodes, 1)))


MAX_AGE = datetime.timedelta(days=1)   # a shared file system's ceiling moves with its load and its servers


def _fresh(entry: dict[str, Any]) -> bool:
    """A cached probe younger than MAX_AGE (an entry with no date or a date in the future is not)."""
    try:
        when = datetime.datetime.fromisoformat(str(entry["measured"]))
    except (KeyError, ValueError):
        return False
    age = datetime.datetime.now(datetime.timezone.utc) - when
    return datetime.timedelta(0) <= age <= MAX_AGE if when.tzinfo else False


MAX_STREAMS = 16  # above it the probe would cost more than it tells (64 MiB per stream at most)


def device_ceiling(engine: str | None, directory: str, skip: bool = False, streams: int = 1,
                   timeout: float = 120.0) -> dict[str, Any]:
    """{'write_mib', 'read_mib', 'bytes', 'streams', 'source'} or {'source': why there is none}.
    `streams`: the run's ranks on one host, each an O_DIRECT stream of its own file at the same
    time (at most MAX_STREAMS): one stream is not the ceiling of a device that serves several.
    Cached per (device, real path, streams) for a day (MAX_AGE): it costs seconds and changes slowly."""
    if skip:
        return {"source": "skipped (--no-probe)"}
    from pario.platform import fsinfo
    if fsinfo.describe(directory).get("type") == "cephfs":
        return {"source": "none: on CephFS a file's rate is its objects' servers', which its layout and their "
                          "placement decide (each phase records the servers' own bytes instead)"}
    streams = max(1, min(int(streams), MAX_STREAMS))
    cache = _cache_path()
    try:
        key = _cache_key(directory, streams)
    except OSError:
        return {"source": "none: directory not found"}
    known = _load_cache(cache).get(key)
    if isinstance(known, dict) and _fresh(known):
        return {**known, "source": "cached probe"}
    if not engine:
        return {"source": "none: engine not built"}
    try:
        proc = subprocess.run([engine, "--probe", directory, "--streams", str(streams), "--mib", str(64 * streams)],
                              capture_output=True, text=True, timeout=timeout)
        line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        fig = json.loads(line) if proc.returncode == 0 and line else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        fig = None
    if not isinstance(fig, dict) or "write_mib" not in fig:
        return {"source": "none: the engine's O_DIRECT probe failed (file system without O_DIRECT?)"}
    entry = {k: fig.get(k) for k in ("write_mib", "read_mib", "bytes")}
    entry["streams"] = int(fig.get("streams") or 1)
    entry["measured"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    data = _load_cache(cache)
    data[key] = entry
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, cache)
    except OSError:
        pass  # a cache we cannot write only costs a probe next time
    return {**entry, "source": "probe"}
