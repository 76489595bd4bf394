"""The system a job ran on, and the calibration that belongs to it.

A calibration is a file (schemas/calibration.schema.json): the system it belongs to (its name: the
Slurm cluster, else the host; the hosts it ran on; the mount and file system it measured; the
MPI), when and where it was measured, and what: the per-call model's cases and every pattern a
finding needed, each kept once measured, so that the same log gets the same findings on the next
run ("kept per system, not re-drawn each time"). `pario advise --calibrate` (run on the system)
writes it, by default beside the results store (systems/NAME.json); `--system FILE` gives it to
advice made anywhere.

Advice of a log takes the calibration of the log's system: the one given with --system, else a
stored calibration whose system the log names (its hosts, its Slurm cluster), else this machine's
when the log was made here. A log from a system without one is costed by the system model when
there is one (pario predict: --system FILE.toml or $PARIO_SYSTEM, advise/predicted.py), else
printed uncosted with the reason. Measurements of this machine never cost or veto a fix for another
system."""
from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pario.advise.costs import Measured
from pario.advise.job import Job
from pario.model.errors import ParioError
from pario.platform import documents, fsinfo

SCHEMA = "pario.calibration/1"
LIMIT = 64 << 20


def here_identity(directory: str | None = None, mpi: Any = None) -> dict[str, Any]:
    """This machine as a system: the Slurm cluster it is part of (when inside an allocation), its
    host name, the mount and file system of `directory`, the MPI measurements run with."""
    host = socket.gethostname()
    out: dict[str, Any] = {"name": os.environ.get("SLURM_CLUSTER_NAME") or host, "hosts": [host],
                           "cluster": os.environ.get("SLURM_CLUSTER_NAME")}
    if directory:
        desc = fsinfo.describe(directory)
        out["mount"] = desc.get("mount_point") or desc.get("path")
        out["fs"] = desc.get("type")
    if mpi is not None:
        out["mpi"] = f"{getattr(mpi, 'flavour', '?')} {getattr(mpi, 'version', '')}".strip()
    return out


_HOME: list[str] = []


def keep_beside(store_path: str) -> None:
    """Calibrations are kept in a `systems` directory beside the results store (--db, $PARIO_DB,
    else the user data directory): one place for what pario measured."""
    _HOME[:] = [os.path.join(os.path.dirname(os.path.abspath(store_path)), "systems")]


def directory() -> Path:
    import platformdirs
    return Path(os.environ.get("PARIO_SYSTEMS") or (_HOME[0] if _HOME else
                                                     Path(platformdirs.user_data_dir("pario")) / "systems"))


def default_path(name: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:100] or "system"
    return directory() / f"{safe}.json"


@dataclass
class Calibration:
    """One system's calibration: the model's measured cases and each pattern measured for advice."""
    system: dict[str, Any]
    path: Path | None = None
    created: str = ""
    where: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Measured] = field(default_factory=dict)
    measured: dict[str, dict[str, Measured]] = field(default_factory=dict)
    stack: dict[str, Any] | None = None
    dirty: bool = False

    @property
    def name(self) -> str:
        return str(self.system.get("name") or "?")

    def to_dict(self) -> dict[str, Any]:
        def ms(d: dict[str, Measured]) -> dict[str, Any]:
            return {k: vars(m) for k, m in d.items()}
        return {"schema": SCHEMA, "system": self.system, "created": self.created, "where": self.where,
                "model": ms(self.model), "measured": {k: ms(v) for k, v in self.measured.items()},
                "stack": self.stack}

    def save(self) -> str | None:
        """Write the file (atomically); None, or why it could not be written."""
        if self.path is None:
            return "no file to keep it in"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")
            os.replace(tmp, self.path)
        except OSError as exc:
            return f"{self.path}: {exc.strerror}"
        self.dirty = False
        return None

    def describe(self) -> str:
        when = self.created[:16].replace("T", " ")
        where = self.where.get("dir") or "?"
        fs = self.where.get("fs") or "?"
        return f"calibration of {self.name} ({self.path or 'not kept'}; measured {when} in {where}, {fs})"


def _measured(doc: dict[str, Any]) -> dict[str, Measured]:
    keys = set(Measured.__dataclass_fields__)
    return {k: Measured(**{f: v for f, v in m.items() if f in keys}) for k, m in doc.items()}


