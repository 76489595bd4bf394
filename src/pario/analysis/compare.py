"""How two runs compare, case by case: the ratio of medians and whether the run-to-run ranges
overlap (then the difference is within the noise). Pure."""
from __future__ import annotations

from pario.analysis.summary import OPS, strategy_label


def _shape(row: dict) -> tuple:
    return (row["backend"], row["strategy"], row["pattern"], row["xfer"], row["collective"])


def _pair(rows_a: list[dict], rows_b: list[dict]) -> list[tuple]:
    """Pairs of (a, b, how): by name, then by the same case shape (an IOR import and a pario
    run name their cases differently), then by strategy and backend alone when that is
    unambiguous on both sides (e.g. the same case at another transfer size)."""
    pairs: list[tuple[dict | None, dict | None, str]] = []
    left_a, left_b = list(rows_a), list(rows_b)
    loose = lambda r: (r["backend"], r["strategy"])  # noqa: E731
    for how, key in (("name", lambda r: r["name"]), ("shape", _shape), ("strategy/backend", loose)):
        for a in list(left_a):
            matches = [b for b in left_b if key(b) == key(a)]
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


def _compare_op(a: dict | None, b: dict | None) -> dict | None:
    if not a or not b:
        return None
    sa, sb = a["bw_mib"], b["bw_mib"]
    ratio = sb["median"] / sa["median"] if sa["median"] else None
    if sa["n"] < 2 or sb["n"] < 2:
        overlap, verdict = None, "noise unknown (one sample)"
    else:
        overlap = sa["min"] <= sb["max"] and sb["min"] <= sa["max"]
        verdict = "within noise" if overlap else ("B faster" if sb["median"] > sa["median"] else "B slower")
    return {"a": sa, "b": sb, "ratio": ratio, "overlap": overlap, "verdict": verdict}


def compare(rows_a: list[dict], rows_b: list[dict]) -> list[dict]:
    """Cases of run A against run B: ratio B/A of medians, and whether the min-max ranges
    overlap (if they do, the difference is within the run-to-run noise)."""
    out = []
    for a, b, how in _pair(rows_a, rows_b):
        entry = {"name_a": a and a["name"], "name_b": b and b["name"], "matched_by": how,
                 "label": strategy_label(a or b)}
        for op in OPS:
            entry[op] = _compare_op(a and a.get(op), b and b.get(op))
        out.append(entry)
    return out


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
