"""Analysis of result documents (hand-made, schema-valid) and its rendering."""
import io

import pytest
from rich.console import Console

from pario.analysis import compare, summary
from pario.report.terminal import hints as hint_tables
from pario.report.terminal import runs, tables
from result_factory import MIB, case, result, validate

GIB = 1 << 30


def _rows(*cases, env=None, **kw):
    doc = result(*cases, **kw)
    validate(doc)
    return summary.summarize(doc, env)


def test_medians_ranges_and_case_facts():
    (row,) = _rows(case("fpp-posix", 0, write=[900.0, 800.0, 1000.0, 850.0], read=[3000.0, 2000.0, 2500.0, 2600.0]))
    w = row["write"]
    assert w["n"] == 4 and w["bw_mib"]["samples"] == [900.0, 800.0, 1000.0, 850.0]
    assert w["bw_mib"]["median"] == pytest.approx(875.0)
    assert (w["bw_mib"]["min"], w["bw_mib"]["max"]) == (800.0, 1000.0)
    # transfer-only excludes open/close (5% here), so it is faster than open-to-close
    assert w["xfer_bw_mib"]["median"] == pytest.approx(875.0 / 0.95, rel=1e-6)
    assert w["iops"] == pytest.approx(64 / (64 / 875.0 * 0.95), rel=0.05)
    assert w["open_close_share"] == pytest.approx(0.05)
    assert w["imbalance"] == pytest.approx(1.1)
    assert row["read"]["bw_mib"]["median"] == pytest.approx(2550.0)
    assert ((row["strategy"], row["backend"], row["pattern"], row["ranks"], row["files"])
            == ("fpp", "posix", "segmented", 4, 4))
    assert row["bytes"] == 64 * MIB and row["xfer"] == MIB
    assert row["verify"] is None and row["flags"] == []


def test_a_tune_trials_warm_up_repetition_is_left_out_as_tune_left_it_out():
    """pario tune runs one repetition more than it counts (a warm-up) and said 574 MiB/s where
    `pario results show` of the same run said 515 [174-899], the warm-up's 174 included."""
    write = [174.0, 560.0, 574.0, 899.0]
    (row,) = _rows(case("t", 0, write=write), env={"tune": {"session": 1, "role": "trial", "warmup": 1}})
    assert row["write"]["n"] == 3 and row["write"]["bw_mib"]["samples"] == write[1:]
    assert row["write"]["bw_mib"]["median"] == pytest.approx(574.0)
    (plain,) = _rows(case("t", 0, write=write))   # bench's own runs (and tune's stored before): all of them
    assert plain["write"]["n"] == 4


def test_strategy_names_nfiles_and_aggregate():
    rows = _rows(case("n2", 0, strategy="nfiles", nfiles=2, write=[1.0]),
                 case("n2a", 1, strategy="nfiles", nfiles=3, aggregate=True, write=[1.0]),
                 case("pn", 2, strategy="pernode", aggregate=True, write=[1.0]),
                 case("ser", 3, strategy="serial", aggregate=True, write=[1.0]))
    assert [r["strategy"] for r in rows] == ["nfiles:2", "nfiles:3+agg", "pernode+agg", "serial"]


def test_cache_flag_against_the_device_ceiling():
    env = {"ceiling": {"write_mib": 950.0, "read_mib": 5000.0}}
    (row,) = _rows(case("c", 0, write=[900.0, 1000.0, 800.0], read=[3000.0, 3100.0]), env=env)
    assert "cache?" in row["flags"]
    assert row["cache_details"] == ["write 1/3 above 950 MiB/s"]
    assert row["write"]["flags"] == ["cache?"] and row["read"]["flags"] == []
    (row,) = _rows(case("c", 0, write=[900.0, 800.0], read=[3000.0]), env=env)
    assert "cache?" not in row["flags"]
    (row,) = _rows(case("c", 0, write=[9000.0]), env={})  # no ceiling measured: no claim
    assert "cache?" not in row["flags"]
    # fsync inside the timed phase (-e): not write-back; the probe was low, not the page cache
    (row,) = _rows(case("c", 0, write=[900.0, 1000.0, 800.0], fsync=True), env=env)
    assert "cache?" not in row["flags"] and row["write"]["flags"] == []
    assert row["cache_details"] == ["write 1/3 above 950 MiB/s with fsync inside the timed phase: not "
                                    "write-back, so the probe was low or the device caches writes"]


