"""The stack under the job's files, as the rules need it: file system, its unit (Lustre stripe
size, else the block size), stripe count, OST count, and the MPI-IO implementation.

Where each fact comes from, most trusted first: `--stack` (a path on the file system to advise
for, or a `pario stack --json` document recorded there), the log's own record of the file (pario
records the file system, block or stripe size and stripe count of every file; Darshan records the
mount's type, its LUSTRE module the layout), and the file's directory when it exists here. Every
fact says where it came from."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from pario.advise.job import Job, Rec
from pario.model.errors import ParioError
from pario.model.filesystems import PARALLEL
from pario.platform import cephfs, documents, fsinfo
from pario.platform import stack as stacklib


@dataclass
class FsFacts:
    fs: str | None = None
    unit: int | None = None          # the size requests should be a multiple of
    unit_source: str = ""
    stripe_size: int | None = None   # Lustre; CephFS's stripe_unit
    stripe_count: int | None = None
    ost_count: int | None = None
    servers: int | None = None       # CephFS: object servers up
    object_size: int | None = None   # CephFS
    block_size: int | None = None
    source: str = ""                 # where the file system facts came from

    @property
    def lustre(self) -> bool:
        return self.fs == "lustre"

    @property
    def parallel(self) -> bool:
        return self.fs in PARALLEL


@dataclass
class StackFacts:
    impl: str | None = None          # romio | ompio | cray
    impl_source: str = ""
    flavour: str | None = None       # openmpi | mpich | ...
    hosts: int | None = None         # hosts the job ran on (None: the log does not say)
    stack_doc: dict[str, Any] | None = None
    given: FsFacts | None = None     # from --stack: wins over the log's own facts
    files: dict[str, FsFacts] = field(default_factory=dict)
    measure_dir: str | None = None   # where costs are measured (a directory here)
    measure_why: str = ""

    def of(self, rec: Rec) -> FsFacts:
        return self.files.get(rec.path) or self.given or FsFacts()


def load_stack(arg: str) -> dict[str, Any]:
    """--stack: a `pario stack --json` document, or a path to look at here (no MPI probe)."""
    if os.path.isfile(arg) and arg.endswith(".json"):
        try:  # untrusted: bounded in size and depth (platform.documents)
            doc = documents.load_json(arg, "--stack", limit=16 << 20)
        except ParioError as exc:
            raise ParioError(f"{exc}; give a directory on the file system to advise for, or the JSON that "
                             "`pario stack --json DIR` printed there") from None
        if not isinstance(doc, dict) or "fs" not in doc:
            raise ParioError(f"--stack {arg}: no \"fs\" in it: not a `pario stack --json` document")
        doc.setdefault("_source", f"--stack {arg} (recorded by pario stack)")
        return doc
    if not os.path.exists(arg):
        raise ParioError(f"--stack {arg}: no such file or directory; give a directory on the file system to "
                         "advise for, or a `pario stack --json` document")
    doc = stacklib.collect(arg)
    doc["_source"] = f"--stack {arg} (looked at here)"
    return doc


def _from_stack_doc(doc: dict[str, Any]) -> FsFacts:
    fs = doc.get("fs") or {}
    out = FsFacts(fs=fs.get("type"), block_size=fs.get("block_size"), source=doc.get("_source", "--stack"))
    lustre = doc.get("lustre") or {}
    layout = lustre.get("dir_layout") or {}
    if out.fs == "lustre":
        out.stripe_size = layout.get("stripe_size") or None
        out.stripe_count = layout.get("stripe_count") or None
        out.ost_count = lustre.get("ost_count") or None
        if out.stripe_size:
            out.unit, out.unit_source = int(out.stripe_size), "the directory's stripe size (lfs getstripe)"
    elif out.fs == "cephfs":
        ceph = doc.get("cephfs") or {}
        _ceph_layout(out, ceph.get("new_file_layout") or {}, ceph.get("servers"))
    elif out.fs == "gpfs":
        block = (doc.get("gpfs") or {}).get("block_size") or out.block_size
        if block:
            out.unit, out.unit_source = int(block), "the GPFS block size (mmlsfs -B)"
    if out.unit is None and out.block_size:
        out.unit, out.unit_source = int(out.block_size), "the file system's block size (statfs)"
    return out


def _from_log(rec: Rec, job: Job) -> FsFacts:
    out = FsFacts(fs=rec.fs, stripe_size=rec.stripe_size, stripe_count=rec.stripe_count,
                  source=f"the {job.format} log")
    if rec.fs == "lustre" and rec.stripe_size:
        out.unit, out.unit_source = rec.stripe_size, "the file's stripe size (recorded in the log)"
    elif rec.alignment and not (job.format == "darshan" and rec.fs == "lustre"):
        out.unit, out.unit_source = rec.alignment, f"the file system's block size ({job.format} log)"
        out.block_size = rec.alignment
    elif rec.fs == "lustre" and rec.alignment:
        # Darshan cannot see the stripe size and assumes 1 MiB (darshan-runtime docs)
        out.unit, out.unit_source = rec.alignment, "Darshan's assumed Lustre stripe size (no LUSTRE record)"
    return out


def _from_here(path: str) -> FsFacts | None:
    directory = os.path.dirname(path)
    if not directory or not os.path.isdir(directory):
        return None
    desc = fsinfo.describe(directory)
    out = FsFacts(fs=desc.get("type"), block_size=desc.get("block_size"), source=f"{directory}, looked at here")
    if out.fs == "lustre":
        lustre = stacklib.lustre_facts(directory)
        layout = lustre.get("dir_layout") or {}
        out.stripe_size, out.stripe_count = layout.get("stripe_size"), layout.get("stripe_count")
        out.ost_count = lustre.get("ost_count")
    elif out.fs == "cephfs":  # the file's own layout while it is there, else what a new file here gets
        own = cephfs.read_layout(path) if os.path.isfile(path) else None
        layout, where = (own, f"{path}'s layout") if own else cephfs.new_file_layout(directory, desc.get("mount_point"))
        _ceph_layout(out, layout, _ceph_servers(desc))
        out.source = f"{where}, looked at here"
    return out


def _ceph_layout(out: FsFacts, layout: dict[str, Any], servers: int | None) -> None:
    out.stripe_size, out.stripe_count = layout.get("stripe_unit"), layout.get("stripe_count")
    out.object_size, out.servers = layout.get("object_size"), servers
    if out.stripe_size:
        out.unit, out.unit_source = int(out.stripe_size), "the stripe unit of the CephFS layout"


_SERVERS: dict[str, int | None] = {}


def _ceph_servers(desc: dict[str, Any]) -> int | None:
    """The object servers up behind a CephFS mount (asked once per mount: a second or so)."""
    point = desc.get("mount_point") or ""
    if point not in _SERVERS:
        client = cephfs.client(desc)
        _SERVERS[point] = cephfs.cluster(client["conf"], client["name"]).get("servers")
    return _SERVERS[point]


def _impl_from_hints(job: Job) -> tuple[str | None, str, str | None]:
    """The MPI-IO implementation from the hints in effect that the log recorded."""
    for rec in job.of("mpiio"):
        keys = set(rec.hints or {})
        if any(k.startswith("mca:") for k in keys):
            io = (rec.hints or {}).get("mca:io", "")
            impl = "romio" if "romio" in io and "^romio" not in io else "ompio"
            return impl, "the log (Open MPI's io component in the hints it recorded)", "openmpi"
        if any(k.startswith("cray_") for k in keys):
            return "cray", "the log (Cray MPICH hints in effect)", "cray"
        if any(k.startswith("romio_") for k in keys):
            return "romio", "the log (ROMIO hints in effect)", None
    return None, "", None


def _impl_from_helpers(job: Job) -> tuple[str | None, str, str | None]:
    """The MPI-IO implementation from the helper files it left in the log: OMPIO's shared-memory
    and lock files (*.sm, *.locktest.N, *.lockedfile), ROMIO's shared file pointer (.FILE.shfp.N)."""
    helpers = job.ignored
    if any(h.endswith((".sm", ".lockedfile")) or ".locktest" in h for h in helpers):
        return "ompio", "the log (OMPIO's helper files)", "openmpi"
    if any(".shfp." in h for h in helpers):
        return "romio", "the log (ROMIO's shared file pointer file)", None
    return None, "not recorded in the log", None


