"""Each dialect a setting is spoken in, rendered from one Settings object and parsed back into one:
MPI_Info (the engine's JSON `hints`), a ROMIO_HINTS file, Open MPI `--mca` flags and OMPI_MCA_
environment, Cray's MPICH_MPIIO_HINTS, an `lfs setstripe` command, ADIOS2 XML, HDF5 calls and
PnetCDF's PNETCDF_HINTS. parse(render(s)) gives back what the dialect can carry of s.

Where one setting has two spellings the renderers translate: the striping hints and the Lustre
layout (a simple layout is striping_factor/striping_unit/start_iodevice), and the OMPIO info keys
and their MCA parameters (knobs.HINT_TO_MCA)."""
from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from typing import Callable, Dict, List, Tuple

from ..errors import ParioError
from . import knobs
from .model import Issue, Settings, build

_LAYOUT_HINTS = {"stripe_count": "striping_factor", "stripe_size": "striping_unit", "stripe_index": "start_iodevice"}


# ---- cross-spellings ---------------------------------------------------------------------------

def layout_of(settings: Settings) -> List[Dict[str, str]]:
    """The Lustre layout asked for: explicit, else the one the striping hints ask for."""
    if settings.layout:
        return settings.layout
    comp = {lk: settings.hints[h] for lk, h in _LAYOUT_HINTS.items() if h in settings.hints}
    comp = {k: v for k, v in comp.items() if not (k == "stripe_index" and v == "-1")}
    return [comp] if comp else []


def hints_of(settings: Settings) -> Dict[str, str]:
    """The MPI_Info hints, plus striping hints for a simple (one-component) layout."""
    out = dict(settings.hints)
    if len(settings.layout) == 1:
        for lk, hint in _LAYOUT_HINTS.items():
            if lk in settings.layout[0]:
                out.setdefault(hint, settings.layout[0][lk])
    return out


def mca_of(settings: Settings) -> Dict[str, str]:
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


def parse_info(text: str) -> Tuple[Settings, List[Issue]]:
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


def romio_pairs(text: str) -> List[Tuple[int, str, str]]:
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


def parse_romio(text: str) -> Tuple[Settings, List[Issue]]:
    pairs = romio_pairs(text)
    bad = [Issue("error", f"line {n}", f"line {n}: expected 'key value', got {v!r}") for n, k, v in pairs if not k]
    settings, issues = build((k, v) for _, k, v in pairs if k)
    return settings, bad + issues


# ---- Open MPI ----------------------------------------------------------------------------------

def render_ompi(s: Settings, **_) -> str:
    return " ".join(f"--mca {k} {shlex.quote(v)}" for k, v in sorted(mca_of(s).items()))


def parse_ompi(text: str) -> Tuple[Settings, List[Issue]]:
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


def parse_ompi_env(text: str) -> Tuple[Settings, List[Issue]]:
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


def _split_outside_hashes(text: str, sep: str) -> List[str]:
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


def cray_patterns(text: str) -> Dict[str, Dict[str, str]]:
    """{file pattern: {key: value}} of an MPICH_MPIIO_HINTS value (or an `export` line of it)."""
    text = text.strip()
    if "MPICH_MPIIO_HINTS=" in text:
        text = text.split("MPICH_MPIIO_HINTS=", 1)[1]
    text = (shlex.split(text) or [""])[0]
    out: Dict[str, Dict[str, str]] = {}
    for group in _split_outside_hashes(text, ","):
        fields = _split_outside_hashes(group, ":")
        pattern = fields[0] or "*"  # ARCHER2's ':key=v' means every file
        for f in fields[1:]:
            key, _, value = f.partition("=")
            out.setdefault(pattern, {})[key.strip()] = value.strip().strip("#")
    return out


def parse_cray(text: str, pattern: str = "*") -> Tuple[Settings, List[Issue]]:
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


def parse_lfs(text: str) -> Tuple[Settings, List[Issue]]:
    words = shlex.split(text.strip())
    if words[:2] != ["lfs", "setstripe"]:
        raise ParioError("expected an `lfs setstripe ...` command")
    words = words[2:]
    comps: List[Dict[str, str]] = [{}]
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


# ---- ADIOS2, HDF5, PnetCDF ---------------------------------------------------------------------

def render_adios2(s: Settings, **_) -> str:
    root = ET.Element("adios-config")
    io = ET.SubElement(root, "io", name="pario")
    engine = ET.SubElement(io, "engine", type="BP5")
    for key, value in sorted((s.lib.get("adios2") or {}).items()):
        ET.SubElement(engine, "parameter", key=key, value=value)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def parse_adios2(text: str) -> Tuple[Settings, List[Issue]]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ParioError(f"not ADIOS2 XML ({exc})") from None
    pairs = [(f"adios2.{p.get('key')}", p.get("value", "")) for p in root.iter("parameter")]
    return build(pairs)


_CHUNK_OPT = {"one": "H5FD_MPIO_CHUNK_ONE_IO", "multi": "H5FD_MPIO_CHUNK_MULTI_IO"}


