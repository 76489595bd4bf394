"""The HTML page and the terminal say the same figures of the same data: each test renders a terminal
view and a page of one object (a profile log, pario advise's document, a stored bench run, a layers
run, a tuning session) and compares every figure, a number with its unit. The page showed files 1 vs
4 and metadata 57 us vs 5.6 ms for one profile, 0.0227 s for a finding's 22.7 ms, 0.00x for 0.04x, and
a layers run without its ratio table. A figure the terminal prints is on the page; a figure of the
page's tables and notes is one the terminal prints (the plots' hover texts aside)."""
from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest

from pario.analysis.profile import load, summary
from pario.analysis.summary import summarize
from pario.report.html import build
from pario.report.html.page import render
from pario.report.terminal import advise as advise_view
from pario.report.terminal import layers as run_view
from pario.report.terminal import profile as profile_view
from pario.report.terminal import tune as tune_view
from report_data import findings, session
from table_support import console, stored_run, text_of

PROFILE_LOG = Path(__file__).resolve().parent / "data" / "profile" / "mpiio-coll-2ranks.log"
UNIT = r"(?:[KMGT]iB/s|[KMGT]iB|MiB/s|B|ms|us|s|%|x)"
FIGURE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(" + UNIT + r"))?(?![\w])")


def figures(text: str) -> set[str]:
    """Every figure of a text: '22.7 ms', '0.04x', '128.0 KiB', '15%', '4' (whitespace made one space:
    a terminal wraps between a number and its unit). Settings (KEY=VALUE: a library's or a hint's value,
    which the page lists in full and the terminal counts) are not figures."""
    flat = re.sub(r"[\w.]+=\S+", " ", " ".join(text.split()))
    return {f"{n} {u}".strip() if u and u not in ("%", "x") else n + (u or "") for n, u in FIGURE.findall(flat)}


def page_text(page_html: str, start: str | None = None, leave: tuple[str, ...] = ()) -> str:
    """The words of a page (its tables, notes and paragraphs; not its scripts), from the element with
    id `start` on, without the tables of ids `leave`."""
    if start:
        page_html = page_html[page_html.index(f'id="{start}"'):]
    for anchor in leave:
        page_html = re.sub(f'id="{anchor}".*?</table>', " ", page_html, flags=re.S)
    page_html = re.sub(r"<script.*?</script>", " ", page_html, flags=re.S)
    page_html = re.sub(r"<figcaption.*?</figcaption>", " ", page_html, flags=re.S)   # how to read a plot
    page_html = re.sub(r"<footer.*?</footer>", " ", page_html, flags=re.S)
    page_html = re.sub(r"<style.*?</style>", " ", page_html, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page_html))


def same_figures(terminal: str, page: str, page_only: set[str] = frozenset()) -> None:
    t, p = figures(terminal), figures(page)
    assert not t - p, f"printed in the terminal, not on the page: {sorted(t - p)}"
    assert not p - t - page_only, f"on the page, not in the terminal: {sorted(p - t - page_only)}"


def test_a_profile_has_the_same_figures_on_the_page():
    doc = load(str(PROFILE_LOG))
    con = console(250)
    profile_view.show(summary(doc), console=con)
    page = render(build(profiles=[("mpiio-coll-2ranks.log", doc)]))
    same_figures(text_of(con), page_text(page, "profile1-section"), page_only={"1", "2"})   # "Profile 1", plot ids


def _advice() -> dict:
    """A job document as pario advise makes it (advise.document.job_document): costed, not costed,
    minor, checked and not advised, notes, a verification 0.04x."""
    costed = [f.to_dict() for f in findings() if f.seconds_at_stake is not None]
    for f in costed:
        f["verification"] = {"before_s": 0.0227, "after_s": 0.5675, "runs": [3, 4], "note": "same bytes"}
    return {"source": "app.log", "format": "pario", "command": "./app in.dat", "nprocs": 4, "run_time": 12.5,
            "io_time": 3.25, "partial": [], "ignored_files": ["<MPI runtime files>"],
            "stack": {"file_systems": [{"files": 2, "fs": "ext4", "unit": 4096, "unit_source": "the log"}],
                      "impl": "ompio", "impl_source": "the log"},
            "calibration": {"where": "calibration run 2", "write": {"call_us": 3.08, "mib_s": 3594.0}},
            "findings": costed, "not_costed": [f.to_dict() for f in findings() if f.seconds_at_stake is None],
            "minor": [{**findings()[0].to_dict(), "title": "a small one", "seconds_at_stake": 0.0227}],
            "no_gain": [{"title": "collective writes", "why": "took 2.83x the time here (41.4 ms vs 14.6 ms)"}],
            "notes": ["load average 8.8 on 2 cores"]}


def test_advise_findings_have_the_same_figures_on_the_page():
    job = _advice()
    docs = {"POSIX_WRITES": "write calls"}
    terminal = "\n".join(advise_view.render({"jobs": [job], "counter_docs": docs}))
    page = render(build(findings=[job], counter_docs=docs))
    text = page_text(page, "findings")
    same_figures(terminal, text[:text.index("pario 0.1") if "pario 0.1" in text else None])
    assert "22.7 ms" in terminal and "0.04x" in terminal and "0.00x" not in text + terminal


def _run(name: str) -> tuple[dict, str, str]:
    """A stored run (tests/python/data/runs), as `pario results show` prints it and as its page."""
    run = stored_run(name)
    con = console(250)
    run_view.print_run(con, run, summarize(run["result"], run["env"]))
    return run, text_of(con), render(build(runs=[run]))


def test_a_bench_run_has_the_same_figures_on_the_page():
    run, terminal, page = _run("default-suite-2ranks")
    # the page's facts say where the run ran (the terminal's first lines, in a table)
    same_figures(terminal, page_text(page, f"run{run['id']}-section"))


def test_a_layers_run_has_its_ratio_table_on_the_page():
    run, terminal, page = _run("layers-2ranks")
    assert f'id="run{run["id"]}-layers"' in page
    # the page lists every setting in effect; `results show` counts them in a line (--json lists them)
    terminal = re.sub(r"hints of \d+ cases.*?\(--json lists them\)", " ", " ".join(terminal.split()))
    same_figures(terminal, page_text(page, f"run{run['id']}-section", leave=(f"run{run['id']}-settings",)))


def test_a_tuning_session_has_the_same_figures_on_the_page():
    s = session()
    out = io.StringIO()
    tune_view.winner(s, out)
    tune_view.spent(s, out)
    page = render(build(sessions=[s]))
    same_figures(out.getvalue(), page_text(page, "tune1-section"), page_only={"1", "4"})   # its id, its ranks


@pytest.mark.parametrize("text,expected", [("22.7 ms at stake (1% of the run)", {"22.7 ms", "1%"}),
                                           ("0.29x [0.11-0.53]", {"0.29x", "0.11", "0.53"}),
                                           ("194.3\n   KiB; 4,096", {"194.3 KiB", "4,096"})])
def test_figures_are_read_with_their_units(text, expected):
    assert figures(text) == expected
