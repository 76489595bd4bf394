"""`pario predict`'s output: the prediction (time and bandwidth with its interval, the limit that
binds, the costs summed and the data part's limits), what the model does not capture, and the
ranked settings in the user's dialect; the same as one JSON document (schemas/predict.schema.json)."""
from __future__ import annotations

import textwrap
from typing import Any

from pario.model.units import human, seconds
from pario.predict.model import CAVEAT, Prediction
from pario.predict.pattern import Pattern
from pario.predict.rank import Candidate, spoken
from pario.predict.system import System

WIDTH = 80


def rate(bps: float) -> str:
    return human(bps) + "/s" if bps else "-"


def _wrap(text: str, indent: str = "  ", more: str = "    ") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=more, break_long_words=False)


def describe(pat: Pattern) -> str:
    c = pat.case
    if pat.metadata:
        return f"metadata: {c['files_per_dir']} files per directory, {','.join(c['ops'])}"
    parts = [c["strategy"], c["backend"]] + (["collective"] if c.get("collective") else []) + [c["pattern"]]
    if c["pattern"] == "segmented":
        parts.append(f"-t {human(c['xfer'])} -b {human(c['block'])}" + (f" -s {c['segments']}"
                                                                         if c.get("segments", 1) > 1 else ""))
    hints = " ".join(f"{k}={v}" for k, v in sorted((c.get("hints") or {}).items()))
    return " ".join(parts) + (f"; hints {hints}" if hints else "")


def print_prediction(system: System, pat: Pattern, pred: Prediction) -> None:
    print(f"pario predict: {system.name} ({system.path}), {pat.nodes} node{'s' if pat.nodes > 1 else ''} x "
          f"{pat.ranks_per_node} = {pat.ranks} rank{'s' if pat.ranks > 1 else ''}")
    print(_wrap(f"case: {describe(pat)}" + ("" if pat.metadata else f" ({pat.op})"), "", "  "))
    layout = f"stripe count {pred.stripe_count}" if system["kind"] == "lustre" else system["kind"]
    agg = f", {pred.aggregators} aggregators" if pred.aggregators else ""
    print(_wrap(f"path: {pred.path}{agg}; {layout}; {human(pred.total)} per phase" if pred.total else
                f"path: {pred.path}; {layout}", "", "  "))
    bw = f", {rate(pred.bandwidth)} [{rate(pred.total / pred.high)} - {rate(pred.total / pred.low)}]" \
        if pred.total else ""
    what = "time" if pat.metadata else pat.op
    print(f"\npredicted {what}: {seconds(pred.seconds)} [{seconds(pred.low)} - {seconds(pred.high)}]{bw}")
    print(f"basis: {pred.basis}" + (" (from the system file's stated figures alone)"
                                    if pred.basis == "stated hardware" else ""))
    generic = sorted(n for n, s in pred.used.items() if s == "default")
    if generic:
        print(_wrap("pario's generic figures (not in the system file): " + ", ".join(generic), "", "  "))
    binding = next(t for t in pred.costs if t.name == pred.binding)
    print(_wrap(f"binding limit: {pred.binding}: {binding.detail}", "", "  "))
    print("\ncosts (summed):")
    for t in pred.costs:
        if t.seconds > 0 or t.name == pred.binding:
            print(_wrap(f"{t.name:<24} {seconds(t.seconds):>9}  {t.detail}", "  ", " " * 37))
    print("limits of the data part (the slowest binds):")
    for t in sorted(pred.limits, key=lambda t: -t.seconds):
        print(_wrap(f"{t.name:<24} {seconds(t.seconds):>9}  {t.detail}", "  ", " " * 37))
    if pred.flags:
        print("not captured by the model here:")
        for code, text in pred.flags:
            print(_wrap(f"{code}: {text}", "  ", "    "))
    print(_wrap(f"caveat: {CAVEAT}", "", "  "))


def print_ranked(system: System, pat: Pattern, base: Prediction, cands: list[Candidate]) -> None:
    print(f"\nsettings to try, by predicted {pat.op} time (as given: {seconds(base.seconds)}):")
    for i, c in enumerate(cands, 1):
        p = c.prediction
        assert p is not None
        gain = base.seconds / p.seconds if p.seconds else 0
        print(f"{i:>2}. {seconds(p.seconds):>9}  {gain:>5.2f}x  binds: {p.binding}"
              + (f"  [{','.join(f for f, _ in p.flags)}]" if p.flags else ""))
        for line in spoken(system, pat, c):  # commands to paste: whole lines
            print("      " + line)
    if not cands:
        print("  no setting acts on this pattern here")


def _pred(pred: Prediction) -> dict[str, Any]:
    return {"seconds": pred.seconds, "low": pred.low, "high": pred.high, "bytes": pred.total,
            "bandwidth": pred.bandwidth, "binding": pred.binding, "basis": pred.basis, "path": pred.path,
            "aggregators": pred.aggregators, "stripe_count": pred.stripe_count,
            "costs": [{"name": t.name, "seconds": t.seconds, "detail": t.detail} for t in pred.costs],
            "limits": [{"name": t.name, "seconds": t.seconds, "detail": t.detail} for t in pred.limits],
            "flags": [{"code": c, "text": t} for c, t in pred.flags], "figures": pred.used}


def document(system: System, pat: Pattern, pred: Prediction, cands: list[Candidate] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"schema": "pario.predict/1", "system": {"name": system.name, "path": system.path},
           "pattern": {"nodes": pat.nodes, "ranks_per_node": pat.ranks_per_node, "op": pat.op,
                       "case": {k: v for k, v in pat.case.items() if not k.startswith("_")},
                       "stripe_count": pat.stripe_count, "stripe_size": pat.stripe_size, "buffer": pat.buffer},
           "prediction": _pred(pred), "caveat": CAVEAT}
    if cands is not None:
        out["ranked"] = [{"hints": c.hints, "case": c.case, "stripe_count": c.stripe_count,
                          "stripe_size": c.stripe_size, "settings": spoken(system, pat, c),
                          "prediction": _pred(c.prediction)} for c in cands if c.prediction]
    return out
