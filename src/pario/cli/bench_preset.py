"""`pario bench --preset NAME|list|FILE`: a seed's experiment in one command. The conductor of
bench's preset path: request -> plan (the preset's cases this system can run, sized to --scale or
--time) -> run -> store -> analysis (the seed's table with this run's cells) -> report."""
from __future__ import annotations

import dataclasses
import os
import sys

from rich.console import Console

from pario.analysis import presets as analysis
from pario.analysis.summary import summarize
from pario.cli.dry_run import dry_run
from pario.cli.store_run import store_run
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.model.units import count
from pario.plan import presets, suites, validate
from pario.plan.bench import CASE_DESTS, apply_drop_caches, check_room
from pario.platform import host, slurm
from pario.platform.ceiling import device_ceiling
from pario.platform.engine import engine_listing, engine_path
from pario.platform.mpi import detect, find_mpirun
from pario.platform.scratch import Scratch
from pario.report import json as json_report
from pario.report.terminal.bench import measured_line, verify_lines
from pario.report.terminal.presets import print_list, print_table
from pario.report.terminal.progress import Progress
from pario.report.terminal.servers import print_servers
from pario.run import launchers, stop
from pario.run.bench import RunRequest, execute
from pario.store import Store

# Run flags a preset takes besides -n, --scale and --time; its cases are the file's.
_RUN_ONLY = ("reps",)


def run_preset(request: BenchRequest, scratch: Scratch) -> int:
    """scratch: where the files go (--dir DIR, or IOR's -o PATH: its directory and its base name
    starting the files' names, as in bench)."""
    assert request.preset is not None
    if request.preset == "list":
        if request.dry_run:
            raise ParioError("--dry-run with --preset list: the list runs nothing; give a preset's name "
                             "(--preset NAME --dry-run) to see what it would run")
        return _list(request)
    given = request.given(CASE_DESTS) + request.given(("write", "read", "verify", "check_read", "fsync", "keep",
                                                        "seed", "buffer_max", "config", "suite", "size", "reuse"))
    if given:
        raise ParioError(f"--preset runs the cases of its file; drop --{given[0].replace('_', '-')} (or copy "
                         f"the preset, edit it and run it with --preset FILE)")
    if request.scale is not None and not 0 < request.scale <= 4096:
        raise ParioError(f"--scale {request.scale:g}: give a factor above 0 (e.g. 0.25 for a quarter of the sizes)")
    if request.reps is not None and request.reps < 1:
        raise ParioError(f"-i {request.reps}: repetitions must be at least 1")
    preset = presets.load(presets.find(request.preset))
    try:
        return _run(request, preset, scratch)
    except BaseException:
        scratch.cleanup()
        raise


def _list(request: BenchRequest) -> int:
    found = [presets.load(path) for path in presets.available().values()]
    if request.json:
        json_report.emit({"schema": "pario.preset-list/1",
                          "presets": [{"name": p.name, "title": p.title, "shows": p.shows, "seed": p.seed,
                                       "ranks": p.ranks, "path": p.path} for p in found]})
    else:
        print_list(Console(), found)
    return 0


