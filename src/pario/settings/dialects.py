"""Each dialect a setting is spoken in (the library ones in lib_dialects.py), rendered from one
Settings object and parsed back into one:
MPI_Info (the engine's JSON `hints`), a ROMIO_HINTS file, Open MPI `--mca` flags and OMPI_MCA_
environment, Cray's MPICH_MPIIO_HINTS, an `lfs setstripe` command, ADIOS2 XML, HDF5 calls and
PnetCDF's PNETCDF_HINTS. parse(render(s)) gives back what the dialect can carry of s.

Where one setting has two spellings the renderers translate: the striping hints and the Lustre
layout (a simple layout is striping_factor/striping_unit/start_iodevice), and the OMPIO info keys
and their MCA parameters (knobs.HINT_TO_MCA)."""
from __future__ import annotations

import json
import shlex
from typing import Callable

from ..errors import ParioError
from . import knobs
from .model import Issue, Settings, build

_LAYOUT_HINTS = {"stripe_count": "striping_factor", "stripe_size": "striping_unit", "stripe_index": "start_iodevice"}


# ---- cross-spellings ---------------------------------------------------------------------------

def layout_of(settings: Settings) -> list[dict[str, str]]:
    """The Lustre layout asked for: explicit, else the one the striping hints ask for."""
    if settings.layout:
        return settings.layout
    comp = {lk: settings.hints[h] for lk, h in _LAYOUT_HINTS.items() if h in settings.hints}
    comp = {k: v for k, v in comp.items() if not (k == "stripe_index" and v == "-1")}
    return [comp] if comp else []


def hints_of(settings: Settings) -> dict[str, str]:
    """The MPI_Info hints, plus striping hints for a simple (one-component) layout."""
    out = dict(settings.hints)
    if len(settings.layout) == 1:
        for lk, hint in _LAYOUT_HINTS.items():
            if lk in settings.layout[0]:
                out.setdefault(hint, settings.layout[0][lk])
    return out


def mca_of(settings: Settings) -> dict[str, str]:
    out = {m: v for h, m in knobs.HINT_TO_MCA.items() if (v := hints_of(settings).get(h)) is not None}
    if hints_of(settings).get("collective_buffering") == "false":
        out["fcoll"] = "individual"
    out.update(settings.mca)
    return out


def _human(n: str) -> str:
    value = int(n)
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value and value % scale == 0:
            return f"{value // scale}{unit}"
    return str(value)


# ---- MPI_Info / ROMIO_HINTS --------------------------------------------------------------------

def render_info(s: Settings, **_) -> str:
    return json.dumps(dict(sorted(hints_of(s).items())), indent=1)


def parse_info(text: str) -> tuple[Settings, list[Issue]]:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ParioError(f"not a JSON object of hints ({exc})") from None
    if not isinstance(doc, dict):
        raise ParioError("not a JSON object of hints")
    if isinstance(doc.get("hints"), dict):  # an engine case or a result's hints block
        doc = doc["hints"].get("requested", doc["hints"]) if "requested" in doc["hints"] else doc["hints"]
    return build((str(k), str(v)) for k, v in doc.items())


def render_romio(s: Settings, **_) -> str:
    lines = ["# ROMIO hints file: export ROMIO_HINTS=/path/to/this/file (MPI_Info set by the program wins)"]
    lines += [f"{k} {v}" for k, v in sorted(hints_of(s).items())]
    return "\n".join(lines) + "\n"


def romio_pairs(text: str) -> list[tuple[int, str, str]]:
    """(line number, key, value) of a ROMIO hints file; a malformed line gives key '' (value: the line)."""
    out = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or "=" in parts[0]:
            out.append((lineno, "", raw.strip()))
        else:
            out.append((lineno, parts[0], parts[1].strip()))
    return out


def parse_romio(text: str) -> tuple[Settings, list[Issue]]:
    pairs = romio_pairs(text)
    bad = [Issue("error", f"line {n}", f"line {n}: expected 'key value', got {v!r}") for n, k, v in pairs if not k]
    settings, issues = build((k, v) for _, k, v in pairs if k)
    return settings, bad + issues


# ---- Open MPI ----------------------------------------------------------------------------------

