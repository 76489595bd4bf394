"""How two stored runs compare, case by case. Pure.

Every difference between them is named first: of the runs (tool, ranks, hosts, file system, MPI,
MPI-IO layer, cache eviction) and of each pair of cases (bytes, transfer and block sizes, fsync,
O_DIRECT, collective calls, hints, ...). Then, per operation, the ratio of medians B/A with the
verdict of the noise test (analysis/noise.py, the one `pario bench` and the tuner use); an
operation measured on one side only is shown as such; metadata cases compare phase by phase in
files/s. Between an IOR run and a pario run a gap outside 0.9-1.1 is explained where the figures
allow (transfer-only rates against open-to-close rates, the open+close share)."""
from __future__ import annotations

from typing import Any

from pario.analysis import noise
from pario.analysis.labels import case_label
from pario.analysis.summary import OPS, summarize
from pario.model.case import MD_OPS
from pario.model.units import exact

VERDICT = {"faster": "B faster", "slower": "B slower", "within noise": "within noise",
           "too few samples": "too few repetitions"}
LIKE = (0.9, 1.1)  # a pario/IOR ratio outside it asks for an explanation


def _shape(row: dict) -> tuple:
    return (row["backend"], row["strategy"], row["pattern"], row["xfer"], row["collective"])


def _pair(rows_a: list[dict], rows_b: list[dict]) -> list[tuple]:
    """Pairs of (a, b, how): by name, then by the same case shape (an IOR import and a pario
    run name their cases differently), then by strategy and backend alone when that is
    unambiguous on both sides (e.g. the same case at another transfer size)."""
    pairs: list[tuple[dict | None, dict | None, str]] = []
    left_a, left_b = list(rows_a), list(rows_b)
    loose = lambda r: (r["workload"], r["backend"], r["strategy"])  # noqa: E731
    for how, key in (("name", lambda r: r["name"]), ("shape", _shape), ("strategy/backend", loose)):
        for a in list(left_a):
            matches = [b for b in left_b if key(b) == key(a) and b["workload"] == a["workload"]]
            if how == "strategy/backend" and (len(matches) != 1 or
                                              sum(key(x) == key(a) for x in left_a) != 1):
                continue
            if matches:
                pairs.append((a, matches[0], how))
                left_a.remove(a)
                left_b.remove(matches[0])
    pairs += [(a, None, "only in A") for a in left_a]
    pairs += [(None, b, "only in B") for b in left_b]
    return pairs


def _test(sa: dict | None, sb: dict | None) -> dict[str, Any] | None:
    """One operation (or metadata phase): spreads of A and B, ratio B/A and the noise verdict."""
    if not sa and not sb:
        return None
    if not sa or not sb:
        return {"a": sa, "b": sb, "ratio": None, "low": None, "high": None,
                "verdict": "only in A" if sa else "only in B"}
    v = noise.compare(sa["samples"], sb["samples"])
    return {"a": sa, "b": sb, "ratio": v.ratio, "low": v.low, "high": v.high, "verdict": VERDICT[v.verdict],
            "test": v.to_dict()}


def _op(a: dict | None, b: dict | None) -> dict[str, Any] | None:
    entry = _test(a and a["bw_mib"], b and b["bw_mib"])
    if entry and a and b:
        xa, xb = a.get("xfer_bw_mib"), b.get("xfer_bw_mib")
        entry["xfer_ratio"] = xb["median"] / xa["median"] if xa and xb and xa["median"] else None
        entry["open_close"] = (a.get("open_close_share"), b.get("open_close_share"))
    return entry


def _metadata(a: dict | None, b: dict | None) -> dict[str, Any]:
    pa = ((a or {}).get("metadata") or {}).get("phases") or {}
    pb = ((b or {}).get("metadata") or {}).get("phases") or {}
    out = {}
    for op in MD_OPS:
        entry = _test((pa.get(op) or {}).get("files_per_s"), (pb.get(op) or {}).get("files_per_s"))
        if entry:
            out[op] = entry
    return out


# ---- what differs ------------------------------------------------------------------------------

def _yes(x: Any) -> str:
    return "yes" if x else "no"


