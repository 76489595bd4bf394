"""What took effect, measured by the best means each MPI offers, set beside what was requested.

Means, best first (anchors-tuning.md §0.4; machine-notes 1c/1d):
  MPI_File_get_info          MPICH family: returns the effective keys after open
  ROMIO_PRINT_HINTS          ROMIO (also Open MPI romio321): rank 0 prints `key = K value = V` at open
  MPICH_MPIIO_HINTS_DISPLAY  Cray MPICH: prints the hints used per file
  io_ompio_verbose_info_parsing   OMPIO: one line per info key it accepted
  MPI_File_get_info (echo)   Open MPI 4.1, either component: only echoes the keys given; says nothing
The parsers read the engine's non-`@pario` stdout; `compare` is pure.
"""
from __future__ import annotations

import re
from typing import Any

from pario.settings import envsettings
from pario.settings.equivalence import explain
from pario.settings.model import Settings, build

ROMIO_PRINT = "ROMIO_PRINT_HINTS"
OMPIO_VERBOSE = "io_ompio_verbose_info_parsing"
CRAY_DISPLAY = "MPICH_MPIIO_HINTS_DISPLAY"
GET_INFO = "MPI_File_get_info"
GET_INFO_ECHO = "MPI_File_get_info (echo only: Open MPI returns the keys it was given)"
LFS = "lfs getstripe"

# How much a means tells: every key in effect, only the keys accepted, or nothing.
COMPLETE = {GET_INFO, ROMIO_PRINT, CRAY_DISPLAY}

_ROMIO_LINE = re.compile(r"^key = (\S+)\s+value = (.*?)\s*$")
_OMPIO_LINE = re.compile(r"^File: (.+?) info: (\S+) value (.*?)\s*$")
_CRAY_HEAD = re.compile(r"MPIIO hints for (.+?):\s*$")
_CRAY_LINE = re.compile(r"^(?:PE \d+:)?\s+(\w+)\s+= (.*?)\s*$")


def parse_romio_print(lines: list[str]) -> dict[str, str]:
    """The first block of ROMIO_PRINT_HINTS lines (a repeated key starts the next open's block)."""
    out: dict[str, str] = {}
    for line in lines:
        m = _ROMIO_LINE.match(line.strip())
        if m:
            if m.group(1) in out:
                break
            out[m.group(1)] = m.group(2)
    return out


def parse_ompio_verbose(lines: list[str]) -> dict[str, dict[str, str]]:
    """{file: {key: value}} of `--mca io_ompio_verbose_info_parsing 1` lines."""
    out: dict[str, dict[str, str]] = {}
    for line in lines:
        m = _OMPIO_LINE.match(line.strip())
        if m:
            out.setdefault(m.group(1), {})[m.group(2)] = m.group(3).split()[0] if m.group(3) else ""
    return out


def parse_cray_display(lines: list[str]) -> dict[str, dict[str, str]]:
    """{file: {key: value}} of MPICH_MPIIO_HINTS_DISPLAY=1 output (format as in public dumps:
    a `PE 0: MPIIO hints for FILE:` line, then `  key = value` lines)."""
    out: dict[str, dict[str, str]] = {}
    current: str | None = None
    for line in lines:
        head = _CRAY_HEAD.search(line)
        if head:
            current = head.group(1).strip()
            out.setdefault(current, {})
            continue
        m = _CRAY_LINE.match(line.rstrip())
        if current is not None and m:
            out[current].setdefault(m.group(1), m.group(2))
        elif current is not None and line.strip():
            current = None
    return out


_CASE_OF_FILE = re.compile(r"\.(\d+)\.\d+(?:\.\w+)?$")


