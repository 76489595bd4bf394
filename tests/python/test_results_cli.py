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


def test_list_empty_then_runs(db, capsys):
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
    assert main(["results", "--db", str(blocker / "runs.db")]) == 2
    err = capsys.readouterr().err
    assert "cannot create the results directory" in err and err.count("\n") == 1
