"""Presets (`pario bench --preset NAME`): the seeds' experiments as job files in examples/presets/,
each with the seed's table around its cases. Here: finding and reading them (one clear line for
any mistake in a file a user edited), deciding what this system can run (Lustre, nodes, ranks,
libraries, `pario buffer`), and sizing the cases to --scale or to the --time budget."""
from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from pario.model.case import MD_OPS, OPS, Case, case_bytes, md_files
from pario.model.errors import ParioError, did_you_mean
from pario.model.presets import RATIOS, Column, Preset, PresetPlan, Reading, Row, Skipped
from pario.model.units import exact, parse_size
from pario.plan import suites
from pario.plan.cases import build_case, normalise
from pario.plan.jobfile import JOB_FILE_LINES
from pario.plan.layers import INSTALL
from pario.platform import documents

# Keys of a [[case]] that belong to the preset, not to the engine case.
CASE_PRESET_KEYS = ("row", "column", "seed", "requires", "min_ranks", "buffer")
PRESET_KEYS = ("title", "seed", "shows", "setup", "unit", "row_header", "columns", "io", "ranks", "caveat")
READING_KEYS = ("text", "a", "b", "metric", "seed_ratio", "seed_text")
UNITS = ("MiB/s", "GiB/s", "MB/s")
REQUIREMENTS = ("lustre", "striping", "cray-mpich", "romio", "pario-buffer", "tree-layout", "nodes>=N", "ranks>=N")
STRIPED = ("lustre", "cephfs")  # the file systems pario creates files on with a layout (platform.layout)
_METRIC = re.compile(r"^(write|read|writes|speedup|ratio|note|(" + "|".join(OPS + MD_OPS) + r")_(time|rate))$")


def search_path() -> list[Path]:
    """Where presets are looked for: $PARIO_PRESETS (':'-separated), the copies installed with the
    package, and examples/presets of a source tree."""
    here = Path(__file__).resolve().parents[1]
    dirs = [Path(p) for p in os.environ.get("PARIO_PRESETS", "").split(os.pathsep) if p]
    return dirs + [here / "presets", here.parents[1] / "examples" / "presets"]


def available() -> dict[str, Path]:
    """{name: file} of every preset found, the first of a name winning."""
    found: dict[str, Path] = {}
    for directory in search_path():
        if directory.is_dir():
            for path in sorted(directory.glob("*.toml")):
                found.setdefault(path.stem, path)
    return found


def find(text: str) -> Path:
    """A preset by name, or a file (a copy the user edited)."""
    if text.endswith(".toml") or os.sep in text:
        path = Path(text)
        if not path.exists():  # anything else there (a directory, a device) is said by _read
            raise ParioError(f"--preset {text}: no such file; `pario bench --preset list` names the presets")
        return path
    known = available()
    if text not in known:
        names = ", ".join(known) or "none found (set PARIO_PRESETS to a directory of preset files)"
        raise ParioError(f"--preset {text}: unknown preset{did_you_mean(text, known)}; presets: {names}")
    return known[text]


def _read(path: Path) -> dict[str, Any]:
    """A preset file, untrusted like a job file: read bounded (size, lines, depth; platform.documents)."""
    text = documents.read_text(path, "--preset", max_lines=JOB_FILE_LINES)
    return documents.parse_toml(text, f"--preset {path}")


def _unknown(where: str, keys, known) -> None:
    for key in keys:
        if key not in known:
            raise ParioError(f"{where}: unknown key '{key}'{did_you_mean(key, known)}; known: {', '.join(known)}")


def _column(item: Any, where: str) -> Column:
    if isinstance(item, str):
        item = {"name": item, "metric": item}
    if not isinstance(item, dict) or "name" not in item:
        raise ParioError(f"{where}: a column is a name (\"write\") or a table {{ name = ..., metric = ... }}")
    _unknown(where, item, ("name", "metric", "of", "base"))
    col = Column(str(item["name"]), str(item.get("metric", item["name"])), item.get("of"), item.get("base"))
    if not _METRIC.match(col.metric):
        raise ParioError(f"{where}: column '{col.name}': metric '{col.metric}' is unknown; metrics: write, read, "
                         "writes, <op>_time, <op>_rate (op: a data or metadata phase), speedup, ratio, note")
    if col.metric in RATIOS and not (col.of and col.base):
        raise ParioError(f"{where}: column '{col.name}': {col.metric} needs of = METRIC and base = CASE")
    return col


