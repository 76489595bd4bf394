"""A system as `pario predict` reads it: a small TOML file (examples/systems/) of figures, each with
where it came from. A figure is written bare (`servers = 12`) or as a table with its source and
status (`server_bw = { value = "11 GiB/s", source = "...", status = "stated" }`); `pario predict
--calibrate` writes measured ones back with when, where and how. Status: stated (the site or a
seed says so), assumed (written by hand from elsewhere, the file says from where), calibrated
(fitted or measured), default (absent from the file: pario's generic figure, flagged). A
calibrated figure may carry its `spread`: the factor by which the fits of the calibration's
separate rounds moved it either way on a shared machine; a prediction's interval is at least that
wide where the figure binds.

Units: rates as "500 MB/s", "11 GiB/s" or bytes per second; times as "0.5 ms", "20 us" or seconds;
sizes as "8m", "1 MiB" or bytes; file rates in files per second."""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pario.model.errors import ParioError, did_you_mean
from pario.model.units import parse_bytes

KINDS = ("lustre", "gpfs", "beegfs", "cephfs", "nfs", "local")
STATUSES = ("stated", "assumed", "calibrated", "default")
_RATE = re.compile(r"^\s*([0-9.]+(?:e[+-]?\d+)?)\s*([kmgt]?)(i?)b/s\s*$", re.IGNORECASE)
_TIME = re.compile(r"^\s*([0-9.]+(?:e[+-]?\d+)?)\s*(s|ms|us|µs|ns|min|h)\s*$", re.IGNORECASE)
_SI = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_BIN = {"": 1.0, "k": 2.0 ** 10, "m": 2.0 ** 20, "g": 2.0 ** 30, "t": 2.0 ** 40}
_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class Spec:
    """One parameter: its section of the file, what kind of value it takes, pario's generic default
    (None: the parameter is absent unless given) and what it means."""
    section: str
    kind: str          # rate | files_rate | time | size | count | ratio | text | bool
    default: Any
    doc: str
    choices: tuple[str, ...] = ()


