"""`pario results`: list, show, compare, import-ior, through the real command line."""
import json
from pathlib import Path

import pytest

from pario.analysis.summary import headline
from pario.cli import main
from pario.store import Store
from result_factory import case, result

pytestmark = [pytest.mark.e2e]

DATA = Path(__file__).parent / "data"


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich would wrap the tables at 80 columns under capture
    return str(tmp_path / "runs.db")


def _add(db, *cases, kind="bench", command="pario bench", env=None):
    doc = result(*cases)
    return Store(db).add_run(kind=kind, command=command, spec={"cases": [{"name": c["name"]} for c in cases]},
                             env=env or {}, result=doc, status="complete", headline=headline(doc))


def _json(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_read_only_commands_never_create_a_store(tmp_path, capsys):
    # issue 15: a mistyped --db of results list/show/compare (or report) said "no runs" and left
    # an empty database (and its directories) behind
    missing = tmp_path / "typo" / "runs.db"
    for argv in (["results"], ["results", "show", "1"], ["results", "compare", "1", "2"], ["report"]):
        assert main(argv + ["--db", str(missing)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no results store at" in err, err
    assert not (tmp_path / "typo").exists()


def test_list_empty_then_runs(db, capsys):
    Store(db)  # an empty store (pario bench creates it)
    assert main(["results", "--db", db]) == 0
    assert "no runs stored yet" in capsys.readouterr().out
    first = _add(db, case("fpp-posix", 0, write=[800.0, 900.0]))
    second = _add(db, case("shared-posix", 0, strategy="shared", write=[300.0, 310.0]), command="pario bench -w")
    doc = _json(capsys, ["results", "--json", "--db", db])
    assert [r["id"] for r in doc["runs"]] == [second, first]
    assert doc["runs"][0]["command"] == "pario bench -w" and doc["db"] == db
    # options after the action work too, and --limit applies
    doc = _json(capsys, ["results", "--limit", "1", "--db", db, "--json"])
    assert [r["id"] for r in doc["runs"]] == [second]
    assert main(["results", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "pario bench -w" in out and "shared/posix write 305 MiB/s" in out


def test_show_table_and_json(db, capsys):
    hints = {"requested": {"romio_cb_write": "enable", "striping_unit": "1048576"},
             "effective": {"romio_cb_write": "enable"}}
    run_id = _add(db, case("shared-mpiio", 0, backend="mpiio", strategy="shared", write=[400.0, 420.0, 410.0],
                           read=[900.0, 950.0, 1000.0], hints=hints),
                  case("fpp-posix", 1, write=[800.0, 900.0, 850.0], read=[3000.0, 3100.0, 3050.0]),
                  env={"io_component": "ompio", "ceiling": {"write_mib": 600.0, "read_mib": 2000.0}})
    assert main(["results", "show", str(run_id), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "410 [400-420]" in out and "Fastest write here: fpp/posix" in out
    assert "cache?" in out and "ompio" in out
    assert "striping_unit" in out and "not applied" in out
    doc = _json(capsys, ["results", "show", "last", "--json", "--db", db])
    assert doc["id"] == run_id and doc["kind"] == "bench"
    assert doc["result"]["cases"][0]["hints"] == hints
    rows = {r["name"]: r for r in doc["summary"]}
    assert rows["fpp-posix"]["write"]["bw_mib"]["median"] == 850.0
    assert rows["fpp-posix"]["flags"] == ["cache?"]


def test_compare_two_runs(db, capsys):
    a = _add(db, case("fpp-posix", 0, write=[100.0, 110.0, 120.0]))
    b = _add(db, case("fpp-posix", 0, write=[200.0, 210.0, 220.0]))
    doc = _json(capsys, ["results", "compare", str(a), str(b), "--json", "--db", db])
    (entry,) = doc["cases"]
    assert (doc["a"], doc["b"]) == (a, b)
    assert entry["write"]["ratio"] == pytest.approx(210.0 / 110.0) and entry["write"]["verdict"] == "B faster"
    assert main(["results", "compare", str(a), str(b), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "1.91" in out and "B faster" in out


def test_import_ior_then_compare_with_a_pario_run(db, capsys):
    doc = _json(capsys, ["results", "import-ior", str(DATA / "ior4-mpiio-shared.json"), "--json", "--db", db])
    ior_id = doc["id"]
    assert doc["kind"] == "ior" and doc["cases"] == ["ior0-mpiio-shared"]
    run = Store(db).get_run(ior_id)
    assert run["kind"] == "ior" and run["command"].startswith("ior -a MPIIO")
    assert run["env"]["imported_from"].endswith("ior4-mpiio-shared.json")
    mine = _add(db, case("shared-mpiio-c", 0, backend="mpiio", strategy="shared", collective=True,
                         write=[700.0, 720.0, 710.0], read=[2200.0, 2300.0, 2250.0]))
    cmp = _json(capsys, ["results", "compare", str(ior_id), str(mine), "--json", "--db", db])
    (entry,) = cmp["cases"]
    assert entry["matched_by"] == "shape" and entry["name_a"] == "ior0-mpiio-shared"
    assert entry["write"]["ratio"] == pytest.approx(710.0 / 624.238, rel=1e-4)
    assert entry["write"]["verdict"] == "B faster" and entry["read"]["verdict"] == "within noise"
    assert main(["results", "show", str(ior_id), "--db", db]) == 0
    assert "624 [582-674]" in capsys.readouterr().out
    assert main(["results", "import-ior", str(DATA / "ior4-mpiio-shared.json"), "--db", db]) == 0
    assert "Imported IOR run as run" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["results", "show", "99"], "no run 99 in"),
    (["results", "show", "abc"], "run id must be a number"),
    (["results", "compare", "1", "99"], "no run 99 in"),
    (["results", "show", "last"], "no runs stored yet"),
    (["results", "import-ior", "/nonexistent/ior.json"], "IOR summary /nonexistent/ior.json does not exist"),
    (["results", "--limit", "0"], "argument --limit: '0' is out of range"),
])
def test_bad_input_exits_2_with_one_line(db, capsys, argv, message):
    Store(db)
    if argv[1] == "compare":
        _add(db, case("a", 0, write=[1.0]))
    assert main(argv + ["--db", db]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("pario: error: ")


def test_import_of_a_file_that_is_not_ior(db, capsys, tmp_path):
    bad = tmp_path / "fio.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": []}')
    assert main(["results", "import-ior", str(bad), "--db", db]) == 2
    err = capsys.readouterr().err
    assert "not IOR's summary" in err and err.count("\n") == 1
    assert Store(db).list_runs() == []  # nothing stored


def test_unwritable_db_location(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["results", "import-ior", str(DATA / "ior4-mpiio-shared.json"), "--db", str(blocker / "runs.db")]) == 2
    err = capsys.readouterr().err
    assert "cannot create the results directory" in err and err.count("\n") == 1


def test_compare_fail_slower_is_an_exit_code_for_ci(db, capsys):
    a = _add(db, case("fpp-posix", 0, write=[1000.0, 1010.0, 990.0], read=[500.0, 505.0, 495.0]))
    slower = _add(db, case("fpp-posix", 0, write=[700.0, 710.0, 690.0], read=[498.0, 502.0, 500.0]))
    noisy = _add(db, case("fpp-posix", 0, write=[700.0, 1200.0, 690.0], read=[500.0, 505.0, 495.0]))
    # 30% slower, outside the noise: exit 1, one line naming the case and the operation
    assert main(["results", "compare", str(a), str(slower), "--fail-slower", "10", "--db", db]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "regression: " in err and " write at 0.70x" in err and "30% slower" in err
    # under the threshold, or within the noise (the ranges overlap): exit 0
    assert main(["results", "compare", str(a), str(slower), "--fail-slower", "40", "--db", db]) == 0
    assert main(["results", "compare", str(a), str(noisy), "--fail-slower", "10", "--db", db]) == 0
    capsys.readouterr()
    doc = _json(capsys, ["results", "compare", str(a), str(noisy), "--fail-slower", "10", "--json", "--db", db])
    assert doc["regressions"] == [] and doc["fail_slower_pct"] == 10
    assert main(["results", "compare", str(a), str(slower), "--fail-slower", "150", "--db", db]) == 2


def test_export_csv(db, capsys, tmp_path):
    import csv as csvmod

    first = _add(db, case("fpp-posix", 0, write=[800.0, 900.0], read=[400.0, 410.0]))
    second = _add(db, case("shared-posix", 0, strategy="shared", write=[300.0]))
    assert main(["results", "export", str(first), str(second), "--db", db]) == 0
    rows = list(csvmod.DictReader(capsys.readouterr().out.splitlines()))
    assert [(r["run"], r["case"], r["op"]) for r in rows] == [
        (str(first), "fpp-posix", "write"), (str(first), "fpp-posix", "read"), (str(second), "shared-posix", "write")]
    assert float(rows[0]["mib_s_median"]) == 850.0 and rows[0]["mib_s_min"] == "800.0" and rows[0]["samples"] == "2"
    out = tmp_path / "runs.csv"
    assert main(["results", "export", "last", "-o", str(out), "--db", db]) == 0
    assert out.read_text().splitlines()[1].startswith(f"{second},")
    assert main(["results", "export", "1", "-o", str(tmp_path / "no" / "x.csv"), "--db", db]) == 2


def test_errors_under_json_are_json(tmp_path, capsys):
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "error.schema.json").read_text())
    assert main(["results", "show", "1", "--json", "--db", str(tmp_path / "none.db")]) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)
    jsonschema.validate(doc, schema)
    assert doc["command"] == "results" and "no results store at" in doc["error"] and doc["exit_code"] == 2
    assert err.startswith("pario: error: no results store at")


def test_filter_tag_and_remove(db, capsys):
    a = _add(db, case("fpp-posix", 0, write=[800.0]))
    b = _add(db, case("shared-posix", 0, strategy="shared", write=[300.0]))
    assert main(["results", "tag", str(a), "baseline", "lustre-1", "--db", db]) == 0
    assert f"run {a}: tagged baseline lustre-1" in capsys.readouterr().out

    def ids(*flags):
        return [r["id"] for r in _json(capsys, ["results", *flags, "--json", "--db", db])["runs"]]

    assert ids("--tag", "baseline") == [a]
    assert ids("--case", "shared-posix") == [b] and ids("--case", "nope") == []
    assert ids("--since", "2000-01-01") == [b, a] and ids("--since", "2999-01-01") == []
    assert ids("--since", "1h") == [b, a]
    assert _json(capsys, ["results", "--json", "--db", db])["runs"][1]["tags"] == ["baseline", "lustre-1"]
    assert main(["results", "--tag", "nope", "--db", db]) == 0
    assert "no stored run matches these filters" in capsys.readouterr().out
    assert main(["results", "tag", str(a), "baseline", "--remove", "--db", db]) == 0
    capsys.readouterr()
    assert ids("--tag", "baseline") == []
    for argv, message in ((["results", "tag", str(a), "bad tag!"], "use letters, digits"),
                          (["results", "--since", "yesterday"], "--since yesterday"),
                          (["results", "remove", str(a), "99"], "no run 99")):
        assert main(argv + ["--db", db]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert ids() == [b, a]  # a failed remove removed nothing
    assert main(["results", "remove", str(a), "--db", db]) == 0
    capsys.readouterr()
    assert ids() == [b] and ids("--tag", "lustre-1") == []


@pytest.mark.parametrize("width", [80, 160])
def test_list_and_compare_fit_the_terminal(db, capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    command = "pario bench --config /work/somewhere/rather/long/examples/metadata-lrz-dir-size.toml -n 4"
    a = _add(db, case("fpp-posix", 0, write=[1000.0, 1010.0]), command=command)
    b = _add(db, case("fpp-posix", 0, write=[700.0, 710.0]))
    main(["results", "tag", str(a), "baseline", "--db", db])
    capsys.readouterr()
    for argv, whole in ((["results"], ["metadata-", "lrz-", "dir-", "size.toml", "baseline"]),
                        (["results", "compare", str(a), str(b)], ["1005 [1000-1010]", "705 [700-710]", "0.70"])):
        assert main(argv + ["--db", db]) == 0
        out = capsys.readouterr().out
        assert all(len(line) <= width for line in out.splitlines()) and "…" not in out and "..." not in out
        for piece in whole:  # the command is never cut short: broken only after '/', '.', '-', '_'
            assert piece in out, (piece, out)


def test_kind_filter_and_trials_folded_under_their_session(db, capsys):
    """147 tune runs drowned 12 bench runs after one short session: a session's trials are one entry
    (its runs, its command and headline) unless --kind tune lists them; --kind picks a family."""
    from pario.model.tuning import TuningSession

    store = Store(db)
    bench = _add(db, case("a", 0, write=[100.0, 110.0, 105.0]))
    preset = _add(db, case("p", 0, write=[100.0]), env={"preset": "kaust-strategies"},
                  command="pario bench --preset kaust-strategies")
    sid = store.add_session(command="pario tune -a mpiio -w -n 2", doc=TuningSession(
        id=None, case={"name": "t"}, objective="write", ranks=2, space={}).to_dict(), status="done",
        headline="t write, 4 trials: default kept")
    trials = [_add(db, case("t", 0, write=[50.0]), kind="tune", env={"tune": {"session": sid, "role": r}},
                   command="pario bench -a mpiio -w -n 2") for r in ("control", "trial", "control", "confirm")]
    calib = _add(db, case("c", 0, write=[9.0]), kind="calibration")
    listed = _json(capsys, ["results", "--db", db, "--json"])["runs"]
    assert [r["id"] for r in listed] == [calib, trials[-1], preset, bench]
    folded = listed[1]
    assert folded["session"] == sid and sorted(folded["runs"]) == trials and folded["command"].startswith("pario tune")
    assert [r["family"] for r in listed] == ["advise", "tune", "preset", "bench"]
    one_by_one = _json(capsys, ["results", "--db", db, "--json", "--kind", "tune"])["runs"]
    assert [r["id"] for r in one_by_one] == trials[::-1] and {r["session"] for r in one_by_one} == {sid}
    for kind, ids in (("bench", [bench]), ("preset", [preset]), ("advise", [calib])):
        assert [r["id"] for r in _json(capsys, ["results", "--db", db, "--json", "--kind", kind])["runs"]] == ids
    assert main(["results", "--db", db]) == 0
    out = capsys.readouterr().out
    assert f"{trials[0]}-{trials[-1]}" in out and f"tuning session {sid}: 4 trial runs" in out
    assert main(["results", "--db", db, "--kind", "tune", "--limit", "2"]) == 0
    assert str(trials[1]) not in capsys.readouterr().out.split("summary")[0].split()[:40]
    assert main(["results", "--db", db, "--kind", "nothing"]) == 2


def test_a_listed_case_is_named_in_full():
    """'shared/mpiio' stood for the collective and the independent case alike in the run list."""
    doc = result(case("coll", 0, backend="mpiio", strategy="shared", write=[100.0], collective=True))
    assert "shared/mpiio coll write 100 MiB/s" in headline(doc)
    doc = result(case("indep", 0, backend="mpiio", strategy="shared", write=[100.0], collective=False))
    assert "shared/mpiio indep write 100 MiB/s" in headline(doc)