def test_warm_reads_and_what_makes_them_cold():
    mem = {"mem_total": 24 * GIB}
    small = dict(write=[500.0], read=[5000.0])
    (row,) = _rows(case("w", 0, **small), env=mem)
    assert "warm" in row["flags"] and row["read"]["flags"] == ["warm"] and row["write"]["flags"] == []
    assert "warm" not in _rows(case("w", 0, odirect=True, **small), env=mem)[0]["flags"]
    assert "warm" not in _rows(case("w", 0, **small), env={**mem, "caches_dropped": True})[0]["flags"]
    assert "warm" not in _rows(case("w", 0, nbytes=64 * GIB, **small), env=mem)[0]["flags"]
    assert "warm" not in _rows(case("w", 0, write=[500.0]), env=mem)[0]["flags"]  # nothing read
    # reading a neighbour's data on the same host is still page cache ...
    assert "warm" in _rows(case("w", 0, reorder=1, **small), env=mem)[0]["flags"]
    # ... but a shift of a whole host's ranks across two hosts is not
    two_hosts = [{"name": "a", "ranks": 2}, {"name": "b", "ranks": 2}]
    assert "warm" not in _rows(case("w", 0, reorder=2, **small), env=mem, hosts=two_hosts)[0]["flags"]
    assert "warm" not in _rows(case("w", 0, reorder=-1, **small), env=mem, hosts=two_hosts)[0]["flags"]
    assert "warm" in _rows(case("w", 0, reorder=1, **small), env=mem, hosts=two_hosts)[0]["flags"]


def test_partial_and_verify_outcomes():
    (row,) = _rows(case("p", 0, write=[100.0, 110.0], read=[200.0, 210.0], reps=3), status="partial")
    assert "partial" in row["flags"]
    (row,) = _rows(case("v", 0, write=[100.0], read=[200.0], verify_errors=0))
    assert row["verify"]["errors"] == 0 and row["verify"]["checked_bytes"] == 64 * MIB
    assert row["flags"] == []
    (row,) = _rows(case("v", 0, write=[100.0, 100.0], read=[200.0, 200.0], verify_errors=3))
    # each phase counts the words it read: two phases finding 3 each are 3 bad words, twice
    assert row["verify"]["errors"] == 3 and row["verify"]["failing_phases"] == 2
    assert [(p["op"], p["rep"], p["errors"]) for p in row["verify"]["by_phase"]] == [("verify", 0, 3), ("verify", 1, 3)]
    assert row["verify"]["first_error"]["offset"] == 4096
    assert "verify-errors" in row["flags"]


def test_verified_data_repeats_every_ring_of_at_least_one_call():
    def period(xfer, buffer_max):
        c = case("v", 0, write=[100.0], read=[200.0], verify_errors=0, xfer=xfer, buffer_max=buffer_max)
        c["verify_exact"] = False
        (row,) = _rows(c)
        return row["verify"]["repeats_every"]
    assert period(4096, MIB) == MIB
    assert period(4 * MIB, MIB) == 4 * MIB  # one call is the smallest ring
    assert period(3 * MIB, 8 * MIB) == 6 * MIB  # whole calls only


def test_fastest_by_median_not_by_maximum():
    rows = _rows(case("steady", 0, write=[600.0, 610.0, 620.0]),
                 case("spiky", 1, strategy="shared", write=[100.0, 120.0, 5000.0]))
    assert summary.fastest(rows, "write")["name"] == "steady"
    assert summary.fastest(rows, "read") is None
    assert summary.fastest([], "write") is None