GIB = float(1 << 30)
SPECS: dict[str, Spec] = {
    "kind": Spec("fs", "text", None, "file system: " + ", ".join(KINDS), KINDS),
    "servers": Spec("fs", "count", 1, "data servers: Lustre OSTs, GPFS NSD servers, disks"),
    "server_bw": Spec("fs", "rate", 1 * GIB, "write rate of one server"),
    "server_read_bw": Spec("fs", "rate", None, "read rate of one server (default: server_bw)"),
    "fs_bw": Spec("fs", "rate", None, "the whole file system's write ceiling"),
    "fs_read_bw": Spec("fs", "rate", None, "the whole file system's read ceiling (default: fs_bw)"),
    "lock_unit": Spec("fs", "size", None, "lock unit: GPFS block size (Lustre: the stripe size)"),
    "stripe_count": Spec("fs", "count", 1, "stripe count of a new file (lfs getstripe -d)"),
    "stripe_size": Spec("fs", "size", 1 << 20, "stripe size of a new file"),
    "object_size": Spec("fs", "size", None, "CephFS: bytes per object of a new file (default: Ceph's 4 MiB)"),
    "call_latency": Spec("fs", "time", 20e-6, "cost of one I/O call beyond its bytes"),
    "lock_cost": Spec("fs", "time", 1e-3, "cost of a write call whose lock unit another writer holds"),
    "md_rate": Spec("fs", "files_rate", 5000.0, "files per second the metadata server completes under load"),
    "file_cost": Spec("fs", "time", 1e-3, "one process's cost per file (open, stat, close)"),
    "stripe_cost": Spec("fs", "time", 2e-4, "cost per stripe object of a file"),
    "count": Spec("nodes", "count", None, "compute nodes of the system"),
    "cores": Spec("nodes", "count", None, "cores per node"),
    "memory": Spec("nodes", "size", None, "memory per node (client caching can absorb writes below it)"),
    "dirty_limit": Spec("nodes", "size", None, "unflushed bytes a node's page cache takes before its writers wait "
                                               "for the device (Linux: the dirty freerun ceiling)"),
    "node_bw": Spec("nodes", "rate", 10 * GIB, "one node's network (and I/O) rate"),
    "node_read_bw": Spec("nodes", "rate", None, "one node's read rate (default: node_bw)"),
    "process_bw": Spec("nodes", "rate", 1 * GIB, "one process's write rate"),
    "process_read_bw": Spec("nodes", "rate", None, "one process's read rate (default: process_bw)"),
    "copy_bw": Spec("nodes", "rate", 4 * GIB, "one process's memory copy rate"),
    "buffer_call_cost": Spec("nodes", "time", 0.5e-6, "cost of one call copied into a user-space buffer"),
    "impl": Spec("mpiio", "text", "romio", "MPI-IO: romio, cray or ompio", ("romio", "cray", "ompio")),
    "driver": Spec("mpiio", "text", None, "ROMIO driver: lustre, gpfs or generic (default: from kind)",
                   ("lustre", "gpfs", "generic")),
    "cb_config_list": Spec("mpiio", "text", "*:1", "default aggregators per node"),
    "cb_buffer_size": Spec("mpiio", "size", 16 << 20, "two-phase buffer per aggregator"),
    "co_ratio": Spec("mpiio", "count", 1, "romio_lustre_co_ratio: aggregators per OST"),
    "lockahead": Spec("mpiio", "bool", False, "Cray's Lustre lockahead is available"),
    "lockahead_efficiency": Spec("mpiio", "ratio", 0.8, "share of an aggregator's rate kept under lockahead"),
    "collective_call_cost": Spec("mpiio", "time", 1e-3, "cost of one collective I/O call (synchronisation)"),
    "open_cost": Spec("mpiio", "time", None, "cost of opening and closing one file on several ranks through "
                                             "MPI-IO (default: twice collective_call_cost)"),
}
SECTIONS = ("system", "fs", "nodes", "mpiio")
_META = ("value", "source", "status", "when", "where", "how", "spread")


@dataclass
class Param:
    name: str
    value: Any
    status: str
    source: str = ""
    when: str = ""
    where: str = ""
    how: str = ""
    spread: float = 1.0    # the calibration's rounds moved it by this factor either way (1: not measured)


@dataclass
class System:
    name: str
    path: str
    description: str
    params: dict[str, Param] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.params[name].value

    def status(self, name: str) -> str:
        return self.params[name].status

    def with_values(self, values: dict[str, float], status: str = "calibrated", how: str = "") -> System:
        """A copy with some parameters replaced (a fit's values)."""
        out = System(self.name, self.path, self.description, dict(self.params))
        for name, value in values.items():
            out.params[name] = Param(name, value, status, how=how)
        for name, base in DERIVED + (OPEN,):  # a figure the file left to another follows it (reads: writes)
            if name not in values and base in values and out.params.get(name) is not None \
                    and out.params[name].source.startswith(f"as {base}"):
                out.params[name] = Param(name, values[base] * (OPEN_CALLS if (name, base) == OPEN else 1), status,
                                         out.params[name].source, how=how)
        return out


