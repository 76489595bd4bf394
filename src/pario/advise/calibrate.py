"""Measurements the advice needs, through the same plan -> run -> store path as `pario bench`:
a Query's cases become engine cases, run in one launch per rank count, stored as runs of kind
"calibration" (no new table: `pario results` lists them), and found again later by the query's
key, the file system they ran on and the MPI that ran them. Stored `pario bench` runs whose case
matches a query's case serve too."""
from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass, replace
from typing import Any

from pario.advise.costs import Measured, Query, measured_cases
from pario.model.errors import ParioError
from pario.model.events import RunObserver
from pario.plan import validate
from pario.plan.cases import build_case, normalise
from pario.platform import fsinfo
from pario.platform.engine import engine_path
from pario.platform.mpi import MPI, detect, find_mpirun
from pario.platform.scratch import Scratch
from pario.run.bench import RunRequest, execute
from pario.store import Store

KIND = "calibration"
SEARCHED = ("calibration", "advise-verify", "bench")


@dataclass
class Where:
    """What makes a measurement reusable: the file system and the MPI it ran on."""
    directory: str
    mount: str
    fs: str
    mpi: str

    @staticmethod
    def of(directory: str, mpi: MPI | None) -> Where:
        desc = fsinfo.describe(directory)
        return Where(directory, desc.get("mount_point") or desc.get("path") or directory, desc.get("type") or "?",
                     f"{getattr(mpi, 'flavour', '?')} {getattr(mpi, 'version', '')}".strip())

    def to_dict(self) -> dict[str, str]:
        return {"mount": self.mount, "fs": self.fs, "mpi": self.mpi, "dir": self.directory}


def cases_of(query: Query) -> list[dict[str, Any]]:
    out = []
    for name, opts in query.options().items():
        opts = {k: v for k, v in opts.items() if k != "_io"}   # the launch's, not the case's (io_of)
        case = build_case(normalise(dict(opts, name=name), f"advise {query.key}"), f"advise {query.key}")
        out.append(case)
    return out


def _signature(case: dict[str, Any], ranks: int) -> str:
    """A case as far as its cost goes: its name and repetitions do not count, its size does (a
    ratio of two sides is only true of sides measured at the same size: the full-size --verify
    run of one side beside the calibration-size run of the other gave a many-files estimate 8x off).
    A library layer's settings and a subarray's dims count too: without them the two sides of a
    library fix (chunks of 64 elements vs of one call, alignment or not) were one case, and one
    stored measurement served both. A sync after each write counts (the calibration's rounds of
    synced and unsynced writes are otherwise one case, 200x apart)."""
    keep = ("workload", "backend", "strategy", "nfiles", "aggregate", "pattern", "xfer", "collective", "view",
            "fsync", "fsync_per_write", "odirect", "hints", "files_per_dir", "file_size", "depth", "branching",
            "shared_dir", "block", "segments", "lib", "ldims", "steps", "grid_points", "reorder")
    sig = {k: case.get(k) for k in keep if case.get(k) not in (None, False, {}, 0)}
    sig["interleaved"] = (case.get("segments") or 1) > 1
    sig["ops"] = sorted(case.get("ops") or [])
    sig["ranks"] = ranks
    return json.dumps(sig, sort_keys=True)


def _split(tag: str) -> tuple[str, str]:
    """(query key, measured name) of a tag "KEY\0NAME" or "KEY\0NAME:OP"."""
    key, _, name = tag.partition("\0")
    return key, name


def lookup(queries: list[Query], store: Store, where: Where) -> dict[str, dict[str, Measured]]:
    """Stored measurements of the queries' cases on this file system and MPI, newest first. A case
    of any stored run serves every query that has a case like it (same signature)."""
    wanted: dict[str, list[tuple[str, str]]] = {}
    for q in queries:
        for name, case in zip(q.options(), cases_of(q)):
            wanted.setdefault(_signature(case, q.ranks), []).append((q.key, name))
    found: dict[str, dict[str, Measured]] = {}
    for run in store.runs_of_kind(SEARCHED):
        env = run.get("env") or {}
        stack_fs = ((env.get("stack") or {}).get("fs") or {})
        mpi = f"{env.get('mpi_flavour', '?')} {env.get('mpi_version') or ''}".strip()
        if stack_fs.get("mount_point", env.get("dir")) != where.mount or mpi != where.mpi:
            continue
        if run.get("status") not in ("complete", "partial"):
            continue
        specs = (run.get("spec") or {}).get("cases") or []
        ranks = int(env.get("ranks") or 1)
        asked = set((env.get("advise") or {}).get("queries") or {})
        kind = run["kind"] if run["kind"] != "bench" else "pario bench"
        got = measured_cases(run.get("result") or {}, [str(i) for i in range(len(specs))], run["id"], kind)
        for tag, m in got.items():
            index, _, op = tag.partition(":")
            filled: set[str] = set()
            for key, name in wanted.get(_signature(specs[int(index)], ranks), []):
                # the per-call model is fitted from its own calibration runs only: a model that
                # changed with every later run would change every plan sized from it
                if key.startswith("model") and key not in asked:
                    continue
                full = f"{name}:{op}" if op else name
                # one stored case fills one name of each query (the alternated instances of a
                # side get distinct measurements, so their spread stays a spread)
                if full not in found.setdefault(key, {}) and key not in filled:
                    found[key][full] = replace(m, name=full, load=(env.get("advise") or {}).get("load"))
                    filled.add(key)
    complete = {}
    for q in queries:
        have = found.get(q.key, {})
        if all(n in have or any(x.startswith(n + ":") for x in have) for n in q.options()):
            complete[q.key] = have
    return complete


