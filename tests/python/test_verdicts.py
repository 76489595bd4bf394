"""Verdicts only where the measurements support them: the noise test (analysis/noise.py), the
"Fastest ... here" footer, warm-up outliers, and the note when every figure is page cache."""
import io

import pytest
from rich.console import Console

from pario.analysis import noise, summary, verdicts
from pario.report import json as json_report
from pario.report.terminal import tables
from result_factory import case, result, validate


def _rows(*cases, env=None, **kw):
    doc = result(*cases, **kw)
    validate(doc)
    return summary.summarize(doc, env)


def _text(rows, width=200):
    buf = io.StringIO()
    tables.print_summary(Console(file=buf, width=width, color_system=None), rows)
    return buf.getvalue()


def test_noise_test_claims_a_difference_only_beyond_the_spread():
    # the tuner's test (analysis/noise.py), which bench's verdict and compare use as they are
    clear = noise.compare([100.0, 110.0, 120.0], [200.0, 210.0, 220.0])
    assert clear.verdict == "faster" and clear.ratio == pytest.approx(210.0 / 110.0)
    # n = 3 each: the 95% interval is exactly [min(b)/max(a), max(b)/min(a)]
    assert clear.low == pytest.approx(200.0 / 120.0) and clear.high == pytest.approx(220.0 / 100.0)
    assert noise.compare([200.0, 210.0, 220.0], [100.0, 110.0, 120.0]).verdict == "slower"
    # the pair: fpp 3018 [1015-3352] against shared 2370 [1829-2564]
    tie = noise.compare([1829.0, 2370.0, 2564.0], [1015.0, 3018.0, 3352.0])
    assert tie.verdict == "within noise" and tie.low < 1 < tie.high
    few = noise.compare([100.0, 101.0], [300.0, 301.0])
    assert few.verdict == "too few samples" and few.low is None and few.ratio == pytest.approx(3.0, rel=0.01)
    # the same figures always give the same answer
    a, b = [10.0, 12.0, 11.0, 30.0, 9.0], [14.0, 13.0, 15.0, 12.5, 16.0]
    assert noise.compare(a, b) == noise.compare(a, b)


def test_more_repetitions_narrow_the_interval():
    a = [100.0, 104.0, 98.0, 101.0, 103.0, 99.0, 102.0, 100.5, 250.0]
    b = [110.0, 112.0, 108.0, 111.0, 109.0, 113.0, 107.0, 110.5, 90.0]
    # the ranges overlap (one outlier on each side), but the medians are apart well beyond the spread
    assert min(b) < max(a) and noise.compare(a, b).verdict == "faster"


def test_a_noisy_pair_names_no_winner():
    # the trial: `pario bench -n 4 --size 1g -w -e`: fpp 3018 [1015-3352], shared 2370 [1829-2564]
    rows = _rows(case("fpp-posix", 0, write=[1015.0, 3018.0, 3352.0]),
                 case("shared-posix", 1, strategy="shared", write=[1829.0, 2370.0, 2564.0]))
    w = verdicts.winner(rows, "write")
    assert w["clear"] is False and w["best"] == "fpp-posix" and w["ties"] == ["shared-posix"]
    text = _text(rows)
    assert "Fastest write" not in text
    assert "No clear fastest write" in text and "within the noise" in text
    doc = json_report.bench_document(_record(rows), rows, 1)
    assert doc["fastest"]["write"] is None and doc["verdicts"]["write"]["clear"] is False
    assert "no clear write winner" in summary.headline(result(*_cases(rows)))


def test_a_clear_pair_names_its_winner_with_the_interval():
    rows = _rows(case("fpp-posix", 0, write=[800.0, 900.0, 850.0]),
                 case("shared-posix", 1, strategy="shared", write=[400.0, 420.0, 410.0]))
    w = verdicts.winner(rows, "write")
    assert w["clear"] is True and w["best"] == "fpp-posix" and w["runner_up"] == "shared-posix"
    text = _text(rows)
    assert "Fastest write here: fpp/posix at 850 MiB/s (median of 3), 2.07x shared/posix [1.90-2.25]" in text
    assert json_report.bench_document(_record(rows), rows, 1)["fastest"]["write"] == "fpp-posix"


def test_too_few_repetitions_give_no_verdict():
    rows = _rows(case("fpp-posix", 0, write=[800.0]), case("shared-posix", 1, strategy="shared", write=[400.0]))
    assert verdicts.winner(rows, "write")["clear"] is False
    assert "No verdict on the fastest write: 1 repetition" in _text(rows)


def test_all_page_cache_is_said_with_what_to_do():
    env = {"ceiling": {"write_mib": 500.0, "read_mib": 900.0}}
    rows = _rows(case("fpp-posix", 0, write=[8000.0, 8900.0, 9100.0]),
                 case("shared-posix", 1, strategy="shared", write=[1064.0, 7000.0, 11043.0]), env=env)
    w = verdicts.winner(rows, "write")
    assert w["all_cache"] is True
    text = _text(rows)
    assert "Every write figure here is above the device ceiling" in text
    assert "--odirect" in text and "-e" in text


def test_a_slow_first_repetition_is_reported_as_warm_up():
    (row,) = _rows(case("fpp-posix", 0, write=[900.0, 8000.0, 8500.0, 8200.0]))
    assert "warm-up?" in row["write"]["flags"]
    assert row["write"]["warmup"]["factor"] == pytest.approx(8200.0 / 900.0)
    text = _text([row])
    assert "warm-up?" in text and "9.1x slower" in text
    # a first repetition within the spread of the others is not an outlier
    (row,) = _rows(case("fpp-posix", 0, write=[700.0, 800.0, 1000.0]))
    assert "warm-up?" not in row["write"]["flags"] and "warmup" not in row["write"]


def _cases(rows):
    return [case(r["name"], r["index"], strategy=r["strategy"], write=r["write"]["bw_mib"]["samples"])
            for r in rows]


def _record(rows):
    from pario.model.result import RunRecord
    return RunRecord(spec={}, env={}, result=result(*_cases(rows)), status="complete", message=None,
                     directory="/x", prefix="p", note="")


def test_no_clear_fastest_quotes_an_interval_that_includes_1():
    """The layers run said 'shared/hdf5 coll is within the noise of it (2.84x shared/netcdf4 indep
    [1.40-6.94] includes 1)': the runner-up by median is slower beyond the noise; the case within
    the noise has a lower median and a wider spread. The sentence quotes the tie's own interval."""
    import re

    from pario.analysis.summary import summarize
    from pario.report.terminal.tables import footer_lines
    from table_support import stored_run

    run = stored_run("layers-2ranks")
    lines = [ln for ln in footer_lines(summarize(run["result"], run["env"])) if ln.startswith("No clear fastest")]
    assert lines
    for line in lines:
        tie = line.split("but ", 1)[1].split(" is within" if " is within" in line else " are within")[0].split(",")[0]
        low, high = map(float, re.search(r"\[(\d+\.\d+)-(\d+\.\d+)\] includes 1", line).groups())
        assert low <= 1 <= high, line
        assert f"x {tie.strip()} [" in line, line