def _run(request: BenchRequest, preset, scratch: Scratch) -> int:
    engine = engine_path()
    listing = engine_listing(engine)
    mpi = detect(find_mpirun(request.mpirun))
    io = request.io or (preset.io if mpi.flavour == "openmpi" else None)
    launcher = launchers.resolve(request.launcher)  # srun inside a Slurm allocation
    # inside an allocation a preset's ranks follow its tasks (SLURM_NTASKS), like pario bench's
    ranks, rank_note = presets.ranks_for(preset, request.ranks,
                                         slurm.default_ranks(slurm.allocation()) or host.cpus())
    if ranks < 1:
        raise ParioError(f"-n {ranks}: ranks must be at least 1")
    facts = presets.facts(host.fs_type(host.nearest_existing(scratch.dir)), listing, mpi.flavour, mpi.version, io,
                          _buffer_missing())
    from pario.run.launchers import nodes as placement
    placement.check(mpi, launcher, ranks, request.nodes)
    if request.nodes:   # --nodes: the rows' per-node settings (cb_config_list *:k) act per node, as in the seed
        facts["hosts"] = request.nodes
    ceiling = None
    storage = suites.measures_storage(request)   # bench's default: the storage, unless --cache
    notes = [rank_note] if rank_note else []
    if facts["hosts"] > 1:
        notes.append(f"on {facts['hosts']} nodes: a row's cb_config_list *:k allows k aggregators on each node, as "
                     "on the seed's cluster (on one node it puts them all there; a row's cb_nodes caps their total, "
                     "taken node by node)")
    if io and not request.io:
        notes.append(f"--io {io}: this preset's hints are ROMIO's, which Open MPI's default OMPIO ignores")
    if request.scale is not None:
        scale = request.scale
    elif request.dry_run:  # the probe writes a file: a dry run sizes for a nominal rate instead
        scale = presets.choose_scale(preset, ranks, facts, request.time, 150.0, request.reps)
        notes.append(f"scale {scale:g} fits --time {request.time:g} s at a nominal 150 MiB/s (a dry run does not "
                     "probe the device; --scale sets it)")
    else:  # the largest scale (at most 1) that fits --time at the device's rate
        scratch.prepare()
        ceiling = device_ceiling(engine, scratch.dir, skip=request.no_probe)
        rate = suites.storage_rate(ceiling, not storage)
        scale = presets.choose_scale(preset, ranks, facts, request.time, rate, request.reps)
        notes.append(f"scale {scale:g} fits --time {request.time:g} s at about {rate:.0f} MiB/s (--scale sets it)")
    plan = presets.plan(preset, ranks, scale, facts, request.reps, storage=storage, drop_caches=request.drop_caches)
    apply_drop_caches(plan.cases, request.drop_caches, os.geteuid() == 0)
    plan.notes = notes + [n for n in [_storage_note(plan.cases, storage)] if n]
    if not plan.cases:
        doc = analysis.table(plan, [], {}, _model(preset))
        _show(request, doc, None, None, [])
        print("pario: nothing of this preset runs on this system (each row says why)", file=sys.stderr)
        return 0
    validate.check_all(plan.cases, ranks)
    check_room(plan.cases, ranks, scratch.dir)
    launchers.check_launcher(launcher, mpi)
    launchers.command(mpi, ranks, [], io=io, launcher=launcher)  # rejects a bad --io early
    validate.check_backends(plan.cases, listing)
    if request.dry_run:
        return _dry_run(request, plan, preset.name, scale, ranks, engine, mpi, scratch, io)
    store = Store(request.db)
    note = (f"preset {preset.name}: {count(len(plan.cases), 'case')}, {count(len(plan.skipped), 'row')} skipped, "
            f"scale {scale:g}")
    buffered = Buffered(plan.cases, scratch)
    dropped = {"drop_caches": request.drop_caches} if request.drop_caches else {}
    try:
        record = execute(RunRequest(cases=plan.cases, note=note, ranks=ranks, engine=engine, mpi=mpi,
                                    scratch=scratch, io=io, launcher=launcher, ceiling=ceiling,
                                    no_probe=request.no_probe, facts={"preset": preset.name, "preset_scale": scale,
                                                                      **buffered.facts(), **dropped},
                                    timeout=request.timeout, env=buffered.env, nodes=request.nodes),
                         Progress(plain=request.json))
        plan.notes += buffered.notes(plan.labels)
    finally:
        buffered.cleanup()
    run_id, _kept = store_run(store, record)  # not stored: kept in a file, exit 4 (below)
    rows = summarize(record.result, record.env) if record.result.get("cases") else []
    from pario.analysis.nodes import ONE_MACHINE, one_machine
    if one_machine(record.result):
        plan.notes.append(ONE_MACHINE)
    doc = analysis.table(plan, rows, record.result, _model(preset))
    _show(request, doc, record, run_id, rows)
    if record.message:
        print(f"pario: error: run {record.status}: {record.message}", file=sys.stderr)
    bad = sum((r.get("verify") or {}).get("errors") or 0 for r in rows)
    signals = stop.current()
    first = record.stopped or (signals.first if signals else None)
    if first:
        return 128 + first
    if run_id is None:
        return 4
    return 0 if record.complete and not bad else 1