def _size(x: Any) -> str:
    return "?" if x is None else exact(int(x), "GMk")


def _hints(case: dict) -> dict[str, str]:
    hints = case.get("hints") or {}
    return dict(sorted((hints.get("requested") or {}).items()))


def _in_effect(case: dict) -> dict[str, str]:
    """The requested settings the run confirmed in effect (settings.effective's check)."""
    return dict(sorted((r["key"], str(r.get("effective"))) for r in (case.get("hints") or {}).get("check") or []
                       if r.get("status") == "in effect"))


def _kv(d: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in d.items()) or "none"


# (label, how to read it from (summary row, engine case), how to show it); in the order printed
_CASE_FACTS: list[tuple[str, Any, Any]] = [
    ("workload", lambda r, c: r["workload"], str),
    ("backend", lambda r, c: r["backend"], str),
    ("strategy", lambda r, c: r["strategy"], str),
    ("pattern", lambda r, c: r["pattern"], str),
    ("collective calls", lambda r, c: r["collective"] if r["workload"] == "data" else None, _yes),
    ("bytes per phase", lambda r, c: r.get("bytes"), _size),
    ("transfer size (-t)", lambda r, c: r.get("xfer"), _size),
    ("block (-b)", lambda r, c: (c.get("spec") or {}).get("block"), _size),
    ("segments (-s)", lambda r, c: (c.get("spec") or {}).get("segments") or 1, str),
    ("fsync (-e)", lambda r, c: bool((c.get("spec") or {}).get("fsync")), _yes),
    ("O_DIRECT", lambda r, c: bool((c.get("spec") or {}).get("odirect")), _yes),
    ("timed reads checked", lambda r, c: _read_check(c), _yes),
    ("read shift (-C/-Q)", lambda r, c: c.get("reorder_shift", (c.get("spec") or {}).get("reorder", 0)) or 0, str),
    ("hints requested", lambda r, c: _hints(c), _kv),
    ("hints in effect", lambda r, c: _in_effect(c), _kv),
    # which ranks moved the data at the file system (analysis/nodes.py): the aggregators in effect
    ("writers at the file system", lambda r, c: ((r.get("aggregators") or {}).get("write") or {}).get("text"), str),
    ("readers at the file system", lambda r, c: ((r.get("aggregators") or {}).get("read") or {}).get("text"), str),
    ("cache eviction before reads", lambda r, c: next((p["cache"]["evicted"] for p in c.get("phases") or []
                                                       if p.get("cache")), "none"), str),
]


def _read_check(c: dict) -> bool | None:
    """Whether the timed reads were compared with what was written (pario's default; IOR never):
    the check is untimed but takes cache and CPU from the reads on a busy node. None without reads."""
    spec = c.get("spec") or {}
    if "read" not in (spec.get("ops") or []):
        return None
    return bool(spec.get("read_check", True))


def _diff(what: str, a: Any, b: Any, show) -> dict[str, Any] | None:
    if a == b or a is None and b is None:
        return None
    return {"what": what, "a": show(a) if a is not None else "?", "b": show(b) if b is not None else "?"}


def case_differences(ra: dict, ca: dict, rb: dict, cb: dict) -> list[dict[str, Any]]:
    out = []
    for what, get, show in _CASE_FACTS:
        d = _diff(what, get(ra, ca), get(rb, cb), show)
        if d:
            out.append(d)
    return out


def _tool(run: dict) -> str:
    if run.get("kind") == "ior" or (run.get("result") or {}).get("imported_from") == "ior":
        engine = str(((run.get("result") or {}).get("engine") or {}).get("version") or "")  # "IOR 4.0.0"
        version = (run.get("env") or {}).get("ior_version") or (engine.split()[-1] if engine.startswith("IOR ")
                                                                 else "?")
        return f"IOR {version}"
    return "pario"


def _hosts(run: dict) -> str | None:
    """Host names; a count where the names are not known (IOR names only the host of rank 0)."""
    hosts = ((run.get("result") or {}).get("mpi") or {}).get("hosts") or []
    names = [str(h.get("name")) for h in hosts if isinstance(h, dict) and h.get("name") not in (None, "?")]
    if run.get("kind") == "ior" and len(hosts) > 1:
        return f"{len(hosts)} hosts"
    return ", ".join(names) or (run.get("env") or {}).get("hostname")