def _requires(raw: Any, where: str) -> list[str]:
    if raw is not None and not isinstance(raw, (str, list)):
        raise ParioError(f"{where}: requires is a list of requirements, e.g. [\"lustre\"]")
    items = [raw] if isinstance(raw, str) else list(raw or [])
    for item in items:
        if not (item in REQUIREMENTS or re.match(r"^(nodes|ranks)>=\d+$", str(item))):
            raise ParioError(f"{where}: requirement '{item}' is unknown; known: {', '.join(REQUIREMENTS)}")
    return [str(i) for i in items]


def load(path: Path) -> Preset:
    """A preset file: [preset], [defaults], [[case]] (job keys plus row, column, seed, requires,
    min_ranks) and [[reading]] tables."""
    doc = _read(path)
    name = path.stem
    where = str(path)
    _unknown(where, doc, ("preset", "defaults", "case", "reading"))
    for key, kind in (("case", "[[case]]"), ("reading", "[[reading]]")):
        items = doc.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise ParioError(f"{where}: '{key}' must be {kind} tables")
    if not isinstance(doc.get("defaults", {}), dict):
        raise ParioError(f"{where}: 'defaults' must be a [defaults] table")
    head = doc.get("preset")
    if not isinstance(head, dict):
        raise ParioError(f"{where}: no [preset] table; a preset has [preset], [defaults] and [[case]] tables "
                         "(a plain job file runs with --config)")
    _unknown(f"{where} [preset]", head, PRESET_KEYS)
    unit = str(head.get("unit", "MiB/s"))
    if unit not in UNITS:
        raise ParioError(f"{where} [preset]: unit '{unit}' is unknown; use {', '.join(UNITS)}")
    raw_columns = head.get("columns", ["write", "read"])
    if not isinstance(raw_columns, list) or not raw_columns:
        raise ParioError(f"{where} [preset]: columns is a list, e.g. [\"write\", \"read\"]")
    columns = [_column(c, f"{where} [preset] columns") for c in raw_columns]
    names = [c.name for c in columns]
    defaults = normalise(dict(doc.get("defaults", {})), f"{where} [defaults]")
    rows: list[Row] = []
    cases: list[dict[str, Any]] = []
    for i, raw in enumerate(doc.get("case", [])):
        cw = f"{where} case {i + 1}"
        if not isinstance(raw, dict) or not raw.get("name"):
            raise ParioError(f"{cw}: every case of a preset needs a name (the readings and bases refer to it)")
        own = {k: raw[k] for k in CASE_PRESET_KEYS if k in raw}
        cols = own.get("column", names)
        if not isinstance(cols, (str, list)):
            raise ParioError(f"{cw}: column is a column's name or a list of them")
        cols = [cols] if isinstance(cols, str) else [str(c) for c in cols]
        bad = [c for c in cols if c not in names]
        seed = own.get("seed", {})
        if not isinstance(seed, dict):
            raise ParioError(f"{cw}: seed is a table of the seed's figure per column, e.g. seed = {{ write = 25.9 }}")
        bad += [c for c in seed if c not in names]
        if bad:
            raise ParioError(f"{cw}: column '{bad[0]}' is not one of the preset's columns ({', '.join(names)})")
        min_ranks = own.get("min_ranks", 1)
        if isinstance(min_ranks, bool) or not isinstance(min_ranks, int) or min_ranks < 1:
            raise ParioError(f"{cw}: min_ranks must be a positive integer")
        if any(not isinstance(v, (int, float, str)) or isinstance(v, bool) for v in seed.values()):
            raise ParioError(f"{cw}: a seed figure is a number or a short text")
        buffer = None
        if "buffer" in own:  # the case runs under `pario buffer` with buffers of this size
            try:
                buffer = parse_size(own["buffer"], "buffer")
            except ParioError:
                raise ParioError(f"{cw}: buffer = {own['buffer']!r}: give the buffer size, e.g. \"64m\"") from None
        requires = _requires(own.get("requires"), cw)
        if buffer and "pario-buffer" not in requires:
            requires.append("pario-buffer")
        if "pario-buffer" in requires and not buffer:
            raise ParioError(f"{cw}: requires pario-buffer: give the buffer size too, e.g. buffer = \"64m\"")
        rows.append(Row(case=str(raw["name"]), label=str(own.get("row", raw["name"])), columns=cols, seed=seed,
                        requires=requires, min_ranks=min_ranks, buffer=buffer))
        cases.append(normalise({k: v for k, v in raw.items() if k not in CASE_PRESET_KEYS}, cw))
    if not rows:
        raise ParioError(f"{where}: no [[case]] tables")
    case_names = [r.case for r in rows]
    if len(set(case_names)) != len(case_names):
        raise ParioError(f"{where}: case names must be unique (readings and bases refer to them)")
    for col in columns:
        if col.base and col.base not in case_names:
            raise ParioError(f"{where}: column '{col.name}': base '{col.base}' is not a case of this preset")
    readings = []
    for i, raw in enumerate(doc.get("reading", [])):
        rw = f"{where} reading {i + 1}"
        _unknown(rw, raw, READING_KEYS)
        missing = [k for k in ("text", "a", "b", "metric") if k not in raw]
        if missing:
            raise ParioError(f"{rw}: needs {', '.join(missing)}")
        for key in ("a", "b"):
            if raw[key] not in case_names:
                raise ParioError(f"{rw}: {key} = '{raw[key]}' is not a case{did_you_mean(raw[key], case_names)}")
        if not _METRIC.match(str(raw["metric"])) or raw["metric"] in RATIOS + ("note",):
            raise ParioError(f"{rw}: metric '{raw['metric']}' must be write, read, writes, <op>_time or <op>_rate")
        ratio = raw.get("seed_ratio")
        if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio <= 0):
            raise ParioError(f"{rw}: seed_ratio is a positive number (the seed's 'x times')")
        readings.append(Reading(str(raw["text"]), raw["a"], raw["b"], str(raw["metric"]),
                                float(ratio) if ratio is not None else None, str(raw.get("seed_text", ""))))
    ranks = head.get("ranks")
    if ranks is not None and ranks != "square" and not (isinstance(ranks, int) and ranks >= 1):
        raise ParioError(f"{where} [preset]: ranks is a positive number or \"square\"")
    return Preset(name=name, path=str(path), title=str(head.get("title", name)), seed=str(head.get("seed", "")),
                  shows=str(head.get("shows", "")), setup=str(head.get("setup", "")), unit=unit,
                  row_header=str(head.get("row_header", "case")), columns=columns, rows=rows, readings=readings,
                  defaults=defaults, cases=cases, io=head.get("io"), ranks=ranks, caveat=str(head.get("caveat", "")))


