"""What a `pario report` page costs: its size in bytes and the seconds to build it, and (with
--browser) to draw it in headless Chromium, for the trace timeline of a made-up million-operation
log (the worst case for the page: random gaps, so only the budget limits the bars) and of smaller
ones, at the default bar budget and at others. Not a test: figures go into RESULTS.md.

    .venv/bin/python benchmarks/report/run.py [--browser] [--budgets 15000,40000] [--events 1000000]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "python"))

from pario.analysis.profile.trace import DEFAULT_BUDGET  # noqa: E402
from pario.report.html import trace as html_trace  # noqa: E402
from pario.report.html import write  # noqa: E402
from pario.report.html.page import Page, Section  # noqa: E402

COLUMNS = ["module", "op", "id", "offset", "size", "start", "duration", "tid"]


def log(events: int, ranks: int = 2, seed: int = 1) -> dict:
    rng = random.Random(seed)
    procs = []
    for rank in range(ranks):
        t, evs = 0.0, []
        for k in range(events // ranks):
            t += rng.expovariate(1 / 2e-4)
            evs.append(["posix", "write" if k % 3 else "read", "0" * 16, 0, 4096, t, 5e-5, 1])
        procs.append({"process": {"host": "n1", "pid": 100 + rank, "rank": rank, "start": 1000.0},
                      "limits": {"trace_dropped": 0}, "trace": {"columns": COLUMNS, "events": evs}})
    return {"processes": procs}


def page(doc: dict, budget: int) -> Page:
    """A page holding only the trace timeline, plus plotly.js: what the trace adds is the size
    above an empty page's."""
    return Page("trace", ["a made-up trace"], [Section("trace", "trace", items=html_trace.items(1, doc, budget))])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--budgets", default=f"{DEFAULT_BUDGET},5000,40000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--browser", action="store_true", help="also time drawing in headless Chromium")
    args = ap.parse_args()
    doc = log(args.events)
    out = Path(tempfile.mkdtemp(prefix="pario-report-bench-"))
    empty = write(Page("empty", []), out / "empty.html")
    print(f"empty page (plotly.js {empty / 1e6:.2f} MB and the template): {empty} bytes")
    browser = None
    if args.browser:
        from browser_support import Browser
        browser = Browser().__enter__()
    print("budget  bars    page MB  trace MB  build s (median)  draw s (median)")
    for budget in (int(b) for b in args.budgets.split(",")):
        builds, draws, size = [], [], 0
        for _rep in range(args.reps):
            t = time.perf_counter()
            p = page(doc, budget)
            size = write(p, out / f"b{budget}.html")
            builds.append(time.perf_counter() - t)
            if browser:
                t = time.perf_counter()
                loaded = browser.open(out / f"b{budget}.html")
                draws.append(time.perf_counter() - t)
                assert not loaded.errors and not loaded.requests, (loaded.errors, loaded.requests)
        # one start marker per bar
        shown = sum(len(t.x) for i in p.sections[0].items for t in i.figure.data if t.mode == "markers")
        draw = f"{statistics.median(draws):.1f}" if draws else "-"
        print(f"{budget:6d}  {shown:6d}  {size / 1e6:7.2f}  {(size - empty) / 1e6:8.2f}  "
              f"{statistics.median(builds):16.1f}  {draw:>15}")
    if browser:
        browser.__exit__(None, None, None)


if __name__ == "__main__":
    main()