def gather(job: Job, stack_arg: str | None = None, here: bool = True) -> StackFacts:
    """Facts for every file of the job: what --stack and the log say, and, when the job ran here
    (here), what its directories show. The MPI-IO implementation is the one the log (or --stack)
    names, never this machine's: a log may come from another MPI than the one installed here."""
    out = StackFacts()
    doc = load_stack(stack_arg) if stack_arg else None
    if doc is not None:
        out.stack_doc, out.given = doc, _from_stack_doc(doc)
    out.hosts = len(job.hosts) or None
    for rec in job.records:
        if rec.path in out.files:
            continue
        local = _from_here(rec.path) if doc is None and here else None
        logged = _from_log(rec, job)
        facts = out.given or logged
        if doc is None and local is not None:
            # the log knows the job's file system; here only adds what it lacks (the OST count)
            if logged.fs is None or (local.fs == "cephfs" and logged.fs in ("fuse", "cephfs")):
                facts = local  # ceph-fuse's files carry FUSE's magic in the log: the mount here names CephFS
            elif local.fs == logged.fs:
                facts.ost_count = facts.ost_count or local.ost_count
        if doc is None and facts.unit is None and local is not None and local.block_size:
            facts.unit, facts.unit_source = local.block_size, f"the block size of {local.source}"
        out.files[rec.path] = facts
    impl, why, flavour = _impl_from_hints(job)
    mpi = (doc or {}).get("mpi") or {}
    if not job.of("mpiio"):
        pass   # no MPI-IO in the job: which implementation it would use says nothing here
    elif mpi.get("mpiio"):
        out.impl, out.impl_source, out.flavour = mpi["mpiio"], out.given.source if out.given else "--stack", \
            mpi.get("flavour")
    elif impl:
        out.impl, out.impl_source, out.flavour = impl, why, flavour
    else:
        out.impl, out.impl_source, out.flavour = _impl_from_helpers(job)
    out.measure_dir, out.measure_why = _measure_dir(job, stack_arg, doc) if here else \
        (None, "the job ran on another system: nothing is measured here")
    return out


def _measure_dir(job: Job, stack_arg: str | None, doc: dict[str, Any] | None) -> tuple[str | None, str]:
    """Where the cost of the better pattern is measured: the --stack directory, else the directory of
    the file with the most I/O time when it exists here, else None (the caller's scratch)."""
    if stack_arg and os.path.isdir(stack_arg):
        return os.path.abspath(stack_arg), f"--stack {stack_arg}"
    if doc is not None:
        return None, "the --stack document is from elsewhere: measured in the scratch directory here"
    ranked = sorted(job.records, key=lambda r: -r.io_time)
    for rec in ranked:
        d = os.path.dirname(rec.path)
        if d and os.path.isdir(d) and os.access(d, os.W_OK) and not d.startswith(("/proc", "/sys", "/dev")):
            return d, f"the job's own directory {d}"
    return None, "the job's directories are not here: measured in the scratch directory"