def render_hdf5(s: Settings, **_) -> str:
    h = s.lib.get("hdf5") or {}
    lines = []
    if hints_of(s):
        info = ", ".join(f"{k}={v}" for k, v in sorted(hints_of(s).items()))
        lines.append(f"H5Pset_fapl_mpio(fapl, comm, info);  /* MPI_Info: {info} */")
    if "alignment" in h or "align_threshold" in h:
        lines.append(f"H5Pset_alignment(fapl, {h.get('align_threshold', '1')}, {h.get('alignment', '1')});")
    if "coll_metadata" in h:
        flag = 1 if h["coll_metadata"] == "true" else 0
        lines += [f"H5Pset_all_coll_metadata_ops(fapl, {flag});", f"H5Pset_coll_metadata_write(fapl, {flag});"]
    if "meta_block_size" in h:
        lines.append(f"H5Pset_meta_block_size(fapl, {h['meta_block_size']});")
    if "sieve_buf_size" in h:
        lines.append(f"H5Pset_sieve_buf_size(fapl, {h['sieve_buf_size']});")
    if "libver" in h:
        low = "H5F_LIBVER_LATEST" if h["libver"] == "latest" else "H5F_LIBVER_EARLIEST"
        lines.append(f"H5Pset_libver_bounds(fapl, {low}, H5F_LIBVER_LATEST);")
    if h.get("chunk_opt") in _CHUNK_OPT:
        lines.append(f"H5Pset_dxpl_mpio_chunk_opt(dxpl, {_CHUNK_OPT[h['chunk_opt']]});")
    elif h.get("chunk_opt") == "default":
        lines.append("/* chunk_opt=default: HDF5 chooses one-link or multi-chunk I/O */")
    chunk = h.get("chunk")
    if chunk and chunk not in ("none", "block"):
        dims = [d.strip() for d in chunk.split(",")]
        lines.append(f"H5Pset_chunk(dcpl, {len(dims)}, (hsize_t[]){{{', '.join(dims)}}});")
    elif chunk:
        lines.append(f"/* chunk={chunk}: " + ("contiguous layout */" if chunk == "none"
                                                  else "one chunk per rank's block, H5Pset_chunk(dcpl, ...) */"))
    return "\n".join(lines) + ("\n" if lines else "")


def parse_hdf5(text: str) -> Tuple[Settings, List[Issue]]:
    pairs: List[Tuple[str, str]] = []
    m = re.search(r"H5Pset_fapl_mpio\([^)]*\);\s*/\* MPI_Info: (.*?) \*/", text)
    if m:
        pairs += [tuple(kv.split("=", 1)) for kv in m.group(1).split(", ") if "=" in kv]
    m = re.search(r"H5Pset_alignment\(\w+,\s*(\d+),\s*(\d+)\)", text)
    if m:
        pairs += [("hdf5.align_threshold", m.group(1)), ("hdf5.alignment", m.group(2))]
    m = re.search(r"H5Pset_all_coll_metadata_ops\(\w+,\s*(\d)\)", text)
    if m:
        pairs.append(("hdf5.coll_metadata", "true" if m.group(1) == "1" else "false"))
    for call, key in (("H5Pset_meta_block_size", "meta_block_size"), ("H5Pset_sieve_buf_size", "sieve_buf_size")):
        m = re.search(call + r"\(\w+,\s*(\d+)\)", text)
        if m:
            pairs.append((f"hdf5.{key}", m.group(1)))
    m = re.search(r"H5Pset_libver_bounds\(\w+,\s*H5F_LIBVER_(\w+),", text)
    if m:
        pairs.append(("hdf5.libver", "latest" if m.group(1) == "LATEST" else "earliest"))
    m = re.search(r"H5Pset_dxpl_mpio_chunk_opt\(\w+,\s*(\w+)\)", text)
    if m:
        pairs.append(("hdf5.chunk_opt", {v: k for k, v in _CHUNK_OPT.items()}.get(m.group(1), m.group(1))))
    for m in re.finditer(r"/\* (chunk_opt|chunk)=(\w+):", text):
        pairs.append((f"hdf5.{m.group(1)}", m.group(2)))
    m = re.search(r"H5Pset_chunk\(\w+,\s*\d+,\s*\(hsize_t\[\]\)\{([^}]*)\}\)", text)
    if m:
        pairs.append(("hdf5.chunk", ",".join(d.strip() for d in m.group(1).split(","))))
    return build(pairs)


def render_pnetcdf(s: Settings, **_) -> str:
    p = s.lib.get("pnetcdf") or {}
    # PNETCDF_HINTS is read by PnetCDF at open and wins over MPI_Info (anchors-tuning.md (e)).
    kv = {knobs.PNETCDF_INFO[k]: v for k, v in p.items() if k in knobs.PNETCDF_INFO}
    kv.update(hints_of(s))
    lines = [f"# pario pnetcdf.{k}={v}  (an API choice, not a hint)" for k, v in sorted(p.items())
             if k not in knobs.PNETCDF_INFO]
    if kv:
        lines.append("export PNETCDF_HINTS=" + shlex.quote(";".join(f"{k}={v}" for k, v in sorted(kv.items()))))
    return "\n".join(lines) + ("\n" if lines else "")


def parse_pnetcdf(text: str) -> Tuple[Settings, List[Issue]]:
    back = {v: k for k, v in knobs.PNETCDF_INFO.items()}
    pairs = [(f"pnetcdf.{m.group(1)}", m.group(2)) for m in re.finditer(r"# pario pnetcdf\.(\w+)=(\S+)", text)]
    m = re.search(r"PNETCDF_HINTS=(\S+)", text)
    if m:
        for item in (shlex.split(m.group(1)) or [""])[0].split(";"):
            key, _, value = item.partition("=")
            if key:
                pairs.append((f"pnetcdf.{back[key]}" if key in back else key, value))
    return build(pairs)


DIALECTS: Dict[str, Tuple[Callable, Callable, str]] = {
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


def parse(text: str, dialect: str) -> Tuple[Settings, List[Issue]]:
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