class Measurements(dict):
    """query key -> {case name -> Measured}; `why`: query key -> why it has no figures (its cases
    could not run here: the others were measured all the same)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.why: dict[str, str] = {}


def run(queries: list[Query], where: Where, store: Store, observer: RunObserver, *, mpi: MPI,
        kind: str = KIND, command: str | None = None, timeout: float | None = None) -> Measurements:
    """Run the queries (one launch per rank count and placement over nodes) in where.directory;
    store each launch. A query whose cases the engine would refuse, or whose launch fails, is left
    without figures, with the reason in .why; the other queries are measured."""
    out = Measurements()
    by_ranks: dict[tuple[int, int], list[Query]] = {}
    for q in queries:
        try:
            validate.check_all(cases_of(q), q.ranks)
        except ParioError as exc:
            out.why[q.key] = f"its measurement cannot run here ({exc})"
            continue
        by_ranks.setdefault((q.ranks, q.nodes or 0), []).append(q)
    engine = engine_path() if by_ranks else ""
    for (ranks, nodes), group in sorted(by_ranks.items()):
        cases, names = [], []
        for q in group:
            for name, case in zip(q.options(), cases_of(q)):
                case["name"] = f"{q.key}:{name}"[:120]
                cases.append(case)
                names.append(f"{q.key}\0{name}")
        # a directory of its own inside the one measured (the job's, often): made and removed here
        scratch = Scratch(os.path.join(where.directory, ".pario-advise"))
        on = f" on {nodes} nodes" if nodes else ""
        observer.note(f"measuring {', '.join(q.why or q.key for q in group)} ({len(cases)} cases, {ranks} "
                      f"rank{'s' if ranks > 1 else ''}{on}, in {where.directory})")
        try:
            record = execute(RunRequest(cases=cases, ranks=ranks, engine=engine, mpi=mpi, scratch=scratch,
                                        nodes=nodes or None, io=io_of(group),
                                        timeout=timeout, no_probe=True,  # None: the watchdog measures its limit
                                        facts={"advise": {"queries": {q.key: list(q.options()) for q in group},
                                                          "load": _load(), **where.to_dict()}}), observer)
        except ParioError as exc:
            for q in group:
                out.why[q.key] = f"the measurement run failed ({exc})"
            continue
        if not record.result.get("cases"):
            for q in group:
                out.why[q.key] = f"the measurement run failed ({record.message or record.status})"
            continue
        try:
            run_id: int | None = store.add_run(kind=kind, command=command or "pario " + shlex.join(sys.argv[1:]),
                                               spec=record.spec, env=record.env, result=record.result,
                                               status=record.status, headline=f"advise: {len(cases)} cases")
        except ParioError as exc:
            observer.note(f"the measurement was not stored: {exc}")
            run_id = None
        for tag, m in measured_cases(record.result, names, run_id, kind).items():
            key, name = _split(tag)
            m.name = name
            m.load = (record.env.get("advise") or {}).get("load")
            out.setdefault(key, {})[name] = m
    return out


def io_of(group: list[Query]) -> str | None:
    """The Open MPI io component a group of queries asks for (a case option '_io': the job's own,
    when its fix is a hint only that component reads, e.g. ROMIO's cb_config_list)."""
    asked = {c.get("_io") for q in group for c in q.options().values()} - {None}
    return asked.pop() if len(asked) == 1 else None


def _load() -> float | None:
    """The 1-minute load average: stored with every measurement, since a busy machine's figures
    are what they are and the advice says so."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def local_mpi(mpirun: str | None = None) -> MPI:
    return detect(find_mpirun(mpirun))
