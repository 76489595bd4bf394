"""The scratch directory of a run: where it is, a prefix unique to the run, removal of only the
files this run made, and the device ceiling (an O_DIRECT probe by the engine, cached per directory)."""
from __future__ import annotations

import datetime
import glob
import json
import os
import re
import secrets
import shutil
import subprocess
from typing import Any

from .errors import ParioError

DEFAULT_NAME = "pario-scratch"


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


class Scratch:
    """DIR (from --dir, $PARIO_SCRATCH, else ./pario-scratch), and DIR/pario.<run_id>.* for this run."""

    def __init__(self, directory: str | None = None, run_id: str | None = None):
        chosen = directory or os.environ.get("PARIO_SCRATCH") or os.path.join(os.getcwd(), DEFAULT_NAME)
        self.dir = os.path.abspath(os.path.expanduser(chosen))
        self.run_id = run_id or new_run_id()
        self.prefix = f"pario.{self.run_id}"
        self.created = False

    def prepare(self) -> None:
        """Create the directory if missing (remembering that we did) and prove it is writable."""
        if os.path.exists(self.dir) and not os.path.isdir(self.dir):
            raise ParioError(f"scratch {self.dir} exists and is not a directory; give another with --dir")
        if not os.path.isdir(self.dir):
            try:
                os.makedirs(self.dir)
                self.created = True
            except OSError as exc:
                raise ParioError(f"cannot create scratch directory {self.dir}: {exc.strerror}; "
                                 "give a writable one with --dir or $PARIO_SCRATCH") from None
        probe = os.path.join(self.dir, f"{self.prefix}.writable")
        try:
            fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            self.remove_dir_if_ours()
            raise ParioError(f"scratch directory {self.dir} is not writable ({exc.strerror}); "
                             "give a writable one with --dir or $PARIO_SCRATCH") from None

    def leftovers(self):
        return sorted(glob.glob(os.path.join(glob.escape(self.dir), glob.escape(self.prefix) + ".*")))

    def cleanup(self) -> int:
        """Remove DIR/pario.<run_id>.* regular files, and the run's own directories: ADIOS2 BP5
        outputs DIR/PREFIX.CASE.FILE/ and metadata trees DIR/PREFIX.CASE.md/ (without following
        symlinks); then DIR itself if we made it and it is now empty. Returns the number of
        entries removed. Never touches anything else."""
        removed = 0
        own_dir = re.compile(re.escape(self.prefix) + r"\.\d+\.(\d+|md)")
        for path in self.leftovers():
            try:
                if os.path.islink(path):
                    continue  # pario makes no symlinks: not ours
                if os.path.isfile(path):
                    os.unlink(path)
                    removed += 1
                elif os.path.isdir(path) and own_dir.fullmatch(os.path.basename(path)):
                    shutil.rmtree(path)  # unlinks symlinks inside, never descends through them
                    removed += 1
            except OSError:
                pass  # best effort: an entry that cannot be removed is reported by leftovers()
        self.remove_dir_if_ours()
        return removed

    def remove_dir_if_ours(self) -> None:
        if self.created:
            try:
                os.rmdir(self.dir)  # only succeeds when empty: user files are never touched
                self.created = False
            except OSError:
                pass

    def free_bytes(self) -> int:
        try:
            st = os.statvfs(self.dir)
            return st.f_bavail * st.f_frsize
        except OSError:
            return 0


# ---- device ceiling -------------------------------------------------------------------------

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