def load(path: str | os.PathLike) -> Calibration:
    """A calibration file; a file that is not one is one clear line (the file is untrusted)."""
    doc = documents.load_json(path, "calibration", limit=LIMIT)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ParioError(f"--system {path}: not a pario calibration (no \"schema\": \"{SCHEMA}\"); give the file "
                         "`pario advise --calibrate` wrote on the system the job ran on")
    try:
        documents.validate(doc, "calibration", f"calibration {path}")
        return Calibration(system=doc["system"], path=Path(path), created=str(doc.get("created") or ""),
                           where=doc.get("where") or {}, model=_measured(doc.get("model") or {}),
                           measured={k: _measured(v) for k, v in (doc.get("measured") or {}).items()},
                           stack=doc.get("stack"))
    except (TypeError, ValueError, KeyError) as exc:
        raise ParioError(f"--system {path}: a malformed calibration ({type(exc).__name__}: {exc}); give the file "
                         "`pario advise --calibrate` wrote") from None


def new(identity: dict[str, Any], path: Path | None, where: dict[str, Any]) -> Calibration:
    return Calibration(system=identity, path=path, created=time.strftime("%Y-%m-%dT%H:%M:%S%z"), where=where,
                       dirty=True)


def stored() -> list[Calibration]:
    """The calibrations kept in the systems directory (unreadable ones are skipped)."""
    out = []
    d = directory()
    if d.is_dir():
        for p in sorted(d.glob("*.json")):
            try:
                out.append(load(p))
            except ParioError:
                continue
    return out


# ---- which system a log comes from -------------------------------------------------------------

def log_hosts(job: Job) -> set[str]:
    return {h for h in job.hosts if h}


def made_here(job: Job, reach: set[str] | None = None) -> tuple[bool, str]:
    """Whether the log was made on this system, and how that is known: a pario log names its
    hosts (this machine, or hosts the launcher here reaches: `reach`, a hostfile's; or the Slurm
    cluster this runs in); a Darshan log names none, but its mount table does: every data file's
    mount point must be a mount point here with the same file system type."""
    host = socket.gethostname()
    hosts = log_hosts(job)
    cluster = os.environ.get("SLURM_CLUSTER_NAME")
    if cluster and job.cluster == cluster:
        return True, f"the log's Slurm cluster is this one ({cluster})"
    if hosts:
        if hosts == {host}:
            return True, f"the log's host is this one ({host})"
        if reach and hosts <= reach | {host}:
            return True, "the log's hosts are ones the launcher here reaches (its hostfile)"
        return False, f"the log's host{'s' if len(hosts) > 1 else ''} ({', '.join(sorted(hosts)[:4])}) " \
                      f"{'are' if len(hosts) > 1 else 'is'} not this one ({host})"
    if job.format != "darshan" or not job.mounts:
        return False, "the log names no host"
    checked = 0
    for rec in job.records:
        if not rec.bytes or not rec.path.startswith("/"):
            continue
        point = max((m for m in job.mounts if rec.path == m or rec.path.startswith(m.rstrip("/") + "/")),
                    key=len, default=None)
        if point is None:
            continue
        mine = fsinfo.mount_of(point)
        if mine.get("mount_point") != point or not _same_fs(mine.get("fstype"), job.mounts[point]):
            return False, (f"the log's file system {job.mounts[point]} at {point} is not mounted here "
                           f"({mine.get('fstype') or 'no such mount'} at {mine.get('mount_point') or point})")
        checked += 1
    if not checked:
        return False, "the log's mount table names no file system of its data files"
    return True, "every data file of the log is on a mount point this machine has, with the same file system"


def _same_fs(here: str | None, logged: str) -> bool:
    return bool(here) and (here == logged or {here, logged} <= {"ext2", "ext3", "ext4"})


def matches(cal: Calibration, job: Job) -> bool:
    """A stored calibration belongs to the log's system: the log's hosts are among its hosts, or
    the log's Slurm cluster is its cluster."""
    hosts = log_hosts(job)
    if hosts and hosts <= set(cal.system.get("hosts") or []):
        return True
    cluster = cal.system.get("cluster")
    return bool(cluster) and cluster == job_cluster(job)


def job_cluster(job: Job) -> str | None:
    return job.cluster or None


def predicted_model(job: Job, stack_doc: dict[str, Any] | None) -> tuple[Any, str]:
    """The system model (pario predict) of a log's system that has no calibration: $PARIO_SYSTEM's
    (advise/predicted.py; --system FILE.toml gives one directly). (None, why) without one."""
    from pario.advise import predicted
    try:
        return predicted.from_environment(job)
    except ParioError as exc:
        return None, str(exc)
