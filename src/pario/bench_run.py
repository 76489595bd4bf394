"""One `pario bench` run after its cases are planned and validated: write the spec, launch the
engine, judge the outcome, clean up this run's files, store the run, show the table."""
from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import sys
import tempfile
from typing import Any

from . import environment, launch, layout_apply
from . import spec as specmod
from .errors import ParioError
from .scratch import Scratch, device_ceiling
from .settings import effective, view


def log(msg: str) -> None:
    print(f"pario: {msg}", file=sys.stderr, flush=True)


def execute(args, *, cases: list[dict[str, Any]], note: str, ranks: int, engine: str, mpi: launch.MPI,
            scratch: Scratch, timeout: float, ceiling: dict[str, Any] | None = None, store=None,
            facts: dict[str, Any] | None = None) -> int:
    """`facts`: more of what the front end knows about the run, stored in its environment."""
    scratch.prepare()
    tmp = tempfile.mkdtemp(prefix="pario-")  # private: spec, result and status files of this run
    try:
        return _execute(args, cases, note, ranks, engine, mpi, scratch, timeout, tmp, ceiling, store, facts or {})
    except BaseException:
        scratch.cleanup()
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _execute(args, cases, note, ranks, engine, mpi, scratch, timeout, tmp, ceiling, store, facts) -> int:
    if ceiling is None:
        ceiling = device_ceiling(engine, scratch.dir, skip=args.no_probe)
    status_dir = os.path.join(tmp, "status")
    os.mkdir(status_dir)
    spec = specmod.engine_spec(scratch.run_id, scratch.dir, scratch.prefix, status_dir, cases)
    spec_path, result_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "result.json")
    forward = launch.timed_env()
    argv = launch.command(mpi, ranks, [engine, spec_path, result_path], io=args.io,
                          env=forward, launcher=args.launcher)
    env = environment.collect(directory=scratch.dir, mpi=mpi, io=args.io, launcher_argv=argv,
                              ceiling=ceiling, ranks=ranks, engine=engine)
    env.update(facts)
    layouts = layout_apply.prepare(cases, scratch.dir, scratch.prefix, ranks, env.get("fs_name"))
    for index, rec in layouts.items():
        if rec.get("applied"):  # the engine then truncates these files between repetitions, keeping the layout
            spec["cases"][index]["precreated"] = True
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh, indent=1)
    collector = effective.OutputCollector(scratch.prefix)
    env["timeout_s"] = timeout
    log(f"{ranks} ranks, {mpi.flavour} ({mpi.version}), scratch {scratch.dir}")
    log(note)
    if launch.in_slurm() and args.launcher == "mpirun":
        log(f"inside Slurm job {launch.in_slurm()}: mpirun places the ranks in its allocation (or use --launcher srun)")
    read_settings(args, cases, ranks, engine, mpi, spec_path, collector, forward)
    try:
        outcome = launch.run(argv, env=launch.launch_env(mpi, args.io, args.launcher, forward), timeout=timeout,
                             status_dir=status_dir, ranks=ranks, cases=cases,
                             progress=launch.Progress(plain=args.json), sink=collector)
    except KeyboardInterrupt:
        removed = scratch.cleanup()
        log(f"interrupted: ended the run and removed its {removed} file(s) in {scratch.dir}")
        raise
    result = load_result(result_path, scratch.run_id)
    measured(result, collector, layouts, env, mpi, ranks)
    status, message = judge(outcome, result, status_dir, ranks, cases)
    result["status"] = status
    if message and not result.get("error"):
        result["error"] = {"code": "watchdog" if outcome.watchdog else "launcher", "message": message}
    if status == "complete":
        remove_unkept(scratch, cases)
    else:
        scratch.cleanup()
    left = scratch.leftovers()
    if left and status != "complete":
        log(f"could not remove {len(left)} file(s) of this run, e.g. {left[0]}")
    run_id = store_run(store, args, spec, env, result, status)
    from .summary import summarize
    rows = summarize(result, env) if result.get("cases") else []
    show(args, rows, result, env, status, message, run_id, note, scratch)
    bad = sum((r.get("verify") or {}).get("errors") or 0 for r in rows)
    if bad and not message:
        print(f"pario: error: verify found {bad} 8-byte word(s) that differ from what was written", file=sys.stderr)
    return 0 if status == "complete" and not bad else 1


def read_settings(args, cases, ranks, engine, mpi, spec_path, collector, forward) -> None:
    """Before the timed run: a launch of its own that opens each case's file once, untimed, with
    the MPI told to print the settings it took (settings.effective reads the lines). When it fails,
    the timed run still runs and reports the problem; the effective settings are then unknown."""
    display = launch.settings_env(mpi, args.io, cases)
    if not display:
        return
    env = {**display, **forward}
    argv = launch.command(mpi, ranks, [engine, "--settings", spec_path], io=args.io, env=env, launcher=args.launcher)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err:
        try:
            outcome = launch.run(argv, env=launch.launch_env(mpi, args.io, args.launcher, env),
                                 timeout=SETTINGS_TIMEOUT, status_dir=None, ranks=ranks, cases=cases,
                                 progress=launch.Progress(plain=True), sink=collector, stderr=err)
        except ParioError as exc:
            log(f"the settings in effect were not read: {exc}")
            return
        if outcome.returncode or outcome.watchdog:
            err.seek(0)
            last = [line.strip() for line in err if line.strip()][-1:] or [outcome.watchdog or "no message"]
            log(f"the settings in effect were not read ({last[0]}); the timed run follows")


SETTINGS_TIMEOUT = 120.0  # seconds without progress: one open and close per case