class OutputCollector:
    """Fed the engine's stdout line by line (and its progress events): keeps the hint reports,
    attributed to cases. ROMIO's block has no file name: it belongs to the case whose `settings`
    event comes next (`pario-engine --settings` opens each case's file once and only world rank 0
    prints), or whose phase comes next in a run that prints at its opens (`pario stack`'s probe run)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.pending: list[str] = []
        self.romio: dict[int, list[str]] = {}
        self.ompio: list[str] = []
        self.cray: list[str] = []
        self._in_cray = False

    def line(self, text: str) -> bool:
        """True when the line was a hint report (then it is not echoed)."""
        stripped = text.strip()
        if _ROMIO_LINE.match(stripped):
            self.pending.append(stripped)
            return True
        if _OMPIO_LINE.match(stripped):
            self.ompio.append(stripped)
            return True
        if _CRAY_HEAD.search(stripped) or (self._in_cray and _CRAY_LINE.match(text.rstrip())):
            self._in_cray = True
            self.cray.append(text.rstrip())
            return True
        self._in_cray = False
        return False

    def event(self, ev: dict[str, Any]) -> None:
        if ev.get("event") in ("settings", "phase") and isinstance(ev.get("case"), int):
            if self.pending:
                self.romio.setdefault(ev["case"], self.pending)
            self.pending = []

    def reports(self) -> dict[int, dict[str, Any]]:
        """{case index: {means: {key: value}}}."""
        out: dict[int, dict[str, Any]] = {}
        for case, lines in self.romio.items():
            out.setdefault(case, {})[ROMIO_PRINT] = parse_romio_print(lines)
        for means, parsed in ((OMPIO_VERBOSE, parse_ompio_verbose(self.ompio)),
                              (CRAY_DISPLAY, parse_cray_display(self.cray))):
            for path, keys in parsed.items():
                m = _CASE_OF_FILE.search(path)
                if m and self.prefix in path:
                    out.setdefault(int(m.group(1)), {}).setdefault(means, {}).update(keys)
        return out


def _same(a: str, b: str) -> bool:
    a, b = str(a).strip().lower(), str(b).strip().lower()
    if a == b or a.rstrip("d") == b.rstrip("d"):  # ROMIO prints 'disabled' for romio_synchronized_flush
        return True
    try:
        return int(a, 0) == int(b, 0)
    except ValueError:
        return False


def _reported(key: str, effective: dict[str, str]) -> str | None:
    if key in effective:
        return effective[key]
    alias = {"romio_cb_fr_type": "romio_cb_fr_types"}.get(key)  # ROMIO prints the plural
    return effective.get(alias) if alias else None


def compare(requested: dict[str, str], effective: dict[str, str], means: str,
            stack: dict[str, Any], env_settings: list[dict[str, Any]] | tuple = (),
            mca_values: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per requested setting: requested, effective, status (in effect | not applied |
    unverified), the reason when known (a rule of settings.equivalence with its source), and
    where it came from: "pario" (--hint, --hints-file, a job file) or the environment variable
    (settings.envsettings; the program's own wins over the environment, as in ROMIO).
    mca_values: what Open MPI resolved for its MCA parameters in this environment (ompi_info)."""
    explicit = {str(k): str(v) for k, v in requested.items()}
    from_env = {e["key"]: e for e in env_settings if e.get("key") and e["key"] not in explicit}
    merged = {**{k: str(e["value"]) for k, e in from_env.items()}, **explicit}
    settings, _ = build((k, v) for k, v in merged.items() if not (from_env.get(k) or {}).get("problem"))
    _, applied = explain(settings, stack)
    reasons: dict[str, list[str]] = {}
    for a in applied:
        if a.rule not in ("default", "alias"):
            reasons.setdefault(a.key, []).append(a.reason())
    rows = []
    for key, want in sorted(merged.items()):
        env = from_env.get(key)
        source = env["from"] if env else "pario"
        blocked = env and (envsettings.not_read(env, stack.get("impl")) or env.get("problem"))
        if blocked:
            rows.append({"key": key, "requested": want, "effective": None, "status": "not applied",
                         "reason": blocked, "means": means, "from": source})
            continue
        if key.startswith("mca."):
            rows.append(_mca_row(key, want, reasons.get(key, []), mca_values, stack, means, source))
            continue
        got = _reported(key, effective)
        reason = "; ".join(reasons.get(key, []))
        if means in COMPLETE:
            if got is None:
                status, reason = "not applied", reason or "absent after open: this MPI-IO driver does not keep it"
            elif _same(got, want):
                status, reason = "in effect", ""
            else:
                status, reason = "not applied", reason or f"the library chose {got}"
        elif means == OMPIO_VERBOSE:
            if got is not None:
                status, reason = ("in effect", "") if _same(got, want) else ("not applied", f"ompio took {got}")
            else:
                status, reason = "not applied", reason or "ompio did not report accepting it"
        else:
            status = "not applied" if reason else "unverified"
            reason = reason or "this MPI only echoes requested keys; run with --io romio321 or under MPICH to see"
        rows.append({"key": key, "requested": str(want), "effective": got, "status": status,
                     "reason": reason, "means": means, "from": source})
    return rows


def _mca_row(key: str, want: str, reasons: list[str], mca_values: dict[str, str] | None, stack: dict[str, Any],
             means: str, source: str) -> dict[str, Any]:
    """An Open MPI MCA parameter: in effect when ompi_info, in the same environment, resolves it
    to the value asked for and OMPIO is the MPI-IO layer."""
    got = (mca_values or {}).get(key[len("mca."):])
    base = {"key": key, "requested": want, "effective": got, "means": "ompi_info", "from": source}
    if stack.get("impl") not in (None, "ompio"):
        return {**base, "status": "not applied", "reason": "; ".join(reasons) or "ROMIO does not read MCA "
                "parameters of OMPIO"}
    if got is None:
        return {**base, "status": "unverified", "reason": "ompi_info does not list it", "means": means}
    same = _same(got, want)
    return {**base, "status": "in effect" if same else "not applied",
            "reason": "" if same else f"Open MPI resolved it to {got}"}


