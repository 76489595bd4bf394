"""`pario report` pages opened in real headless Chromium: each kind of page (one run, runs compared,
profile logs, findings and a tuning session) loads with no JavaScript error and no network request,
every plot holds the points of the data it was made from, and a PNG screenshot is written for a
person to look at (under pytest's tmp directory)."""
from __future__ import annotations

import pytest

from browser_support import Browser, need_browser
from pario.analysis.profile import load
from pario.report.html import build, write
from pario.store import Store
from profile_support import compile_c, preload_lib, run_profiled
from report_data import add_run, bench_cases, findings, profile_dir, session

pytestmark = [pytest.mark.e2e]


@pytest.fixture(scope="module")
def browser():
    need_browser()
    with Browser() as b:
        yield b


def _open(browser, page, tmp_path, name):
    html = tmp_path / f"{name}.html"
    write(page, html)
    loaded = browser.open(html, tmp_path / f"{name}.png")
    assert loaded.errors == [], loaded.errors
    assert loaded.requests == [], loaded.requests
    assert loaded.drawn == len(loaded.plots) > 0
    png = (tmp_path / f"{name}.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
    return loaded


def _points(plot, name):
    return sum(t["points"] for t in plot["traces"] if t["name"] == name)


def test_one_run(browser, tmp_path):
    db = str(tmp_path / "runs.db")
    run_id = add_run(db, bench_cases())
    page = build(runs=[Store(db).get_run(run_id)])
    loaded = _open(browser, page, tmp_path, "run")
    for what in ("bandwidth", "iops", "imbalance"):
        plot = loaded.plot(f"run{run_id}-{what}")
        for op in ("write", "read"):
            assert _points(plot, f"{op} median [min-max]") == 2      # two cases
            assert _points(plot, f"{op} each repetition") == 6       # three repetitions each
        assert plot["svgPoints"] == 16                               # all of them drawn
    # the cache flag is written on the plot, beside the file-per-process medians above the ceiling
    texts = browser.driver.execute_script(
        f"return Array.from(document.querySelectorAll('#run{run_id}-bandwidth .textpoint')).map(e => e.textContent)")
    assert any("cache?" in t for t in texts), texts
    for index in (0, 1):
        timeline = loaded.plot(f"run{run_id}-timeline-{index}")
        # 6 phases (3 write, 3 read) of 4 ranks: open, transfer, sync, close bars and a done tick per rank
        assert len(timeline["traces"]) == 6 * 5
        assert all(t["points"] == 4 for t in timeline["traces"])
        assert sum(t["visible"] for t in timeline["traces"]) == 5   # one phase at a time
    settings = browser.driver.find_element("id", f"run{run_id}-settings").text
    assert "striping_unit" in settings and "not applied" in settings and "in effect" in settings
    assert _covered(browser, f"run{run_id}-bandwidth") == 0


def _covered(browser, anchor: str) -> int:
    """How many of a plot's linear/log buttons lie over one of its axis labels or titles."""
    buttons, labels, covered = browser.driver.execute_script(f"""
        const plot = document.querySelector('#{anchor}');
        const boxes = sel => Array.from(plot.querySelectorAll(sel)).map(e => e.getBoundingClientRect());
        const buttons = boxes('.updatemenu-button'), labels = boxes('.xtick text, .ytick text, .g-xtitle, .g-ytitle');
        const cross = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        return [buttons.length, labels.length, buttons.filter(a => labels.some(b => cross(a, b))).length];""")
    assert buttons == 2 and labels > 2, (buttons, labels)
    return covered


def test_a_layers_run_has_its_ratio_table_and_buttons_off_the_labels(browser, tmp_path):
    """The layers run's page lacked the terminal's ratio table, and its linear/log buttons covered
    the last axis label (ten long case names, drawn slanted)."""
    from table_support import stored_run

    run = stored_run("layers-2ranks")
    loaded = _open(browser, build(runs=[run]), tmp_path, "layers")
    table = browser.driver.find_element("id", f"run{run['id']}-layers").text
    assert "pnetcdf-iput" in table and "[95%]" in table and "within noise" in table and "slower" in table
    for what in ("bandwidth", "iops"):
        assert loaded.plot(f"run{run['id']}-{what}")
        assert _covered(browser, f"run{run['id']}-{what}") == 0, what


def test_runs_compared(browser, tmp_path):
    db = str(tmp_path / "runs.db")
    a = add_run(db, bench_cases())
    b = add_run(db, bench_cases(scale=0.5))
    c = add_run(db, bench_cases(scale=2.0)[1:])   # only file per process: its shared case is missing
    store = Store(db)
    page = build(runs=[store.get_run(i) for i in (a, b, c)])
    loaded = _open(browser, page, tmp_path, "compare")
    plot = loaded.plot("compare-bandwidth")
    assert _points(plot, f"run {a} median [min-max]") == 4    # 2 cases x write, read
    assert _points(plot, f"run {b} median [min-max]") == 4
    assert _points(plot, f"run {c} median [min-max]") == 2
    assert _points(plot, f"run {c} each repetition") == 6
    table = browser.driver.find_element("id", "compare-table").text
    assert f"{a} -> {b}" in table and f"{a} -> {c}" in table
    # each run also has its own section
    assert {f"run{i}-bandwidth" for i in (a, b, c)} <= {p["id"] for p in loaded.plots}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def test_profile_with_trace(browser, lib, tmp_path):
    logs = profile_dir(tmp_path, lib, compile_c, run_profiled)
    job = load(logs)
    kept = sum(p["limits"]["trace_kept"] for p in job["processes"])
    loaded = _open(browser, build(profiles=[(str(logs), job)]), tmp_path, "profile")
    sizes = loaded.plot("profile1-sizes")
    heights = browser.driver.execute_script(
        "var gd = document.querySelector('#profile1-sizes .js-plotly-plot');"
        "return gd.data.map(t => [t.name, t.y.reduce((a, b) => a + b, 0)]);")
    # posix_seq: 100 writes and 100 reads; sizes: 21 + 6 + 3 writes (0-byte writes count too)
    assert sum(h for name, h in heights if name == "write") == 130
    assert sum(h for name, h in heights if name == "read") == 100
    assert sizes["traces"]
    assert loaded.plot("profile1-time")["traces"]
    trace = loaded.plot("profile1-trace")
    markers = [t for t in trace["traces"] if t["type"] == "scatter"]
    # not decimated: one bar (three vertices) and one start marker per event
    assert sum(t["points"] for t in markers) == kept * 3
    assert trace["svgPoints"] == kept
    files = browser.driver.find_element("id", "profile1-files")
    assert "seq.dat" in files.text and "edges.dat" in files.text
    # the table sorts by a column on a click
    header = files.find_elements("css selector", "th")[3]     # reads/writes (the terminal's columns)
    header.click()
    first = files.find_element("css selector", "tbody tr td:nth-child(1)").text
    assert first.endswith("seq.dat")


@pytest.mark.mpi
def test_profile_shared_file_spread(browser, lib, tmp_path):
    import os
    import shutil
    import subprocess

    if not (shutil.which("mpicc") and shutil.which("mpirun")):
        pytest.skip("no MPI (mpicc/mpirun) on PATH")
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    logs = tmp_path / "logs"
    cmd = ["mpirun", "-n", "3", "--oversubscribe", "-x", f"LD_PRELOAD={lib}", "-x", f"PARIO_PROFILE_DIR={logs}",
           "-x", "PARIO_PROFILE_TRACE=1", str(exe), str(tmp_path / "shared.dat")]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    proc = subprocess.run(cmd, capture_output=True, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode()
    loaded = _open(browser, build(profiles=[("mpi", load(logs))]), tmp_path, "profile-mpi")
    spread = loaded.plot("profile1-spread")
    assert _points(spread, "fastest rank") >= 1 and _points(spread, "slowest rank") >= 1
    hover = browser.driver.execute_script(
        "return document.querySelector('#profile1-spread .js-plotly-plot').data[2].hovertext.join(' ')")
    assert "shared.dat" in hover and "3 processes" in hover
    trace = loaded.plot("profile1-trace")
    assert len({t["name"] for t in trace["traces"]}) >= 3     # writes, reads, open/close at least
    assert "cb_nodes" in browser.driver.find_element("id", "profile1-hints").text


def test_findings_and_tuning(browser, lib, tmp_path):
    db = str(tmp_path / "runs.db")
    run_id = add_run(db, bench_cases())
    assert run_id == 1
    logs = profile_dir(tmp_path, lib, compile_c, run_profiled, programs=("sizes",))
    page = build(runs=[Store(db).get_run(run_id)], profiles=[("sizes", load(logs))], findings=findings(),
                 sessions=[session()])
    loaded = _open(browser, page, tmp_path, "findings")
    d = browser.driver
    items = d.find_elements("css selector", "#findings li.finding")
    assert [i.find_element("css selector", "h3").text.split(" ")[0] for i in items] == ["A", "130", "striping_unit"]
    links = [a.get_attribute("href").rsplit("#", 1)[1] for a in d.find_elements("css selector", "#findings a")]
    assert links == ["profile1-sizes", "run1-settings"]
    assert all(d.find_elements("id", anchor) for anchor in links)
    assert "not on this page" in items[0].text
    # findings come before every other section
    assert d.execute_script("return document.querySelector('section').id") == "findings"
    trials = loaded.plot("tune1-trials")
    assert _points(trials, "control: each repetition") == 6
    assert _points(trials, "complete: median") == 3
    assert _points(trials, "complete: each repetition") == 8
    assert _points(trials, "incumbent (best median so far)") == 6   # from the first complete trial on
    assert _points(trials, "no rate (failed)") == 1
    assert _points(loaded.plot("tune1-importance"), "") == 2
    winner = d.execute_script("return document.querySelector('#tune1-winner .js-plotly-plot').data[0]")
    assert winner["x"] == [1.3] and winner["error_x"]["array"][0] == pytest.approx(0.08)
    assert "striping_factor" in d.find_element("id", "tune1-dropped").text


def test_hostile_names_stay_text(browser, tmp_path):
    """Case names and paths come from job files and logs: markup in them is shown, never run or fetched."""
    db = str(tmp_path / "runs.db")
    evil = "<img src=x onerror=window.pwned=1><script>window.pwned=2</script>"
    run_id = add_run(db, bench_cases(evil=evil), command=f"pario bench {evil}")
    loaded = _open(browser, build(runs=[Store(db).get_run(run_id)]), tmp_path, "hostile")
    assert browser.driver.execute_script("return window.pwned === undefined")
    assert evil in browser.driver.find_element("id", f"run{run_id}-facts").text
    assert loaded.plot(f"run{run_id}-bandwidth")["svgPoints"] == 16