def measured(result, collector, layouts, env, mpi, ranks) -> None:
    """Put the effective settings, the means used and the per-setting check into each case."""
    stack = env.get("stack") or {}
    hosts = len((result.get("mpi") or {}).get("hosts") or []) or 1
    impl = (stack.get("mpi") or {}).get("mpiio") or ("ompio" if mpi.flavour == "openmpi" else "romio")
    stack_view = view(stack, impl=impl, fs=env.get("fs_name"), ranks=ranks, hosts=hosts)
    effective.annotate(result, collector.reports(), mpi.flavour, stack_view)
    for case in result.get("cases") or []:
        rec = layouts.get(case.get("index"))
        if rec is not None:
            case["layout"] = {**rec, "mismatch": layout_apply.compare(rec)}


def load_result(path: str, run_id: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        if isinstance(doc, dict) and "cases" in doc:
            return doc
    except (OSError, ValueError):
        pass
    # The engine never wrote a document: it did not start, or died before its first phase.
    return {"schema": "pario.result/1", "status": "failed", "run_id": run_id, "engine": {}, "mpi": {},
            "cases": [], "error": None}


def judge(outcome: launch.Outcome, result: dict[str, Any], status_dir: str, ranks: int,
          cases: list[dict[str, Any]]) -> tuple[str, str | None]:
    """(status, one-line reason) from the launcher's exit and what the engine wrote."""
    measured = any(c.get("phases") for c in result.get("cases", []))
    engine_status = result.get("status")
    err = result.get("error") or {}
    if outcome.watchdog:
        return ("partial" if measured else "failed"), outcome.watchdog
    if outcome.returncode == 0 and engine_status == "complete":
        return "complete", None
    status = "partial" if measured else "failed"
    if err.get("message"):
        code = f" ({err['code']})" if err.get("code") else ""
        rank = f" on rank {err['rank']}" if isinstance(err.get("rank"), int) else ""
        return status, f"the engine stopped{rank}{code}: {err['message']}"
    where = launch.stuck_ranks(status_dir, ranks, cases, verb="last seen in")
    return status, (f"the launcher exited with code {outcome.returncode} before the run completed "
                    f"(a rank died?); last known: {where}")


def remove_unkept(scratch: Scratch, cases: list[dict[str, Any]]) -> None:
    """After a complete run: the files of cases without keep (the engine removes them already; this
    only catches what it left), then the directory if pario made it and nothing is kept."""
    for index, case in enumerate(cases):
        if not case.get("keep"):
            pattern = os.path.join(glob.escape(scratch.dir), f"{glob.escape(scratch.prefix)}.{index}.*")
            for path in glob.glob(pattern):
                if os.path.isfile(path) and not os.path.islink(path):
                    os.unlink(path)
    scratch.remove_dir_if_ours()


def store_run(store, args, spec, env, result, status) -> int | None:
    try:
        if store is None:
            from .store import Store
            store = Store(args.db)
        return store.add_run(kind="bench", command="pario " + shlex.join(sys.argv[1:]),
                             spec=spec, env=env, result=result, status=status)
    except ParioError as exc:
        log(f"the run was not stored: {exc}")
        return None


def verify_lines(rows) -> list[str]:
    """Where each case's read-back first differed from what was written."""
    out = []
    for r in rows:
        v = r.get("verify") or {}
        first = v.get("first_error") or {}
        if v.get("errors"):
            where = (f"; first on rank {first.get('rank')}, file {first.get('file')}, offset {first.get('offset')}: "
                     f"expected {first.get('expected')}, got {first.get('got')}") if first else ""
            out.append(f"{r['name']}: verify found {v['errors']} bad 8-byte word(s){where}.")
    return out


def show(args, rows, result, env, status, message, run_id, note, scratch) -> None:
    from .summary import fastest
    if args.json:
        best = {op: (fastest(rows, op) or {}).get("name") for op in ("write", "read")}
        doc = {"run": run_id, "engine_run_id": result.get("run_id"), "status": status, "error": message,
               "sizes": note, "dir": scratch.dir, "fastest": best, "summary": rows, "result": result}
        print(json.dumps(doc, indent=1, default=str))
    else:
        from rich.console import Console
        console = Console()
        if rows:
            mpi = result.get("mpi") or {}
            title = (f"pario bench: {mpi.get('ranks', '?')} ranks on {env.get('hostname')}, "
                     f"{scratch.dir} ({env.get('fs_type') or 'fs ?'})")
            from .tables_layers import print_bench  # data table, then layers and metadata tables
            print_bench(console, rows, result, title=title)
            for line in verify_lines(rows):
                console.print(line, highlight=False)
            from .tables import print_hints  # requested vs effective settings, with the means used
            print_hints(console, result.get("cases") or [])
            kept = [c["name"] for c in (result.get("cases") or []) if (c.get("spec") or {}).get("keep")]
            if kept and status == "complete":
                console.print(f"Kept the files of {', '.join(kept)} in {scratch.dir} ({scratch.prefix}.*).")
        ceiling = env.get("ceiling") or {}
        if ceiling.get("write_mib"):
            console.print(f"Device ceiling (O_DIRECT probe, {ceiling.get('source')}): write "
                          f"{ceiling['write_mib']:.0f} MiB/s, read {ceiling.get('read_mib') or 0:.0f} MiB/s.")
        else:
            console.print(f"No device ceiling: {ceiling.get('source', 'not measured')}.")
        if run_id is not None:
            console.print(f"Stored as run {run_id} ({status}): pario results show {run_id}")
    if message:
        print(f"pario: error: run {status}: {message}", file=sys.stderr)