def test_compare_ratio_and_noise():
    a = _rows(case("fpp", 0, write=[100.0, 110.0, 120.0], read=[500.0, 510.0, 520.0]),
              case("shared", 1, strategy="shared", write=[50.0, 55.0, 60.0]),
              case("gone", 2, strategy="serial", write=[10.0, 11.0]))
    b = _rows(case("fpp", 0, write=[200.0, 210.0, 220.0], read=[505.0, 515.0, 525.0]),
              case("shared", 1, strategy="shared", write=[58.0, 59.0]),
              case("new", 2, strategy="nfiles", nfiles=2, write=[1.0]), case("new2", 3, write=[1.0], xfer=8))
    cmp = {(c["name_a"], c["name_b"]): c for c in compare.compare(a, b)}
    fpp = cmp[("fpp", "fpp")]
    assert fpp["write"]["ratio"] == pytest.approx(210.0 / 110.0)
    assert fpp["write"]["verdict"] == "B faster" and fpp["write"]["low"] == pytest.approx(200.0 / 120.0)
    assert fpp["read"]["verdict"] == "within noise" and fpp["read"]["low"] < 1 < fpp["read"]["high"]
    assert cmp[("shared", "shared")]["read"] is None
    assert cmp[("shared", "shared")]["write"]["verdict"] == "too few repetitions"  # 2 in B
    assert cmp[("gone", None)]["matched_by"] == "only in A"
    assert {k for k in cmp if k[0] is None} == {(None, "new"), (None, "new2")}


def test_compare_matches_differently_named_cases_by_shape():
    a = _rows(case("ior0-mpiio-shared", 0, backend="mpiio", strategy="shared", collective=True, write=[100.0]))
    b = _rows(case("shared-mpiio-coll", 0, backend="mpiio", strategy="shared", collective=True, write=[90.0, 95.0]),
              case("fpp-posix", 1, write=[100.0, 100.0]))
    out = compare.compare(a, b)
    assert out[0]["matched_by"] == "shape" and out[0]["name_b"] == "shared-mpiio-coll"
    assert out[0]["write"]["low"] is None and out[0]["write"]["verdict"] == "too few repetitions"


def _render(fn, *args):
    buf = io.StringIO()
    fn(Console(file=buf, width=200, color_system=None), *args)
    return buf.getvalue()


def test_summary_table_names_fastest_and_explains_flags():
    rows = _rows(case("fpp-posix", 0, write=[800.0, 900.0, 850.0], read=[3000.0, 3100.0]),
                 case("shared-mpiio", 1, backend="mpiio", strategy="shared", write=[400.0, 420.0], read=[900.0, 950.0]),
                 env={"ceiling": {"write_mib": 870.0, "read_mib": 10000.0}})
    text = _render(tables.print_summary, rows)
    assert "fpp/posix" in text and "shared/mpiio" in text
    assert "850 [800-900]" in text and "410 [400-420]" in text
    assert "Fastest write here: fpp/posix at 850 MiB/s (median of 3), 2.07x shared/mpiio" not in text
    assert "No verdict on the fastest write: 2 repetitions are too few" in text  # shared-mpiio ran twice
    assert "cache?" in text and "write 1/3 above 870 MiB/s" in text


def test_labels_grow_only_where_cases_differ():
    rows = _rows(case("a", 0, write=[1.0]), case("b", 1, write=[1.0], xfer=4096, nbytes=4 * MIB),
                 case("c", 2, pattern="random", write=[1.0]))
    assert tables.case_labels(rows) == ["fpp/posix segmented t=1M", "fpp/posix segmented t=4k",
                                        "fpp/posix random t=1M"]


