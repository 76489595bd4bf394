"""`pario report`, `pario results show ID --html` and `pario profile show LOG --html` through the
real command line: what they write, what they say, and one clear line for bad input; then the
issue's end-to-end case: two real `pario bench` runs and a profile log, reported and opened in
headless Chromium."""
from __future__ import annotations

import json

import pytest

from browser_support import Browser, need_browser
from cli_support import ENGINE, HAVE_MPIRUN, pario
from pario.cli import main
from pario.store import Store
from report_data import add_run, bench_cases, session
from test_report_trace import ev, job, process

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return str(tmp_path / "runs.db")


def _fails(capsys, argv, needle):
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("pario: error: ") and needle in lines[0], err
    return out


def test_report_newest_run_by_default(db, tmp_path, capsys):
    add_run(db, bench_cases())
    second = add_run(db, bench_cases(scale=0.5))
    assert main(["report", "--db", db]) == 0
    out = capsys.readouterr().out
    page = tmp_path / "pario-report.html"
    assert f"report of run {second} written to pario-report.html" in out and page.is_file()
    html = page.read_text()
    assert f"pario report: run {second}" in html and f"run{second}-bandwidth" in html
    assert "cdn." not in html.split("<script>", 1)[0]          # nothing but inline assets in the head


def test_report_runs_and_profile(db, tmp_path, capsys):
    a, b = add_run(db, bench_cases()), add_run(db, bench_cases(scale=2.0))
    log = tmp_path / "app.log"
    log.write_text(json.dumps(job(process(0, [ev("write", 0.1, 1e-3, 4096)]))))
    assert main(["report", str(a), "last", "--profile", str(log), "--db", db, "-o", "both.html"]) == 0
    out = capsys.readouterr().out
    assert f"runs {a}, {b}; profile {log}" in out
    html = (tmp_path / "both.html").read_text()
    assert "compare-bandwidth" in html and "profile1-trace" in html


def test_shortcuts(db, tmp_path, capsys):
    run_id = add_run(db, bench_cases())
    assert main(["results", "show", str(run_id), "--html", "--db", db]) == 0
    assert (tmp_path / f"pario-run-{run_id}.html").is_file()
    assert main(["results", "--db", db, "show", "last", "--html", "-o", "r.html"]) == 0
    assert (tmp_path / "r.html").is_file()
    log = tmp_path / "app.log"
    log.write_text(json.dumps(job(process(0, [ev("read", 0.2, 1e-3, 512)]))))
    assert main(["profile", "show", str(log), "--html"]) == 0
    assert "written to app.html" in capsys.readouterr().out and (tmp_path / "app.html").is_file()
    # the terminal output of show is unchanged without --html
    assert main(["results", "show", str(run_id), "--db", db]) == 0
    assert "shared" in capsys.readouterr().out


def test_advise_on_a_log_that_cannot_be_read(db, tmp_path, capsys):
    """--advise LOG with a missing or malformed log: one line, no page (the findings on a real
    profiled program: test_advise_e2e.py)."""
    add_run(db, bench_cases())
    _fails(capsys, ["report", "--advise", str(tmp_path / "none.log"), "--db", db], "none.log: no such file")
    bad = tmp_path / "bad.darshan"
    bad.write_bytes(b"\x1f\x8b" + b"not a darshan log" * 4)
    _fails(capsys, ["report", "--advise", str(bad), "--db", db], "bad.darshan")
    assert not (tmp_path / "pario-report.html").exists()


def test_report_of_a_stored_tuning_session(db, tmp_path, capsys):
    _fails(capsys, ["report", "--tune", "1", "--db", db], "no results store at")  # never created by report
    Store(db)
    _fails(capsys, ["report", "--tune", "1", "--db", db], "no tuning session 1")
    _fails(capsys, ["report", "--tune", "x", "--db", db], "give a tuning session number")
    number = Store(db).add_session(command="pario tune ...", doc=session().to_dict(), status="done")
    assert main(["report", "--tune", str(number), "--db", db]) == 0
    html = (tmp_path / "pario-report.html").read_text()
    assert "cb_nodes" in html and "1.22" in html       # the winner's settings and its interval