# ---- what this system has ----

def facts(fs_type: str | None, listing: dict[str, Any] | None, flavour: str, version: str,
          io: str | None, buffer: str | None = None) -> dict[str, Any]:
    """What requirements are judged against (the caller measures: fs type, engine listing, MPI,
    and `buffer`: why the preload library `pario buffer` runs with is missing, None if it is here)."""
    hosts = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or "1"
    return {"fs_type": fs_type or "unknown", "hosts": int(hosts) if hosts.isdigit() else 1,
            "flavour": flavour, "cray": "cray" in version.lower(), "io": io,
            "built": {b["name"]: b for b in (listing or {}).get("backends", [])},
            "buffer": buffer}


def unmet(token: str, facts_: dict[str, Any], ranks: int) -> str | None:
    """Why this system lacks what `token` asks for, or None when it has it."""
    fs = facts_["fs_type"]
    if token == "lustre" and fs != "lustre":
        return f"needs Lustre (the scratch directory is on {fs}): lfs setstripe sets what this row varies"
    if token == "striping" and fs not in STRIPED:
        return (f"needs a striped file system, Lustre or CephFS (the scratch directory is on {fs}): the row "
                "varies the layout its file is created with")
    if token == "cray-mpich" and not facts_["cray"]:
        return "needs Cray MPICH (its cray_cb_* MPI-IO hints)"
    if token == "romio" and facts_["flavour"] == "openmpi" and not str(facts_.get("io") or "").startswith("romio"):
        return "needs ROMIO to read its hints: add --io romio321 (Open MPI)"
    if token == "pario-buffer" and facts_.get("buffer"):
        return f"needs pario buffer's preload library: {facts_['buffer']}"
    if token == "tree-layout" and fs != "cephfs":
        return ("pario stripes a metadata tree on CephFS only so far; on Lustre: lfs setstripe -c -1 DIR, then "
                "pario bench --config examples/metadata-archer.toml --dir DIR")
    m = re.match(r"^(nodes|ranks)>=(\d+)$", token)
    if m and m.group(1) == "nodes" and facts_["hosts"] < int(m.group(2)):
        return f"needs {m.group(2)} nodes (this run has {facts_['hosts']}; per-node settings are one-node cases here)"
    if m and m.group(1) == "ranks" and ranks < int(m.group(2)):
        return f"needs at least {m.group(2)} ranks (-n {m.group(2)})"
    return None