def test_run_view_marks_hints_that_did_not_take_effect():
    hints = {"requested": {"romio_cb_write": "enable", "striping_factor": "4", "cb_nodes": "2"},
             "effective": {"romio_cb_write": "enable", "cb_nodes": "1", "cb_buffer_size": "16777216"},
             "source": "MPI_File_get_info"}
    doc = result(case("shared-mpiio", 0, backend="mpiio", strategy="shared", write=[100.0, 101.0], hints=hints))
    validate(doc)
    run = {"id": 7, "created": "2026-11-22T03:00:00Z", "kind": "bench", "status": "complete",
           "command": "pario bench -a mpiio --hint romio_cb_write=enable", "spec": {},
           "env": {"io_component": "romio321", "dir": "/scratch/x", "ceiling": {"write_mib": 700.0, "read_mib": 900.0}},
           "result": doc}
    text = _render(runs.print_run, run)
    assert "romio321" in text and "/scratch/x" in text and "Open MPI v4.1.4" in text
    assert "write 700 MiB/s" in text
    assert "not applied (absent after open)" in text and "not applied (is 1)" in text
    assert hint_tables.not_applied(hints) == ["cb_nodes", "striping_factor"]


def test_headline_and_empty_runs():
    doc = result(case("fpp-posix", 0, write=[850.0], read=[3000.0]))
    assert summary.headline(doc) == "1 case, 4 ranks: fpp/posix write 850, read 3000 MiB/s"
    two = result(case("fpp-posix", 0, write=[850.0], read=[3000.0]),
                 case("shared-posix", 1, strategy="shared", write=[900.0], read=[2000.0]))
    # each figure with its unit (it was "... (top fpp/posix 3000) MiB/s")
    assert summary.headline(two) == ("2 cases, 4 ranks; no clear write winner (top shared/posix 900 MiB/s), "
                                     "no clear read winner (top fpp/posix 3000 MiB/s)")
    clear = result(case("fpp-posix", 0, write=[850.0, 860.0, 870.0]),
                   case("shared-posix", 1, strategy="shared", write=[900.0, 910.0, 920.0]))
    assert summary.headline(clear) == "2 cases, 4 ranks; best write shared/posix 910 MiB/s"
    empty = result()
    assert summary.summarize(empty) == [] and summary.headline(empty) == "0 cases, 4 ranks"
    assert "no cases" in _render(tables.print_summary, [])


def test_compare_loose_match_only_when_unambiguous():
    a = _rows(case("big", 0, write=[100.0, 110.0]))
    b = _rows(case("small", 0, write=[10.0, 11.0], xfer=4096, nbytes=4 * MIB))
    (entry,) = compare.compare(a, b)
    assert entry["matched_by"] == "strategy/backend" and entry["write"]["ratio"] == pytest.approx(10.5 / 105.0)
    b2 = _rows(case("small", 0, write=[10.0], xfer=4096, nbytes=4 * MIB),
               case("smaller", 1, write=[1.0], xfer=512, nbytes=MIB))
    assert sorted(e["matched_by"] for e in compare.compare(a, b2)) == ["only in A", "only in B", "only in B"]
    mpiio = _rows(case("m", 0, backend="mpiio", write=[1.0]))
    assert sorted(e["matched_by"] for e in compare.compare(a, mpiio)) == ["only in A", "only in B"]


def test_narrow_terminal_keeps_every_figure():
    rows = _rows(case("fpp-posix", 0, write=[3477.0, 3770.0, 3797.0], read=[17172.0, 17359.0, 18606.0]),
                 case("shared-mpiio", 1, backend="mpiio", strategy="shared", collective=True,
                      write=[500.0, 520.0, 560.0], read=[2000.0, 2100.0, 2050.0]),
                 env={"ceiling": {"write_mib": 399.0, "read_mib": 1141.0}})
    buf = io.StringIO()
    tables.print_summary(Console(file=buf, width=80, color_system=None), rows)
    text = buf.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    for figure in ("3770 [3477-3797]", "17359 [17172-18606]", "520 [500-560]", "2050 [2000-2100]", "cache?"):
        assert figure in text
