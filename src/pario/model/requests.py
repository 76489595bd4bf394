"""What a user asks of a command, as typed records: the command line is one way to make them,
a tuner or a job generator another (they never need argparse)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

_FLAG = {"list_backends": "list"}  # request fields whose flag has another name


@dataclass
class BenchRequest:
    """`pario bench`: None means "not given" (a default, the job file or the suite decides). Every
    field has a typed row that checks it (plan/inputs.py REQUEST)."""
    # one case (IOR flags)
    backend: str | None = None
    collective: bool | None = None
    transfer: int | str | None = None     # bytes, or a size such as 16m
    block: int | str | None = None     # bytes, or a size such as 16m
    segments: int | None = None
    write: bool | None = None
    read: bool | None = None
    verify: bool | None = None
    check_read: bool | None = None
    read_check: bool | None = None     # False: --no-read-check
    reps: int | None = None
    fpp: bool | None = None
    fsync: bool | None = None
    keep: bool | None = None
    reorder_host: bool | None = None
    reorder: int | None = None
    random: bool | None = None
    seed: int | None = None
    strategy: str | None = None
    aggregate: bool | None = None
    pattern: str | None = None
    dims: str | None = None
    btio_class: str | None = None
    grid: str | None = None
    steps: int | None = None
    view: bool | None = None
    odirect: bool | None = None
    # IOR's -Y, -D (with -O stoneWallingWearOut=1), -u, -E, -T
    fsync_per_write: bool | None = None
    deadline: float | None = None
    wearout: bool | None = None
    unique_dir: bool | None = None
    use_existing: bool | None = None
    max_time: float | None = None
    hint: list[str] | None = None
    hints_file: str | None = None
    lib: list[str] | None = None
    name: str | None = None
    buffer_max: int | str | None = None     # bytes, or a size such as 16m
    # the layout the case's files are created with (Lustre, CephFS)
    stripe_count: int | None = None
    stripe_size: int | str | None = None
    object_size: int | str | None = None
    # metadata workload
    metadata: bool | None = None
    files_per_dir: int | None = None
    file_size: int | str | None = None     # bytes, or a size such as 16m
    depth: int | None = None
    branching: int | None = None
    per_rank_dirs: bool | None = None
    md_ops: list[str] | str | None = None
    # the run
    ranks: int | None = None
    nodes: int | None = None       # --nodes: the ranks in blocks over this many nodes
    dir: str | None = None
    test_file: str | None = None   # -o PATH, IOR's test file
    config: str | None = None
    reuse: int | None = None
    suite: str | None = None
    preset: str | None = None
    scale: float | None = None
    size: int | str | None = None     # bytes, or a size such as 16m
    time: float = 60.0
    io: str | None = None
    mpirun: str | None = None
    launcher: str | None = None    # None: srun inside a Slurm allocation, else mpirun (run.launchers.resolve)
    timeout: float | None = None
    no_probe: bool = False
    cache: bool | None = None       # --cache: the default suite's page-cache figures (else it measures the storage)
    drop_caches: str | None = None  # --drop-caches: 'files' (the run's own, any user) or 'all' (root)
    db: str | None = None
    json: bool = False
    list_backends: bool = False    # --list
    dry_run: bool = False

    @classmethod
    def from_namespace(cls, ns: Any) -> BenchRequest:
        """From an object with these attributes (argparse's Namespace); missing ones keep defaults."""
        known = {f.name: _FLAG.get(f.name, f.name) for f in fields(cls)}
        return cls(**{name: getattr(ns, flag) for name, flag in known.items() if hasattr(ns, flag)})

    def given(self, names: tuple[str, ...]) -> list[str]:
        """The names among `names` that the request sets."""
        return [n for n in names if getattr(self, n, None) is not None]
