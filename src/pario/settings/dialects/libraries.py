"""The library dialects of the settings model: ADIOS2 XML, HDF5 property-list calls and
PnetCDF's PNETCDF_HINTS, rendered from one Settings object and parsed back (see dialects/__init__.py)."""
from __future__ import annotations

import re
import shlex

from pario.model.errors import ParioError
from pario.model.formats import parse_xml
from pario.model.units import parse_bytes
from pario.settings import knobs
from pario.settings.dialects.mpi import split_words
from pario.settings.dialects.spellings import hints_of
from pario.settings.model import Issue, Settings, build


def render_adios2(s: Settings, **_) -> str:
    import xml.etree.ElementTree as ET

    root = ET.Element("adios-config")
    io = ET.SubElement(root, "io", name="pario")
    engine = ET.SubElement(io, "engine", type="BP5")
    for key, value in sorted((s.lib.get("adios2") or {}).items()):
        ET.SubElement(engine, "parameter", key=key, value=value)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def parse_adios2(text: str) -> tuple[Settings, list[Issue]]:
    """The engine parameters of an ADIOS2 XML configuration: <adios-config><io><engine><parameter
    key= value=/>; transport parameters and other elements are named as not read."""
    root = parse_xml(text, "ADIOS2 XML")
    if root.tag != "adios-config":
        raise ParioError(f"not ADIOS2 XML: the root element is <{root.tag[:40]}>, ADIOS2 reads <adios-config>")
    pairs, issues = [], []
    for io in root.findall("io"):
        for engine in io.findall("engine"):
            for p in engine.findall("parameter"):
                key, value = p.get("key"), p.get("value")
                if not key or value is None:
                    issues.append(Issue("error", "adios2", "an engine <parameter> needs key= and value= attributes"))
                    continue
                pairs.append((f"adios2.{key}", value))
    engine_params = {id(p) for io in root.findall("io") for e in io.findall("engine") for p in e.findall("parameter")}
    others = [p for p in root.iter("parameter") if id(p) not in engine_params]
    if others:
        issues.append(Issue("warning", "adios2", f"{len(others)} <parameter> element(s) outside <io><engine> "
                                                 "(transport or operator parameters) are not read"))
    settings, more = build(pairs, syntax="pario")
    return settings, issues + more


_CHUNK_OPT = {"one": "H5FD_MPIO_CHUNK_ONE_IO", "multi": "H5FD_MPIO_CHUNK_MULTI_IO"}


_HDF5_SIZES = ("alignment", "align_threshold", "meta_block_size", "sieve_buf_size")


def _c_size(value: str) -> str:
    """A size as C reads it: '1m' (pario's spelling, tune's values) as 1048576."""
    n = parse_bytes(value)
    return str(n) if n is not None else value


def render_hdf5(s: Settings, **_) -> str:
    h = {k: _c_size(v) if k in _HDF5_SIZES else v for k, v in (s.lib.get("hdf5") or {}).items()}
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


# The lines render_hdf5 writes: a settings file in this dialect holds these and nothing else.
_HDF5_LINE = re.compile(r"^\s*(H5Pset_\w+\(.*\);.*|/\*.*\*/\s*)$")


def parse_hdf5(text: str) -> tuple[Settings, list[Issue]]:
    issues = [Issue("error", f"line {n}", f"line {n}: {line.strip()[:60]!r} is not an HDF5 property-list call "
                                          "(H5Pset_...(...);) or a /* comment */")
              for n, line in enumerate(text.splitlines(), 1) if line.strip() and not _HDF5_LINE.match(line)]
    pairs: list[tuple[str, str]] = []
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
    settings, more = build(pairs)
    return settings, issues + more


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


def parse_pnetcdf(text: str) -> tuple[Settings, list[Issue]]:
    back = {v: k for k, v in knobs.PNETCDF_INFO.items()}
    issues = [Issue("error", f"line {n}", f"line {n}: {line.strip()[:60]!r} is not `export PNETCDF_HINTS=...` "
                                          "or a # comment")
              for n, line in enumerate(text.splitlines(), 1)
              if line.strip() and not line.strip().startswith("#") and "PNETCDF_HINTS=" not in line]
    pairs = [(f"pnetcdf.{m.group(1)}", m.group(2)) for m in re.finditer(r"# pario pnetcdf\.(\w+)=(\S+)", text)]
    m = re.search(r"PNETCDF_HINTS=(\S+)", text)
    if m:
        for item in (split_words(m.group(1), "PNETCDF_HINTS") or [""])[0].split(";"):
            key, _, value = item.partition("=")
            if key:
                pairs.append((f"pnetcdf.{back[key]}" if key in back else key, value))
    settings, more = build(pairs)
    return settings, issues + more