def test_bad_input_is_one_line(db, tmp_path, capsys):
    _fails(capsys, ["report", "--db", db], "no results store at")
    Store(db)
    _fails(capsys, ["report", "--db", db], "no runs stored")
    run_id = add_run(db, bench_cases())
    _fails(capsys, ["report", "7", "--db", db], "no run 7")
    _fails(capsys, ["report", "x1", "--db", db], "run id must be a number")
    _fails(capsys, ["report", str(run_id), str(run_id), "--db", db], "given twice")
    _fails(capsys, ["report", "--db", db, "-o", str(tmp_path)], "is a directory")
    _fails(capsys, ["report", "--db", db, "-o", str(tmp_path / "no" / "such.html")], "does not exist")
    bad = tmp_path / "bad.log"
    bad.write_text("{not json")
    _fails(capsys, ["report", "--profile", str(bad)], "not a pario profile log")
    broken = tmp_path / "broken.log"
    broken.write_text(json.dumps(job(process(0, [["posix", "write", "0" * 16, 0, None, "x", 1.0, 1]]))))
    _fails(capsys, ["report", "--profile", str(broken)], "malformed")
    same = tmp_path / "same.log"
    same.write_text(json.dumps(job(process(0, []))))
    _fails(capsys, ["profile", "show", str(same), "--html", "-o", str(same)], "is the profile log being read")
    assert json.loads(same.read_text())["kind"] == "job"      # the log is untouched
    # a report that fails leaves an existing page as it was
    keep = tmp_path / "keep.html"
    keep.write_text("old page")
    _fails(capsys, ["report", "--profile", str(bad), "-o", str(keep)], "not a pario profile log")
    assert keep.read_text() == "old page"


@pytest.mark.mpi
@pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (make setup)")
def test_real_runs_and_profile_in_chromium(tmp_path):
    """The issue's "done when": two real bench runs compared and a real profile log, reported and
    opened offline in Chromium without errors."""
    need_browser()
    for _ in range(2):
        run = pario(["-a", "posix", "-n", "2", "-t", "64k", "-b", "1m", "-i", "2", "-w", "-r", "--no-probe",
                     "--dir", str(tmp_path / "scratch")], tmp_path, timeout=300)
        assert run.returncode == 0, run.stderr
    rep = pario(["1", "2", "-o", "runs.html"], tmp_path, command="report")
    assert rep.returncode == 0 and "report of runs 1, 2 written to runs.html" in rep.stdout, rep.stderr
    one = pario(["show", "1", "--html", "-o", "run1.html"], tmp_path, command="results")
    assert one.returncode == 0, one.stderr
    with Browser() as b:
        for name, plots in (("runs", {"compare-bandwidth", "run1-bandwidth", "run2-timeline-0"}),
                            ("run1", {"run1-bandwidth", "run1-iops", "run1-imbalance", "run1-timeline-0"})):
            loaded = b.open(tmp_path / f"{name}.html", tmp_path / f"{name}.png")
            assert loaded.errors == [] and loaded.requests == [], (loaded.errors, loaded.requests)
            assert plots <= {p["id"] for p in loaded.plots}
            assert all(sum(t["points"] for t in p["traces"]) > 0 for p in loaded.plots)
            # a real run's timeline: 2 ranks per phase, no rank starting before the first open (the
            # steps are back to back, so start = done - open - transfer - sync - close)
            timeline = loaded.plot("run1-timeline-0")
            assert all(t["points"] == 2 for t in timeline["traces"])
            starts = b.driver.execute_script(
                "return document.querySelector('#run1-timeline-0 .js-plotly-plot').data"
                ".filter(t => t.name === 'open').map(t => Math.min(...t.base))")
            assert starts and min(starts) >= -1e-6, starts


@pytest.mark.mpi
@pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (make setup)")
def test_real_metadata_run_in_chromium(tmp_path):
    need_browser()
    run = pario(["--metadata", "--files-per-dir", "20", "-n", "2", "-i", "2", "--no-probe",
                 "--dir", str(tmp_path / "scratch")], tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    rep = pario(["-o", "md.html"], tmp_path, command="report")
    assert rep.returncode == 0, rep.stderr
    with Browser() as b:
        loaded = b.open(tmp_path / "md.html", tmp_path / "md.png")
        assert loaded.errors == [] and loaded.requests == [], (loaded.errors, loaded.requests)
        plot = loaded.plot("run1-metadata")
        medians = [t for t in plot["traces"] if t["name"].endswith("median [min-max]")]
        reps = [t for t in plot["traces"] if t["name"].endswith("each repetition")]
        assert medians and medians[0]["points"] == 5            # create, stat, open_close, read_small, remove
        assert reps[0]["points"] == 10                          # two repetitions of each
        counts = b.driver.find_element("id", "run1-metadata-counts").text
        # tree, files per repetition, created, removed (20 files x 2 repetitions), left behind, read back
        assert "shared 20 40 40 0 verified" in counts, counts
