"""One engine case (schemas/spec.schema.json) from the keys that flags and job files share: the
keys, their aliases, and the case they make (data or metadata workload) with its label.
Sizes are powers of 1024, like IOR ("4k", "1m", "2g")."""
from __future__ import annotations

import re
from typing import Any

from pario.model.case import MD_OPS, OPS, Case
from pario.model.errors import ParioError, did_you_mean
from pario.model.units import MIB, exact, parse_size
from pario.plan import inputs
from pario.platform import documents
from pario.settings import hints as hintlib

# Keys of a case, shared by the flags and the [defaults]/[[case]] tables of a job file: the typed
# rows of plan/inputs.py, which convert and check every value.
CASE_KEYS = {name: row.doc for name, row in inputs.CASE.items()}
# Keys that only the metadata workload takes, and the data-only keys it must not be given.
MD_KEYS = ("files_per_dir", "file_size", "depth", "branching", "per_rank_dirs")
DATA_ONLY = ("strategy", "aggregate", "pattern", "transfer", "block", "segments", "dims", "collective", "view",
             "fsync", "odirect", "keep", "read_check", "reorder", "hints", "hints_file", "buffer_max", "lib",
             "btio_class", "grid", "steps", "fsync_per_write", "deadline", "wearout", "unique_dir", "use_existing",
             "max_time")
BTIO_KEYS = ("btio_class", "grid", "steps")
# NAS BT's classes: grid points per dimension, and BTIO's records (a write every 5th of the class's
# time steps: niter_default / wr_default in NPB's BT).
BTIO_CLASSES = {"S": (12, 12), "W": (24, 40), "A": (64, 40), "B": (102, 40), "C": (162, 40), "D": (408, 50),
                "E": (1020, 50)}
PATTERNS = ("segmented", "subarray", "random", "btio")
_ALIASES = inputs.ALIASES
DEFAULT_FILES_PER_DIR = 1000
DEFAULT_TRANSFER = MIB
DEFAULT_BLOCK = 16 * MIB
DEFAULT_REPS = 3


def ior_keys(opts: dict[str, Any], where: str) -> dict[str, Any]:
    """IOR's -Y, -D (+ wear-out), -u, -E, -T as the engine's keys (only those given): -D in seconds
    and -T in minutes become whole micro- and milliseconds."""
    out: dict[str, Any] = {}
    for key in ("fsync_per_write", "wearout", "unique_dir", "use_existing"):
        if _bool(opts.get(key, False), key, where):
            out[key] = True
    if opts.get("deadline"):
        out["deadline_us"] = max(1, round(float(opts["deadline"]) * 1e6))
    if opts.get("max_time"):
        out["max_time_ms"] = max(1, round(float(opts["max_time"]) * 60e3))
    return out


def parse_dims(text: Any, flag: str = "--dims", what: str = "the local block as NxNxN elements") -> list[int]:
    if isinstance(text, (list, tuple)):
        parts = list(text)
    else:
        parts = str(text).lower().replace(" ", "").split("x")
    try:
        dims = [int(p) for p in parts]
    except (TypeError, ValueError):
        raise ParioError(f"{flag} {inputs.shown(text)}: write {what}, e.g. 64x64x64") from None
    if not dims or len(dims) > 8 or any(d < 1 for d in dims):
        raise ParioError(f"{flag} {inputs.shown(text)}: 1 to 8 positive dimensions, e.g. 64x64x64")
    return dims


def parse_strategy(text: str):
    """'nfiles:4' -> ('nfiles', 4); 'per-node' -> ('pernode', None)."""
    s = str(text).strip().lower()
    if s in ("per-node", "pernode", "node"):
        return "pernode", None
    if s.startswith("nfiles"):
        _, _, k = s.partition(":")
        if not k.strip().isdigit():
            raise ParioError(f"--strategy {inputs.shown(str(text))}: write nfiles:K with K files, e.g. nfiles:2")
        return "nfiles", int(k)
    if s in ("serial", "fpp", "shared"):
        return s, None
    raise ParioError(f"--strategy {inputs.shown(str(text))}: unknown; choose serial, fpp, shared, nfiles:K or per-node"
                     + did_you_mean(s, ["serial", "fpp", "shared", "nfiles", "per-node"]))


def _bool(value, key, where):
    if isinstance(value, bool):
        return value
    raise ParioError(f"{where}: '{key}' must be true or false, got {value!r}")


def _int(value, key, where):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return int(str(value), 0)
        except ValueError:
            raise ParioError(f"{where}: '{key}' must be an integer, got {value!r}") from None
    return value


