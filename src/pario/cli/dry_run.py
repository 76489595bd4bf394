"""`pario bench --dry-run` (what would run, nothing launched) and IOR's `-o PATH` (where the files
go), shared by bench's own cases and by its presets (cli/bench_preset.py)."""
from __future__ import annotations

import json
import os
import shlex

from rich.console import Console

from pario.model.case import Case
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.model.units import count
from pario.platform.mpi import MPI
from pario.platform.scratch import Scratch
from pario.report import json as json_report
from pario.run import forward, launchers
from pario.run.bench import engine_spec


def scratch_of(request: BenchRequest) -> Scratch:
    """--dir DIR, or IOR's -o PATH: a file path, whose directory holds the files and whose base
    name starts their names."""
    if not request.test_file:
        return Scratch(request.dir)
    if request.dir:
        raise ParioError("-o PATH (IOR's test file) and --dir DIR both say where the files go; give one")
    path = os.path.abspath(os.path.expanduser(request.test_file))
    if request.test_file.endswith("/") or os.path.isdir(path):
        raise ParioError(f"-o {request.test_file} is a directory; -o names a test file as in IOR "
                         "(e.g. -o /scratch/me/testfile), --dir names a directory")
    return Scratch(os.path.dirname(path), name=os.path.basename(path))


def dry_run(request: BenchRequest, cases: list[Case], ranks: int, engine: str, mpi: MPI, scratch: Scratch,
            note: str | None) -> int:
    """--dry-run: what would run (the launcher's argv, the engine's spec), with nothing launched,
    no scratch directory or file created and no store opened."""
    spec = engine_spec(scratch.run_id, scratch.dir, scratch.prefix, "STATUS_DIR", cases)
    argv = launchers.command(mpi, ranks, [engine, "SPEC.json", "RESULT.json"], io=request.io,
                             env=forward.timed_env(), launcher=launchers.resolve(request.launcher),
                             nodes=request.nodes)
    if request.json:
        json_report.emit({"schema": "pario.bench-dry-run/1", "launcher_argv": argv, "ranks": ranks,
                          "note": note, "spec": spec})
        return 0
    out = Console()
    out.print("dry run: nothing launched, no file or directory created, nothing stored", highlight=False)
    if note:
        out.print(note, highlight=False)
    out.print(f"{count(len(cases), 'case')}, {count(ranks, 'rank')}, files {scratch.dir}/{scratch.prefix}.*",
              highlight=False)
    out.print("launcher command line (SPEC.json is the spec below, RESULT.json the engine's result):",
              highlight=False)
    print(shlex.join(argv))
    out.print("spec:", highlight=False)
    print(json.dumps(spec, indent=1))
    return 0