def best(engine_hints: dict[str, Any], reports: dict[str, dict[str, str]], flavour: str,
         impl: str | None) -> tuple[str, dict[str, str]]:
    """(means, effective) from what the engine recorded and what was printed at open."""
    get_info = engine_hints.get("effective") or {}
    if flavour != "openmpi" and engine_hints.get("source", GET_INFO) == GET_INFO and get_info:
        return GET_INFO, dict(get_info)
    for means in (CRAY_DISPLAY, ROMIO_PRINT):
        if reports.get(means):
            return means, dict(reports[means])
    if impl == "ompio":
        return OMPIO_VERBOSE, dict(reports.get(OMPIO_VERBOSE) or {})
    return (GET_INFO_ECHO if flavour == "openmpi" else GET_INFO), dict(get_info)


HINT_LAYERS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")  # the backends that open through MPI-IO


def annotate(result: dict[str, Any], reports: dict[int, dict[str, dict[str, str]]], flavour: str,
             stack: dict[str, Any], env_settings: list[dict[str, Any]] | tuple = (),
             mca_values: dict[str, str] | None = None) -> None:
    """Rewrite each case's hints block with the best measured effective hints, the means, the
    engine's own MPI_File_get_info answer (kept as get_info) and the per-setting check, which
    includes the settings the job got from its environment (settings.envsettings)."""
    for case in result.get("cases") or []:
        index = case.get("index")
        layered = (case.get("spec") or {}).get("backend") in HINT_LAYERS
        if layered and env_settings and not isinstance(case.get("hints"), dict):
            case["hints"] = {"requested": {}, "effective": {}}
        hints = case.get("hints")
        if not isinstance(hints, dict) or (not hints.get("requested") and index not in reports
                                           and not (layered and env_settings)):
            continue
        if layered and env_settings:
            hints["requested_env"] = [e for e in env_settings if e.get("key")]
        means, effective = best(hints, reports.get(index, {}), flavour, stack.get("impl"))
        if means != GET_INFO or hints.get("source") != GET_INFO:
            hints["get_info"] = hints.get("effective") or {}
        hints["effective"], hints["source"] = effective, means
        spec = case.get("spec") or {}
        hints["check"] = compare(hints.get("requested") or {}, effective, means,
                                 {**stack, **_file_group(spec, stack), "ops": spec.get("ops")},
                                 env_settings if layered else (), mca_values)
        file_layout(hints["check"], case.get("fs_layout"), stack.get("fs"), hints.get("get_info") or {})


# The striping hints and the field of the file's own layout (CephFS's words) that says what they got.
FILE_FIELDS = {"striping_factor": "stripe_count", "striping_unit": "stripe_unit"}


def file_layout(rows: list[dict[str, Any]], fs_layout: dict[str, Any] | None, fs: str | None = None,
                get_info: dict[str, str] | None = None) -> None:
    """Set the layout the file really got beside each striping hint's row: what was asked, what the
    MPI-IO layer reported and what the file system says can be three different things (ROMIO's ufs
    driver on CephFS echoes striping_factor=4 while the file has stripe_count 1). `get_info`: what
    MPI_File_get_info returned, said when the chosen means did not report the key."""
    if not fs_layout or not fs_layout.get("value"):
        return
    from pario.settings.ceph_layout import parse_layout
    from pario.settings.equivalence import STRIPING_FS
    got = parse_layout(str(fs_layout["value"]))
    for row in rows:
        field = FILE_FIELDS.get(row["key"])
        if field is None or field not in got:
            continue
        row["file"] = str(got[field])
        reported = row.get("effective")
        echoed = (get_info or {}).get(row["key"])
        if reported is None and echoed is not None:
            reported = f"{echoed} (MPI_File_get_info)"
        if _same(row["file"], row["requested"]):
            by_default = fs and fs not in STRIPING_FS
            row.update(status="in effect", reason=f"the file has {field} {row['file']}" + (
                ", as every new file here: the MPI-IO driver sets no layout on this file system" if by_default else ""))
        else:
            row.update(status="not applied",
                       reason=f"asked {row['requested']}, MPI-IO reports {'-' if reported is None else reported}, "
                              f"the file has {field} {row['file']} ({fs_layout.get('means')}): ignored here")


def _file_group(spec: dict[str, Any], stack: dict[str, Any]) -> dict[str, Any]:
    """Ranks and hosts of the communicator a file is opened on: the world for a shared file, one
    rank for a file per process, a block of ranks for nfiles (cb_nodes is clipped to these)."""
    ranks, hosts = stack.get("ranks"), stack.get("hosts") or 1
    strategy = spec.get("strategy")
    if strategy in ("fpp", "serial") or spec.get("aggregate"):
        return {"ranks": 1, "hosts": 1}
    if strategy == "nfiles" and ranks and spec.get("nfiles"):
        return {"ranks": -(-ranks // int(spec["nfiles"])), "hosts": min(hosts, -(-ranks // int(spec["nfiles"])))}
    if strategy == "pernode" and ranks:
        return {"ranks": -(-ranks // hosts), "hosts": 1}
    return {}


def requested_settings(requested: dict[str, str]) -> Settings:
    return build((str(k), str(v)) for k, v in requested.items())[0]