def normalise(opts: Any, where: str) -> Case:
    """Resolve aliases, reject unknown keys (with a did-you-mean) and convert every value by its row
    (plan/inputs.py): a bad value in a file is refused even where a flag would override it."""
    if not isinstance(opts, dict):
        raise ParioError(f"{where}: must be a table of keys (e.g. reps = 3), not {inputs.shown(opts)}")
    out = {}
    for given, value in opts.items():
        key = _ALIASES.get(str(given), str(given)).replace("-", "_")
        if key not in CASE_KEYS:
            raise ParioError(f"{where}: unknown key '{inputs.shown(key)[1:-1]}'{did_you_mean(key, CASE_KEYS)}; "
                             f"known keys: {', '.join(CASE_KEYS)}")
        if key in out:
            raise ParioError(f"{where}: '{key}' is given twice (once by an alias); keep one")
        out[key] = inputs.convert(inputs.CASE[key], value, f"{where}: {key} =")
    return out


def build_case(opts: dict[str, Any], where: str = "command line") -> Case:
    """One engine case dict from normalised options. The private key '_where' says where the case
    came from so that validation messages can name it; it is dropped before the spec is written."""
    try:
        return _build_case(opts, where)
    except ParioError as exc:  # a job file's problem names the file and the case
        if where == "command line" or str(exc).startswith(where.split(" ")[0]):
            raise
        raise ParioError(f"{where}: {exc}", exc.exit_code) from None


def _build_case(opts: dict[str, Any], where: str) -> Case:
    workload = str(opts.get("workload", "data")).lower()
    if workload == "metadata":
        return build_metadata_case(opts, where)
    if workload != "data":
        raise ParioError(f"{where}: workload '{workload}' is unknown; choose data or metadata")
    given = [k for k in MD_KEYS if k in opts]
    if given:
        raise ParioError(f"{where}: '{given[0]}' applies to the metadata workload only; add --metadata "
                         "(workload = \"metadata\" in a job file) or drop it")
    backend = str(opts.get("backend", "posix")).lower()
    strategy, nfiles = parse_strategy(opts.get("strategy", "shared"))
    pattern = str(opts.get("pattern", "segmented")).lower()
    case: dict[str, Any] = {"name": "", "backend": backend, "strategy": strategy, "pattern": pattern}
    if nfiles is not None:
        case["nfiles"] = nfiles
    case["aggregate"] = _bool(opts.get("aggregate", False), "aggregate", where)

    if "ops" in opts:
        ops = opts["ops"]
        if isinstance(ops, str):
            ops = [o for o in re.split(r"[,+ ]+", ops) if o]
        bad = [o for o in ops if o not in OPS]
        if bad:
            raise ParioError(f"{where}: unknown op '{bad[0]}'; ops are write, read, verify")
    else:
        chosen = {o for o in OPS if _bool(opts.get(o, False), o, where)}
        ops = [o for o in OPS if o in chosen] if chosen else ["write", "read"]
    case["ops"] = [o for o in OPS if o in ops]
    case["reps"] = _int(opts.get("reps", DEFAULT_REPS), "reps", where)

    given_btio = [k for k in BTIO_KEYS if k in opts]
    if given_btio and pattern != "btio":
        raise ParioError(f"{where}: '{given_btio[0]}' applies to --pattern btio only")
    if pattern == "btio":
        case.update(btio_geometry(opts, where))
    elif pattern == "subarray":
        if "dims" in opts:
            case["ldims"] = parse_dims(opts["dims"])
            local = 8
            for d in case["ldims"]:
                local *= d
            # through a view, one call per MiB when it divides the block, else one call for all
            case["xfer"] = (parse_size(opts["transfer"], "transfer") if "transfer" in opts
                            else MIB if local % MIB == 0 else local)
        elif "transfer" in opts:
            case["xfer"] = parse_size(opts["transfer"], "transfer")
    else:
        if "dims" in opts:
            raise ParioError(f"{where}: --dims applies to --pattern subarray only")
        block = parse_size(opts["block"], "block") if "block" in opts else None
        xfer = parse_size(opts["transfer"], "transfer") if "transfer" in opts else None
        if xfer is None:
            xfer = min(DEFAULT_TRANSFER, block) if block else DEFAULT_TRANSFER
        if block is None:
            block = max(DEFAULT_BLOCK - DEFAULT_BLOCK % xfer, xfer)
        case["xfer"], case["block"] = xfer, block
        case["segments"] = _int(opts.get("segments", 1), "segments", where)

    for key in ("collective", "view", "fsync", "odirect", "keep"):
        case[key] = _bool(opts.get(key, False), key, where)
    if "read_check" in opts:  # given only when asked: the engine checks timed reads by default
        case["read_check"] = _bool(opts["read_check"], "read_check", where)
    case.update(ior_keys(opts, where))
    if "view" not in opts and pattern == "subarray" and case["collective"]:
        case["view"] = True  # subarray collective is the benchio case: through a view
    if pattern == "btio" and "view" not in opts:
        case["view"] = True  # BTIO's cells are a file view, collective or independent (its methods 0 and 1)
    reorder = opts.get("reorder", 0)
    case["reorder"] = -1 if str(reorder).lower() == "host" else _int(reorder, "reorder", where)
    if "seed" in opts:
        case["seed"] = _int(opts["seed"], "seed", where)
    if "buffer_max" in opts:
        case["buffer_max"] = parse_size(opts["buffer_max"], "buffer_max")

    hints: dict[str, str] = {}
    if opts.get("hints_file"):
        hints.update(read_hints_file(str(opts["hints_file"])))
    raw = opts.get("hints") or {}
    if isinstance(raw, dict):
        items = [(str(k), str(v).lower() if isinstance(v, bool) else str(v)) for k, v in raw.items()]
    else:
        items = [hintlib.parse_pair(str(p)) for p in raw]
    hints.update(items)  # like ROMIO: hints given explicitly win over the file's
    if hints:
        case["hints"] = hints
    lib = parse_lib(opts.get("lib"), where)
    if lib:
        case["lib"] = lib
    layout = layout_request(opts, where)
    if layout:
        case["_layout"] = layout
    case["name"] = str(opts["name"]) if opts.get("name") else case_label(case)
    case["_where"] = where
    return case