def _fs(run: dict) -> str | None:
    env = run.get("env") or {}
    return env.get("fs_name") or env.get("fs_type")


def _mpi(run: dict) -> str | None:
    lib = ((run.get("result") or {}).get("mpi") or {}).get("library") or (run.get("env") or {}).get("mpi_version")
    return str(lib).splitlines()[0].split(",")[0].strip() if lib else None


def _io(run: dict) -> str | None:
    env = run.get("env") or {}
    return env.get("io_component") if run.get("kind") != "ior" else None


_RUN_FACTS: list[tuple[str, Any]] = [
    ("tool", _tool),
    ("ranks", lambda r: ((r.get("result") or {}).get("mpi") or {}).get("ranks") or (r.get("env") or {}).get("ranks")),
    ("hosts", _hosts),
    ("file system", _fs),
    ("MPI", _mpi),
    ("MPI-IO layer", _io),
    ("--drop-caches", lambda r: (r.get("env") or {}).get("drop_caches") or "no"),
]


def run_differences(a: dict, b: dict) -> list[dict[str, Any]]:
    """What differs between the runs themselves; a fact one side did not record shows as '?'."""
    out = []
    for what, get in _RUN_FACTS:
        va, vb = get(a), get(b)
        if what == "MPI-IO layer" and (va is None or vb is None):
            continue  # IOR records no io component; the MPI line says enough
        if what == "hosts" and "hosts" in f"{va} {vb}" and str(va).split()[0] == str(vb).split()[0]:
            continue  # counts of hosts, the same
        d = _diff(what, va, vb, str)
        if d:
            out.append(d)
    return out


def explain_gap(entry: dict, tools: tuple[str, str], op: str = "", backend: str = "") -> list[str]:
    """Why a pario/IOR ratio is far from 1, from what both measured, and what is known of the
    tools' timing points (benchmarks/RESULTS.md measured it with strace)."""
    ratio = entry.get("ratio")
    if ratio is None or LIKE[0] <= ratio <= LIKE[1] or len({t.split()[0] for t in tools}) < 2:
        return []
    out = []
    xr = entry.get("xfer_ratio")
    oa, ob = entry.get("open_close") or (None, None)
    if xr is not None and LIKE[0] <= xr <= LIKE[1]:
        out.append(f"the transfers alone run at the same speed (B/A {xr:.2f} transfer-only): the gap is in "
                   "open and close (sync included)")
    elif xr is not None:
        out.append(f"the transfers alone differ too (B/A {xr:.2f} transfer-only)")
    if oa is not None and ob is not None and abs(oa - ob) >= 0.05:
        out.append(f"open+close take {oa:.0%} of a phase in A ({tools[0]}), {ob:.0%} in B ({tools[1]})")
    if op == "write" and backend == "mpiio" and any(t.startswith("IOR 4") for t in tools):
        out.append("IOR 4's MPI-IO backend truncates the file it opens for writing (MPI_File_set_size 0); "
                   "on ext4 that makes the timed close start the write-back of the whole file (auto_da_alloc), "
                   "which pario's open of a new file does not")
    return out