def parse_rate(text: Any, what: str) -> float:
    """'500 MB/s' -> 5e8, '11 GiB/s' -> 11 * 2**30; a number is bytes per second."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        m = _RATE.match(str(text))
        if not m:
            raise ParioError(f"{what} = {text!r}: write a rate such as 500 MB/s, 11 GiB/s or a number of bytes/s")
        value = float(m.group(1)) * (_BIN if m.group(3) else _SI)[m.group(2).lower()]
    if not value > 0 or math.isinf(value):
        raise ParioError(f"{what} = {text!r}: a rate must be greater than zero")
    return value


def parse_time(text: Any, what: str) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        m = _TIME.match(str(text))
        if not m:
            raise ParioError(f"{what} = {text!r}: write a time such as 0.5 ms, 20 us or a number of seconds")
        value = float(m.group(1)) * _SECONDS[m.group(2).lower()]
    if value < 0 or math.isinf(value):
        raise ParioError(f"{what} = {text!r}: a time cannot be negative")
    return value


def _convert(spec: Spec, raw: Any, what: str) -> Any:
    if spec.kind == "rate":
        return parse_rate(raw, what)
    if spec.kind == "files_rate":
        text = str(raw).replace("files/s", "").strip()
        try:
            value = float(text)
        except ValueError:
            raise ParioError(f"{what} = {raw!r}: write a number of files per second, e.g. 5000") from None
        if not value > 0:
            raise ParioError(f"{what} = {raw!r}: must be greater than zero")
        return value
    if spec.kind == "time":
        return parse_time(raw, what)
    if spec.kind == "size":
        size = raw if isinstance(raw, int) and not isinstance(raw, bool) else parse_bytes(str(raw).replace(" ", ""))
        if not isinstance(size, int) or size <= 0:
            raise ParioError(f"{what} = {raw!r}: write a size such as 1m, 8m or a number of bytes")
        return size
    if spec.kind == "count":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
            raise ParioError(f"{what} = {raw!r}: must be a whole number of at least 1")
        return raw
    if spec.kind == "ratio":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= 1:
            raise ParioError(f"{what} = {raw!r}: must be a number in (0, 1]")
        return float(raw)
    if spec.kind == "bool":
        if not isinstance(raw, bool):
            raise ParioError(f"{what} = {raw!r}: must be true or false")
        return raw
    text = str(raw).strip().lower()
    if spec.choices and text not in spec.choices:
        raise ParioError(f"{what} = {raw!r}: choose one of {', '.join(spec.choices)}"
                         + did_you_mean(text, spec.choices))
    return text


def _param(name: str, raw: Any, path: str) -> Param:
    spec = SPECS[name]
    what = f"{path}: {spec.section}.{name}"
    meta: dict[str, Any] = {}
    if isinstance(raw, dict):
        unknown = [k for k in raw if k not in _META]
        if unknown:
            raise ParioError(f"{what}: unknown field '{unknown[0]}'{did_you_mean(unknown[0], _META)}; "
                             f"a figure's table takes {', '.join(_META)}")
        if "value" not in raw:
            raise ParioError(f"{what}: the table has no 'value'; write e.g. {{ value = ..., source = \"...\" }}")
        meta, raw = raw, raw["value"]
    status = str(meta.get("status", "stated"))
    if status not in STATUSES:
        raise ParioError(f"{what}: status {status!r} is unknown; choose one of {', '.join(STATUSES)}")
    for key in ("source", "when", "where", "how"):
        if key in meta and not isinstance(meta[key], str):
            raise ParioError(f"{what}: '{key}' must be a string")
    spread = meta.get("spread", 1.0)
    if isinstance(spread, bool) or not isinstance(spread, (int, float)) or not 1 <= spread < math.inf:
        raise ParioError(f"{what}: spread = {spread!r}: must be a number of at least 1 (a factor either way)")
    return Param(name, _convert(spec, raw, what), status, str(meta.get("source", "")), str(meta.get("when", "")),
                 str(meta.get("where", "")), str(meta.get("how", "")), float(spread))


def from_dict(doc: dict[str, Any], path: str) -> System:
    """A System from a parsed TOML document; any problem is one line naming the file and the key."""
    if not isinstance(doc, dict):
        raise ParioError(f"{path}: not a table of sections")
    unknown = [k for k in doc if k not in SECTIONS]
    if unknown:
        raise ParioError(f"{path}: unknown section [{unknown[0]}]{did_you_mean(unknown[0], SECTIONS)}; "
                         f"a system file has {', '.join('[' + s + ']' for s in SECTIONS)}")
    head = doc.get("system", {})
    if not isinstance(head, dict) or not isinstance(head.get("name", ""), str):
        raise ParioError(f"{path}: [system] needs name = \"...\" (and may have description)")
    extra = [k for k in head if k not in ("name", "description", "source")]
    if extra:
        raise ParioError(f"{path}: [system] has no key '{extra[0]}'; it takes name, description and source")
    params: dict[str, Param] = {}
    for section in SECTIONS[1:]:
        table = doc.get(section, {})
        if not isinstance(table, dict):
            raise ParioError(f"{path}: [{section}] must be a table")
        for key, raw in table.items():
            spec = SPECS.get(key)
            if spec is None or spec.section != section:
                known = [n for n, s in SPECS.items() if s.section == section]
                elsewhere = f" (it belongs in [{spec.section}])" if spec else did_you_mean(key, known)
                raise ParioError(f"{path}: [{section}] has no key '{key}'{elsewhere}; known: {', '.join(known)}")
            params[key] = _param(key, raw, path)
    if "kind" not in params:
        raise ParioError(f"{path}: [fs] needs kind = one of {', '.join(KINDS)}")
    for name, spec in SPECS.items():
        if name not in params and spec.default is not None:
            params[name] = Param(name, spec.default, "default", "pario's generic figure")
    _derived(params)
    return System(str(head.get("name") or path), path, str(head.get("description", "")), params)


# Figures that default to another one (reads to writes, the lock unit to the stripe size).
DERIVED = (("server_read_bw", "server_bw"), ("node_read_bw", "node_bw"), ("process_read_bw", "process_bw"),
           ("fs_read_bw", "fs_bw"), ("lock_unit", "stripe_size"))

# A collective MPI-IO open and close, when nothing measured it: two collective calls.
OPEN, OPEN_CALLS = ("open_cost", "collective_call_cost"), 2


def _derived(params: dict[str, Param]) -> None:
    """Parameters that default to another one (reads to writes, the lock unit to the stripe size)."""
    for name, base in DERIVED:
        if name not in params and base in params:
            b = params[base]
            params[name] = Param(name, b.value, b.status, f"as {base}" + (f" ({b.source})" if b.source else ""))
    if OPEN[0] not in params:  # MPI_File_open and MPI_File_close are collective: one synchronisation each at least
        b = params[OPEN[1]]
        params[OPEN[0]] = Param(OPEN[0], b.value * OPEN_CALLS, b.status,
                                f"as {OPEN[1]} x {OPEN_CALLS} (MPI_File_open and MPI_File_close are collective)")
    if "driver" not in params:
        kind = params["kind"].value
        params["driver"] = Param("driver", {"lustre": "lustre", "gpfs": "gpfs"}.get(kind, "generic"), "default",
                                 f"ROMIO's driver for {kind}")


def data_dirs(installed: str, source: str) -> list[Path]:
    """A data directory installed beside the package, else the source tree's."""
    here = Path(__file__).resolve().parents[1]
    return [here / installed, here.parents[1] / source]


def system_file(name: str) -> Path:
    """A shipped system file by name (examples/systems/NAME.toml)."""
    for d in data_dirs("systems", "examples/systems"):
        if (d / f"{name}.toml").is_file():
            return d / f"{name}.toml"
    raise FileNotFoundError(f"{name}.toml")


def shipped_names() -> list[str]:
    """The names of the shipped system files (archer2, archer, ...)."""
    return sorted({f.stem for d in data_dirs("systems", "examples/systems") if d.is_dir() for f in d.glob("*.toml")})


def load(path: str) -> System:
    """A system file, read bounded and checked: one clear line on anything wrong with it."""
    from pario.model.formats import parse_toml
    from pario.platform import documents
    if not os.path.exists(path) and os.sep not in path and not path.endswith(".toml"):
        try:  # a shipped system by name: --system archer2
            path = str(system_file(path))
        except FileNotFoundError:
            pass
    if os.path.isdir(path):
        raise ParioError(f"--system {path}: is a directory; give a system file (.toml)")
    if not os.path.exists(path):
        raise ParioError(f"--system {path}: no such file (examples/systems/ has archer2.toml and others)")
    text = documents.read_text(path, "--system", limit=1 << 20)
    return from_dict(parse_toml(text, f"--system {path}"), path)