def render_ompi(s: Settings, **_) -> str:
    return " ".join(f"--mca {k} {shlex.quote(v)}" for k, v in sorted(mca_of(s).items()))


def parse_ompi(text: str) -> tuple[Settings, list[Issue]]:
    words = shlex.split(text)
    pairs, issues, i = [], [], 0
    while i < len(words):
        if words[i] in ("--mca", "-mca", "--gmca", "-gmca") and i + 2 < len(words):
            pairs.append((f"mca.{words[i + 1]}", words[i + 2]))
            i += 3
        else:
            issues.append(Issue("error", words[i], f"'{words[i]}' is not part of --mca NAME VALUE"))
            i += 1
    settings, more = build(pairs)
    return settings, issues + more


def render_ompi_env(s: Settings, **_) -> str:
    return "".join(f"export OMPI_MCA_{k}={shlex.quote(v)}\n" for k, v in sorted(mca_of(s).items()))


def parse_ompi_env(text: str) -> tuple[Settings, list[Issue]]:
    pairs, issues = [], []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        line = line[len("export "):] if line.startswith("export ") else line
        name, sep, value = line.partition("=")
        if not sep or not name.startswith("OMPI_MCA_"):
            issues.append(Issue("error", name, f"{raw.strip()!r} is not OMPI_MCA_NAME=VALUE"))
            continue
        pairs.append((f"mca.{name[len('OMPI_MCA_'):]}", (shlex.split(value) or [""])[0]))
    settings, more = build(pairs)
    return settings, issues + more


# ---- Cray MPICH --------------------------------------------------------------------------------

def render_cray(s: Settings, pattern: str = "*", **_) -> str:
    # A value holding ':' or ',' (cb_config_list) is wrapped in #...# (anchors-tuning.md (c)).
    parts = [f"{k}=#{v}#" if (":" in v or "," in v) else f"{k}={v}" for k, v in sorted(hints_of(s).items())]
    return f"export MPICH_MPIIO_HINTS={shlex.quote(':'.join([pattern] + parts))}\n" if parts else ""


def _split_outside_hashes(text: str, sep: str) -> list[str]:
    out, cur, inside = [], "", False
    for ch in text:
        if ch == "#":
            inside = not inside
        if ch == sep and not inside:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def cray_patterns(text: str) -> dict[str, dict[str, str]]:
    """{file pattern: {key: value}} of an MPICH_MPIIO_HINTS value (or an `export` line of it)."""
    text = text.strip()
    if "MPICH_MPIIO_HINTS=" in text:
        text = text.split("MPICH_MPIIO_HINTS=", 1)[1]
    text = (shlex.split(text) or [""])[0]
    out: dict[str, dict[str, str]] = {}
    for group in _split_outside_hashes(text, ","):
        fields = _split_outside_hashes(group, ":")
        pattern = fields[0] or "*"  # ARCHER2's ':key=v' means every file
        for f in fields[1:]:
            key, _, value = f.partition("=")
            out.setdefault(pattern, {})[key.strip()] = value.strip().strip("#")
    return out


def parse_cray(text: str, pattern: str = "*") -> tuple[Settings, list[Issue]]:
    groups = cray_patterns(text)
    pairs = [kv for p, kvs in groups.items() if p == pattern or pattern == "*" for kv in kvs.items()]
    return build(pairs)


# ---- lfs setstripe -----------------------------------------------------------------------------

_LFS = {"stripe_count": "-c", "overstripe_count": "-C", "stripe_size": "-S", "stripe_index": "-i",
        "ost_list": "-o", "pool": "-p"}
_LFS_LONG = {"--stripe-count": "-c", "--overstripe-count": "-C", "--stripe-size": "-S", "--stripe-index": "-i",
             "--ost": "-o", "--ost-list": "-o", "--pool": "-p", "--component-end": "-E", "--layout": "-L",
             "-s": "-S"}


def render_lfs(s: Settings, path: str = "DIR", **_) -> str:
    layout = layout_of(s)
    if not layout:
        return ""
    argv = ["lfs", "setstripe"]
    for comp in layout:
        if "extent_end" in comp:
            end = comp["extent_end"]
            argv += ["-E", end if end in ("-1", "eof") else _human(end)]
        if comp.get("mdt") == "true":
            argv += ["-L", "mdt"]
        for key, flag in _LFS.items():
            if key in comp:
                argv += [flag, _human(comp[key]) if key == "stripe_size" else comp[key]]
    return shlex.join(argv + [path]) + "\n"