def _storage_note(cases: list[dict], storage: bool) -> str:
    """What the preset's figures are of, from its cases (the suites' header's words, suites.storage_note,
    without bench's -e and --drop-caches, which a preset does not take)."""
    data = [c for c in cases if c.get("workload", "data") != "metadata" and c.get("backend") != "null"]
    ops = [op for op in ("write", "read", "verify") if any(op in c["ops"] for c in data)]
    said = ""
    if ops and storage:
        said = "this preset " + suites.storage_note(True, {"fsync": True}, ops, flags=False)
        unsynced = sorted({c["backend"] for c in data if "write" in c["ops"] and not c.get("fsync")})
        if unsynced:
            said += f"; {', '.join(unsynced)} rows are not synced"
    elif ops:
        parts = ["writes not synced inside the timed phase unless the preset's row says fsync itself"] * (
            "write" in ops) + ["reads not evicted first"] * bool({"read", "verify"} & set(ops))
        said = "page-cache figures (--cache): " + ", ".join(parts)
    if any(c.get("workload") == "metadata" and "read_small" in c["ops"] for c in cases):
        said += ("; " if said else "") + ("the metadata rows read files they just created, not evicted first "
                                          "(the page cache may hold them)")
    return said


def _dry_run(request: BenchRequest, plan, name: str, scale: float, ranks: int, engine: str, mpi, scratch: Scratch,
             io: str | None) -> int:
    """The preset's cases as bench's --dry-run shows them: one launch runs them all, so one launcher
    line and one spec with every case; buffered cases name the library they would run under."""
    lines = [f"preset {name}: {count(len(plan.cases), 'case')}, {count(len(plan.skipped), 'row')} skipped, "
             f"scale {scale:g}",
             *plan.notes]
    buffered = [c["name"] for c in plan.cases if c.get("_buffer")]
    if buffered:
        lines.append(f"run under pario buffer (LD_PRELOAD, its files only): {', '.join(buffered)}")
    return dry_run(dataclasses.replace(request, io=io), plan.cases, ranks, engine, mpi, scratch, "\n".join(lines))


def _show(request: BenchRequest, doc, record, run_id, rows) -> None:
    if record is not None:   # what the figures are of, from the cases that ran (bench's line above its table)
        cures = ("", "") if suites.measures_storage(request) else (" (without --cache they are)",) * 2
        doc["measured"] = measured_line(record.result.get("cases") or [], cures)
    if request.json:
        out = {"preset": doc, "run": run_id}
        if record is not None:
            out.update(json_report.bench_document(record, rows, run_id))
        out["schema"] = "pario.preset/1"  # the bench document's fields and the preset's table
        json_report.emit(out, default=str)
        return
    console = Console()
    where = ""
    if record is not None:
        where = f" on {record.env.get('hostname')}, {record.directory} ({record.env.get('fs_type') or 'fs ?'})"
    print_table(console, doc, where, doc.get("measured") or "")
    for line in verify_lines(rows):
        console.print(line, highlight=False)
    if record is not None:  # a striped file system's servers: their bytes per row, the placement's time
        print_servers(console, record.result.get("cases") or [])
        from pario.report.terminal.bench import where as placed
        from pario.report.terminal.nodes import print_aggregators
        if len((record.result.get("mpi") or {}).get("hosts") or []) > 1:   # the rows' aggregators, per node
            console.print(f"Ran on {placed(record.result.get('mpi') or {}, record.env)}.", highlight=False)
            print_aggregators(console, rows, record.env.get("io_component"))
    if run_id is not None:
        console.print(f"Stored as run {run_id} ({record.status}): pario results show {run_id}")




