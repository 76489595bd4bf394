"""The device ceiling of a directory: an O_DIRECT write and read probe by the engine, cached per
(device, real path) because it costs seconds and rarely changes. A rate above it is page cache."""
from __future__ import annotations

import datetime
import json
import os
import subprocess
from typing import Any


def _cache_path() -> str:
    import platformdirs
    return os.path.join(platformdirs.user_cache_dir("pario"), "ceilings.json")


def _cache_key(directory: str) -> str:
    return f"{os.stat(directory).st_dev}:{os.path.realpath(directory)}"


def _load_cache(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def device_ceiling(engine: str | None, directory: str, skip: bool = False,
                   timeout: float = 120.0) -> dict[str, Any]:
    """{'write_mib', 'read_mib', 'bytes', 'source'} or {'source': why there is none}.
    The probe's figure is cached per (device, real path): it costs seconds and rarely changes."""
    if skip:
        return {"source": "skipped (--no-probe)"}
    cache = _cache_path()
    try:
        key = _cache_key(directory)
    except OSError:
        return {"source": "none: directory not found"}
    known = _load_cache(cache).get(key)
    if known:
        return {**known, "source": "cached probe"}
    if not engine:
        return {"source": "none: engine not built"}
    try:
        proc = subprocess.run([engine, "--probe", directory], capture_output=True, text=True, timeout=timeout)
        line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        fig = json.loads(line) if proc.returncode == 0 and line else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        fig = None
    if not isinstance(fig, dict) or "write_mib" not in fig:
        return {"source": "none: the engine's O_DIRECT probe failed (file system without O_DIRECT?)"}
    entry = {k: fig.get(k) for k in ("write_mib", "read_mib", "bytes")}
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