def parse_lfs(text: str) -> tuple[Settings, list[Issue]]:
    words = shlex.split(text.strip())
    if words[:2] != ["lfs", "setstripe"]:
        raise ParioError("expected an `lfs setstripe ...` command")
    words = words[2:]
    comps: list[dict[str, str]] = [{}]
    flags = {v: k for k, v in _LFS.items()}
    issues, i = [], 0
    while i < len(words):
        flag = _LFS_LONG.get(words[i], words[i])
        if flag in ("-E", "-L", *flags) and i + 1 < len(words):
            value = words[i + 1]
            if flag == "-E":
                if comps[-1]:
                    comps.append({})
                comps[-1]["extent_end"] = value if value in ("-1", "eof") else value
            elif flag == "-L":
                comps[-1]["mdt"] = "true" if value == "mdt" else value
            else:
                comps[-1][flags[flag]] = value
            i += 2
        elif i == len(words) - 1 and not words[i].startswith("-"):
            i += 1  # the path
        else:
            issues.append(Issue("error", words[i], f"lfs setstripe option {words[i]!r} is not understood"))
            i += 1
    pre = (lambda n: "lustre.") if len(comps) == 1 else (lambda n: f"lustre.{n}.")
    pairs = [(pre(n) + k, v) for n, comp in enumerate(comps) for k, v in comp.items()]
    settings, more = build(pairs)
    return settings, issues + more


# The library dialects live in lib_dialects.py, which needs hints_of above.
from .lib_dialects import parse_adios2, parse_hdf5, parse_pnetcdf, render_adios2, render_hdf5, render_pnetcdf  # noqa: E402

DIALECTS: dict[str, tuple[Callable, Callable, str]] = {
    "info": (render_info, parse_info, "MPI_Info as the engine's JSON `hints` object"),
    "romio": (render_romio, parse_romio, "a ROMIO_HINTS file (MPICH, Intel MPI, Open MPI romio321)"),
    "ompi": (render_ompi, parse_ompi, "Open MPI --mca flags (OMPIO reads these, not ROMIO hints)"),
    "ompi-env": (render_ompi_env, parse_ompi_env, "Open MPI OMPI_MCA_ environment"),
    "cray": (render_cray, parse_cray, "HPE Cray MPICH_MPIIO_HINTS"),
    "lfs": (render_lfs, parse_lfs, "an lfs setstripe command (layout at creation)"),
    "adios2": (render_adios2, parse_adios2, "ADIOS2 XML with the BP5 parameters"),
    "hdf5": (render_hdf5, parse_hdf5, "HDF5 property-list calls"),
    "pnetcdf": (render_pnetcdf, parse_pnetcdf, "PNETCDF_HINTS environment"),
}


def render(settings: Settings, dialect: str, **opts) -> str:
    if dialect not in DIALECTS:
        from ..hints import did_you_mean
        raise ParioError(f"unknown dialect '{dialect}'{did_you_mean(dialect, DIALECTS)}; "
                         f"choose one of {', '.join(DIALECTS)}")
    return DIALECTS[dialect][0](settings, **opts)


def parse(text: str, dialect: str) -> tuple[Settings, list[Issue]]:
    if dialect not in DIALECTS:
        raise ParioError(f"unknown dialect '{dialect}'; choose one of {', '.join(DIALECTS)}")
    return DIALECTS[dialect][1](text)


def sniff(text: str) -> str:
    """The dialect a file is written in, from its content."""
    body = text.strip()
    if body.startswith("{"):
        return "info"
    if body.startswith("<"):
        return "adios2"
    if "MPICH_MPIIO_HINTS" in body:
        return "cray"
    if "PNETCDF_HINTS" in body:
        return "pnetcdf"
    if "OMPI_MCA_" in body:
        return "ompi-env"
    if body.startswith("lfs "):
        return "lfs"
    if "--mca" in body.split() or "-mca" in body.split():
        return "ompi"
    if "H5Pset_" in body:
        return "hdf5"
    return "romio"