def _buffer_missing() -> str | None:
    """Why `pario buffer`'s preload library is not here (a preset's buffered rows need it), or None."""
    from pario.profile import run as prun
    try:
        prun.preload_path()
    except ParioError as exc:
        return str(exc)
    return None


class Buffered:
    """The cases of a preset that run under `pario buffer` (a [[case]]'s buffer = SIZE): in the same
    engine run as the others, with the preload library in the ranks' environment and a --files
    pattern per buffered case matching that case's data files only (DIR/PREFIX.CASE.*), so the
    other cases' files pass through it unbuffered. The stats the buffer writes say what it did."""

    def __init__(self, cases: list[dict], scratch: Scratch):
        from pario.buffer import run as brun
        from pario.profile import run as prun

        self.env: dict[str, str] = {}
        self.stats_dir = None
        self.cases = {i: c for i, c in enumerate(cases) if c.get("_buffer")}
        if not self.cases:
            return
        files = [(f"{scratch.dir}/{scratch.prefix}.{i}.*", int(c["_buffer"])) for i, c in self.cases.items()]
        self.stats_dir = brun.make_stats_dir()
        lib = prun.preload_path()
        self.env = brun.buffer_env(lib, max(s for _, s in files), files, str(self.stats_dir))
        self.env["LD_PRELOAD"] = prun.merged_preload(lib)

    def facts(self) -> dict:
        return {"buffered_cases": {c["name"]: int(c["_buffer"]) for c in self.cases.values()}} if self.cases else {}

    def notes(self, labels: dict[str, str]) -> list[str]:
        """One line per buffered case: the program's calls against the writes the file system saw."""
        if not self.cases or self.stats_dir is None:
            return []
        from pario.analysis.buffer_stats import docs_in, summarize
        from pario.model.units import human

        try:
            stats = summarize(docs_in(self.stats_dir))
        except ParioError as exc:
            return [f"pario buffer's stats could not be read: {exc}"]
        out = []
        for i, case in self.cases.items():
            mine = [f for f in stats.files if f".{i}." in f.path.rsplit("/", 1)[-1]]
            label = labels.get(case["name"], case["name"])
            if not mine:
                out.append(f"{label}: pario buffer left no stats for its files (the buffer may not have run)")
                continue
            calls, writes = sum(f.calls for f in mine), sum(f.sys_writes for f in mine)
            nbytes = sum(f.bytes for f in mine)
            out.append(f"{label}: the buffer ({human(int(case['_buffer']))} per file) turned "
                       f"{count(calls, 'write call')} ({human(nbytes)}) into {count(writes, 'write')} to the file "
                       "system (its stats, all repetitions)")
        return out

    def cleanup(self) -> None:
        if self.stats_dir is not None:
            from pario.buffer import run as brun
            brun.remove_stats_dir(self.stats_dir)


def _model(preset) -> dict | None:
    """pario predict's figure for each cell of the seed that its check predicts (the seed's system at
    the seed's scale, calibrated as benchmarks/predict/calibration.toml says)."""
    from pario.predict.seeds import UNITS, for_preset
    try:
        cells = for_preset(preset.name)
    except FileNotFoundError:  # a copy of pario without the seeds' rows: no model column
        return None
    unit = 1.0 if preset.unit == "s" else UNITS.get(preset.unit, 1.0)
    out = {}
    for key, row in cells.items():
        value = row.predicted
        if value is None:
            continue
        if row.unit != "s":  # a bandwidth, in the preset's unit
            value = value * UNITS[row.unit] / unit
        out[key] = {"value": value, "calibration": bool(row.calibrates), "system": row.system,
                    "flags": [f for f, _ in row.prediction.flags] if row.prediction else []}
    return out