def placement(op: str, case_a: dict, case_b: dict) -> str | None:
    """What the file servers' placement predicts of B/A (each phase's busiest server over its cap,
    pario.run.servers), beside the measured ratio: None unless both runs recorded it."""
    def busiest(case: dict) -> tuple[float, float] | None:
        got = [(p["servers"]["predicted_s"], p["servers"]["bytes"].get(p["servers"]["busiest"], 0))
               for p in case.get("phases") or [] if p.get("op") == op and (p.get("servers") or {}).get("predicted_s")]
        if not got:
            return None
        got.sort()
        return got[len(got) // 2]
    a, b = busiest(case_a), busiest(case_b)
    if not a or not b:
        return None
    return (f"the servers' placement predicts B/A {a[0] / b[0]:.2f} (busiest server per phase: A {a[1] / 2**20:.0f} "
            f"MiB, {a[0]:.2f} s; B {b[1] / 2**20:.0f} MiB, {b[0]:.2f} s at their caps)")


def compare(rows_a: list[dict], rows_b: list[dict], cases_a: dict[str, dict] | None = None,
            cases_b: dict[str, dict] | None = None, tools: tuple[str, str] = ("pario", "pario")) -> list[dict]:
    """Cases of run A against run B: per operation ratio B/A of medians and the noise verdict,
    per pair the differences in setup; cases_*: the engine cases by name (for fsync, hints, ...)."""
    out = []
    for a, b, how in _pair(rows_a, rows_b):
        entry: dict[str, Any] = {"name_a": a and a["name"], "name_b": b and b["name"], "matched_by": how,
                                 "label": case_label(a or b), "workload": (a or b)["workload"]}
        for op in OPS:
            entry[op] = _op(a and a.get(op), b and b.get(op))
            if entry[op]:
                entry[op]["explain"] = explain_gap(entry[op], tools, op, (a or b)["backend"])
                placed = placement(op, (cases_a or {}).get(a["name"], {}) if a else {},
                                   (cases_b or {}).get(b["name"], {}) if b else {})
                if placed:
                    entry[op]["explain"].append(placed)
        entry["metadata"] = _metadata(a, b) if (a or b)["workload"] == "metadata" else {}
        entry["differences"] = (case_differences(a, (cases_a or {}).get(a["name"], {}),
                                                 b, (cases_b or {}).get(b["name"], {})) if a and b else [])
        out.append(entry)
    return out


def compare_runs(a: dict, b: dict) -> dict[str, Any]:
    """Two stored runs (ids, kinds, env, result): {"a", "b", "differences", "comparable", "cases"}."""
    def parts(run: dict) -> tuple[list[dict], dict[str, dict]]:
        result = run.get("result") or {}
        return summarize(result, run.get("env")), {c["name"]: c for c in result.get("cases") or []}
    rows_a, cases_a = parts(a)
    rows_b, cases_b = parts(b)
    tools = (_tool(a), _tool(b))
    cases = compare(rows_a, rows_b, cases_a, cases_b, tools)
    diffs = run_differences(a, b)
    # a fact one side did not record is named, but does not make the runs unlike by itself
    like = not [d for d in diffs if "?" not in (d["a"], d["b"])] and all(
        not e["differences"] and e["matched_by"] in ("name", "shape") for e in cases)
    return {"a": a.get("id"), "b": b.get("id"), "kinds": (a.get("kind"), b.get("kind")), "tools": list(tools),
            "differences": diffs, "comparable": like, "cases": cases}


def regressions(cases: list[dict], pct: float) -> list[dict]:
    """The cases and operations where B is slower than A by more than pct percent *and* outside
    the run-to-run noise (ranges that do not overlap): what `results compare --fail-slower`
    fails on. A difference within the noise, or with one sample a side, is not called one."""
    out = []
    for c in cases:
        for op in OPS:
            r = c.get(op)
            if r and r["verdict"] == "B slower" and r["ratio"] is not None and r["ratio"] < 1 - pct / 100:
                out.append({"label": c["label"], "name_a": c["name_a"], "name_b": c["name_b"], "op": op,
                            "ratio": r["ratio"], "slower_pct": 100 * (1 - r["ratio"])})
    return out


def rows_for_csv(run: dict, rows: list[dict]) -> list[dict]:
    """One row per case and operation of a stored run, flat, for `results export`."""
    out = []
    for r in rows:
        for op in OPS:
            s = r.get(op)
            if not s or not s.get("bw_mib"):
                continue
            bw = s["bw_mib"]
            out.append({"run": run["id"], "created": run.get("created"), "kind": run.get("kind"),
                        "case": r["name"], "backend": r.get("backend"), "strategy": r.get("strategy"),
                        "collective": r.get("collective"), "xfer": r.get("xfer"), "ranks": r.get("ranks"),
                        "op": op, "mib_s_median": bw["median"], "mib_s_min": bw["min"], "mib_s_max": bw["max"],
                        "samples": bw["n"], "iops": s.get("iops"), "open_close_share": s.get("open_close_share"),
                        "imbalance": s.get("imbalance")})
    return out