HINTS_FILE_LINES = 10000  # a hints file holds at most 64 hints (the engine's limit) and their comments


def read_hints_file(path: str) -> dict[str, str]:
    """A ROMIO hints file, read bounded (platform.documents) and checked line by line."""
    text = documents.read_text(path, "hints file", max_lines=HINTS_FILE_LINES)
    if not text.strip():   # a file truncated by mistake (`> romio.txt`): it would set nothing, silently
        raise ParioError(f"hints file {path} is empty: it sets no hint; give a file of `key value` lines, or drop "
                         "--hints-file")
    return hintlib.parse_hints_text(text, path)


def btio_geometry(opts: dict[str, Any], where: str) -> dict[str, Any]:
    """grid_points and steps of a btio case: from its class, overridden by grid and steps."""
    for key in ("transfer", "block", "segments", "dims"):
        if key in opts:
            raise ParioError(f"{where}: '{key}' does not apply to --pattern btio (a call is one step of a rank's "
                             "cells); size it with --class, --grid or --steps")
    klass = str(opts.get("btio_class", "S" if "grid" not in opts else "")).upper()
    if klass and klass not in BTIO_CLASSES:
        raise ParioError(f"{where}: --class {opts['btio_class']}: NAS classes are {', '.join(BTIO_CLASSES)}"
                         f"{did_you_mean(klass, BTIO_CLASSES)}")
    points, steps = BTIO_CLASSES[klass] if klass else (0, 1)
    grid = [points] * 3
    if "grid" in opts:
        raw = opts["grid"]
        grid = [raw] * 3 if isinstance(raw, int) else parse_dims(raw, "--grid", "the grid points as XxYxZ")
        if len(grid) == 1:
            grid *= 3
        if len(grid) != 3:
            raise ParioError(f"{where}: --grid {opts['grid']!r}: give x, y and z points, e.g. 64x64x64")
    if "steps" in opts:
        steps = _int(opts["steps"], "steps", where)
        if steps < 1:
            raise ParioError(f"{where}: --steps {steps}: give at least 1 record")
    return {"grid_points": grid, "steps": steps}