def _why_skipped(row: Row, case: dict[str, Any], facts_: dict[str, Any], ranks: int) -> str | None:
    for token in row.requires + ([f"ranks>={row.min_ranks}"] if row.min_ranks > 1 else []):
        reason = unmet(token, facts_, ranks)
        if reason:
            return reason
    backend = str(case.get("backend", "posix")).lower()
    info = facts_["built"].get(backend)
    if facts_["built"] and (info is None or not info.get("built")):
        how = (info or {}).get("missing") or INSTALL.get(backend, "rebuild pario with its library")
        return f"the {backend} backend is not built: {INSTALL.get(backend, how)}"
    return None


# ---- sizes ----

def _round8(x: float) -> int:
    return max(8, int(x) // 8 * 8)


def scale_opts(opts: dict[str, Any], f: float) -> dict[str, Any]:
    """A case's keys with its data scaled by f: each rank's bytes (block x segments, subarray's first
    dimension, btio's grid by the cube root), or the metadata workload's files. A strided case keeps
    two segments at least; a transfer larger than the block shrinks to it. Sizes stay multiples of 8."""
    if f == 1:
        return dict(opts)
    out = dict(opts)
    if str(opts.get("workload", "data")) == "metadata":
        out["files_per_dir"] = max(1, round(int(opts.get("files_per_dir", 1000)) * f))
        return out
    pattern = str(opts.get("pattern", "segmented"))
    if pattern == "btio":
        grid = opts.get("grid")
        if grid is None:
            return out  # a class: its sizes are the class's
        dims = [grid] * 3 if isinstance(grid, int) else [int(d) for d in str(grid).lower().split("x")]
        out["grid"] = "x".join(str(max(1, round(d * f ** (1 / 3)))) for d in dims)
        return out
    if pattern == "subarray":
        dims = [int(d) for d in str(opts["dims"]).lower().split("x")]
        dims[0] = max(1, round(dims[0] * f))
        out["dims"] = "x".join(map(str, dims))
        return out
    block = parse_size(opts.get("block", "16m"), "block")
    transfer = parse_size(opts.get("transfer", "1m"), "transfer")
    segments = int(opts.get("segments", 1))
    if segments > 1 and round(segments * f) >= 2:
        out["segments"] = round(segments * f)
    elif segments > 1:
        out["segments"], block = 2, _round8(block * segments * f / 2)
    else:
        block = _round8(block * f)
    transfer = min(transfer, block)
    out["transfer"], out["block"] = transfer, block - block % transfer
    return out


def estimate_seconds(cases: list[Case], ranks: int, rate_mib: float) -> float:
    """A rough duration: bytes at rate_mib, 2 us per I/O call, 100 us per file per metadata phase."""
    total = 0.0
    for case in cases:
        phases = case.get("reps", 3) * len(case.get("ops", [])) + (0 if "write" in case.get("ops", []) else 1)
        moved = case_bytes(case, ranks)
        per = moved / (rate_mib * (1 << 20))
        if case.get("workload") == "metadata":
            per += md_files(case, ranks) * 1e-4
        elif case.get("xfer"):
            per += moved / case["xfer"] * 2e-6 / max(ranks, 1)
        total += phases * per
    return total


def ranks_for(preset: Preset, requested: int | None, cpus: int) -> tuple[int, str]:
    """(ranks, a note when the preset decided them)."""
    if isinstance(preset.ranks, int):
        many = preset.ranks != 1
        note = (f"the seed's experiment has {preset.ranks if many else 'one'} writer{'s' if many else ''}: "
                f"running {preset.ranks} rank{'s' if many else ''}"
                + (f" (-n {requested} does not apply)" if requested not in (None, preset.ranks) else ""))
        return preset.ranks, note
    if preset.ranks == "square" and requested is None:
        n = 4 if cpus <= 4 else math.isqrt(cpus) ** 2
        return n, f"BTIO needs a square number of ranks: running {n} (-n sets it: 1, 4, 9, 16, ...)"
    return (requested if requested is not None else cpus), ""


def _size(n: int | None) -> str:
    text = exact(n or 0, "GMk")
    return text + " B" if text.isdigit() else text


def _label(row: Row | str, case: Case, ranks: int) -> str:
    fill = {"transfer": _size(case.get("xfer")), "block": _size(case.get("block")),
            "grid": "x".join(map(str, case.get("grid_points") or [])), "steps": str(case.get("steps", "")),
            "dims": "x".join(map(str, case.get("ldims") or [])), "file_size": _size(case.get("file_size")),
            "files": str(md_files(case, ranks)) if case.get("workload") == "metadata" else ""}
    text = row if isinstance(row, str) else row.label
    try:
        return text.format(**fill)
    except (KeyError, IndexError, ValueError):
        return text


def plan(preset: Preset, ranks: int, scale: float, facts_: dict[str, Any], reps: int | None = None, *,
         storage: bool, drop_caches: str | None = None) -> PresetPlan:
    """The cases this system runs at this scale, and the rows it leaves out with the reason.
    storage (suites.measures_storage: bench's default, --cache turns it off): each row's writes
    synced inside the timed phase and its reads of evicted files, as bench's suites, unless the
    seed's row says fsync itself; drop_caches: --drop-caches given, the command line evicts instead."""
    cases, skipped, labels, header = [], [], {}, preset.row_header
    for row, raw in zip(preset.rows, preset.cases):
        opts = suites.storage_keys({**preset.defaults, **raw}, storage)
        if reps is not None:
            opts["reps"] = reps
        case = build_case(scale_opts(opts, scale), f"{preset.path} ('{row.case}')")
        case["name"] = row.case
        if row.buffer:
            case["_buffer"] = row.buffer   # pario's key (not the engine's): the run preloads the buffer
        labels[row.case] = _label(row, case, ranks)
        if row is preset.rows[0]:
            header = _label(preset.row_header, case, ranks)
        reason = _why_skipped(row, case, facts_, ranks)
        if reason:
            skipped.append(Skipped(row.case, labels[row.case], reason))
        else:
            cases.append(case)
    if storage:
        suites.evict_reads(cases, drop_caches)
    return PresetPlan(preset=preset, cases=cases, skipped=skipped, ranks=ranks, scale=scale, labels=labels,
                      row_header=header)


def choose_scale(preset: Preset, ranks: int, facts_: dict[str, Any], budget_s: float, rate_mib: float,
                 reps: int | None = None) -> float:
    """The largest power of two, at most 1, whose runnable cases fit the time budget (down to 1/4096);
    rate_mib: suites.storage_rate, the pace of what is measured."""
    scale = 1.0
    while scale > 1 / 4096:
        sized = plan(preset, ranks, scale, facts_, reps, storage=False).cases   # sizes only: rate_mib is the pace
        if estimate_seconds(sized, ranks, rate_mib) <= budget_s:
            break
        scale /= 2
    return scale