def parse_lib(raw: Any, where: str) -> dict[str, str]:
    """Library settings from a TOML table or from --lib KEY=VALUE strings; values become strings
    (booleans as true/false) as the engine reads them."""
    if not raw:
        return {}
    if isinstance(raw, dict):
        pairs = list(raw.items())
    else:
        pairs = []
        for item in raw:
            key, sep, value = str(item).partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ParioError(f"{where}: --lib {item!r}: write KEY=VALUE, e.g. --lib alignment=1m")
            pairs.append((key.strip(), value.strip()))
    out: dict[str, str] = {}
    for key, value in pairs:
        if isinstance(value, (dict, list)):
            raise ParioError(f"{where}: lib setting '{key}' must be a string, number or boolean")
        out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def build_metadata_case(opts: dict[str, Any], where: str) -> Case:
    """A metadata (mdtest-like) case: POSIX create/stat/open_close/read_small/remove of small files."""
    backend = str(opts.get("backend", "posix")).lower()
    if backend != "posix":
        raise ParioError(f"{where}: the metadata workload runs POSIX calls; drop -a {backend} (or give -a posix)")
    bad = [k for k in DATA_ONLY if opts.get(k) not in (None, False, {}, [])]
    if any(opts.get(o) for o in OPS):
        bad.insert(0, "-w/-r/-W")
    if bad:
        raise ParioError(f"{where}: '{bad[0]}' does not apply to the metadata workload (it has no transfers, "
                         "keeps nothing and takes no hints or lib settings); drop it, and choose phases with "
                         "--md-ops " + ",".join(MD_OPS))
    case: dict[str, Any] = {"name": "", "workload": "metadata", "backend": "posix"}
    ops = opts.get("ops", list(MD_OPS))
    if isinstance(ops, str):
        ops = [o for o in re.split(r"[,+ ]+", ops) if o]
    unknown = [o for o in ops if o not in MD_OPS]
    if unknown or not ops:
        raise ParioError(f"{where}: metadata op '{unknown[0] if unknown else ''}' is unknown"
                         f"{did_you_mean(unknown[0], MD_OPS) if unknown else ''}; "
                         f"choose from {', '.join(MD_OPS)}")
    case["ops"] = [o for o in MD_OPS if o in ops]  # the engine runs them in this order
    case["reps"] = _int(opts.get("reps", DEFAULT_REPS), "reps", where)
    case["files_per_dir"] = _int(opts.get("files_per_dir", DEFAULT_FILES_PER_DIR), "files_per_dir", where)
    size = opts.get("file_size", 0)
    case["file_size"] = 0 if size in (0, "0") else parse_size(size, "file_size")
    case["depth"] = _int(opts.get("depth", 0), "depth", where)
    case["branching"] = _int(opts.get("branching", 1), "branching", where)
    case["shared_dir"] = not _bool(opts.get("per_rank_dirs", False), "per_rank_dirs", where)
    if "seed" in opts:
        case["seed"] = _int(opts["seed"], "seed", where)
    layout = layout_request(opts, where)
    if layout:  # set on the tree's top directory: every file made below it inherits it
        case["_layout"] = layout
    case["name"] = str(opts["name"]) if opts.get("name") else metadata_label(case)
    case["_where"] = where
    return case


def metadata_label(case: Case) -> str:
    parts = ["md", "shared" if case["shared_dir"] else "per-rank", f"{case['files_per_dir']}f"]
    if case["depth"]:
        parts.append(f"d{case['depth']}b{case['branching']}")
    if case["file_size"]:
        parts.append(exact(case["file_size"]))
    parts += [f"sc{c['stripe_count']}" for c in case.get("_layout") or [] if "stripe_count" in c]
    return "-".join(parts)


LAYOUT_KEYS = {"stripe_count": "lustre.stripe_count", "stripe_size": "lustre.stripe_size",
               "object_size": "ceph.object_size"}


def layout_request(opts: dict[str, Any], where: str) -> list[dict[str, str]]:
    """The layout the case's files are to be created with (--stripe-count, --stripe-size,
    --object-size; the same keys in a job file), checked by the settings model as `--set` is."""
    pairs = [(key, str(parse_size(opts[k], k) if k != "stripe_count" else opts[k]))
             for k, key in LAYOUT_KEYS.items() if opts.get(k) is not None]
    if not pairs:
        return []
    from pario.settings.model import build
    settings, issues = build(pairs, syntax="pario")
    if issues:
        flag = {v: k for k, v in LAYOUT_KEYS.items()}
        first = issues[0]
        named = "--" + flag.get(first.key, first.key).replace("_", "-")
        raise ParioError(f"{where}: {first.message.replace(first.key, named)}")
    return settings.layout


def case_label(case: Case) -> str:
    strat = f"nfiles{case['nfiles']}" if case["strategy"] == "nfiles" else case["strategy"]
    parts = [strat + ("-agg" if case.get("aggregate") and strat != "serial" else ""), case["backend"]]
    if case.get("collective"):
        parts.append("coll")
    if case.get("view"):
        parts.append("view")
    if (case.get("lib") or {}).get("mode"):
        parts.append(case["lib"]["mode"])  # pnetcdf iput/bput: the layer's own way of moving data
    if case["pattern"] != "segmented":
        parts.append(case["pattern"])
    elif case.get("segments", 1) > 1:
        parts.append(f"s{case['segments']}")
    for comp in case.get("_layout") or []:  # stripes: Lustre's and CephFS's stripe count
        if "stripe_count" in comp:
            parts.append(f"sc{comp['stripe_count']}")
    return "-".join(parts)


def unique_names(cases: list[Case]) -> None:
    seen: dict[str, int] = {}
    for case in cases:
        n = seen.get(case["name"], 0)
        seen[case["name"]] = n + 1
        if n:
            case["name"] = f"{case['name']}#{n + 1}"
