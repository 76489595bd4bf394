"""Every --json output carries a schema name and version and validates against schemas/ (issue 15)."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pario.cli import main
from pario.store import Store
from result_factory import case, result

ROOT = Path(__file__).resolve().parents[2]
PROFILE_LOG = Path(__file__).parent / "data" / "profile" / "mpiio-coll-2ranks.log"


def _doc(capsys, argv) -> dict:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _valid(doc: dict) -> None:
    name = doc["schema"].removeprefix("pario.").rsplit("/", 1)[0]
    jsonschema.validate(doc, json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text()))


def test_every_schema_names_itself():
    for path in (ROOT / "schemas").glob("*.schema.json"):
        doc = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(doc)
        # the documents of --json outputs name themselves (the engine's spec/result and the profile log
        # carry their own format fields; advise and buffer-stats came from other issues without one yet)
        if "schema" in doc.get("properties", {}) and path.name not in ("spec.schema.json", "result.schema.json"):
            assert doc["properties"]["schema"]["const"] == doc["$id"] == f"pario.{path.name[:-12]}/1"


def test_results_outputs(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    db = str(tmp_path / "runs.db")
    ids = []
    for write in ([800.0, 900.0], [500.0, 510.0]):
        doc = result(case("fpp-posix", 0, write=write))
        ids.append(Store(db).add_run(kind="bench", command="pario bench", spec={}, env={}, result=doc,
                                     status="complete", headline=""))
    for argv in (["results"], ["results", "show", str(ids[0])],
                 ["results", "compare", str(ids[0]), str(ids[1]), "--fail-slower", "5"]):
        code = main(argv + ["--json", "--db", db])
        out, _ = capsys.readouterr()
        assert code in (0, 1)
        _valid(json.loads(out))


def test_profile_show(capsys):
    code = main(["profile", "show", str(PROFILE_LOG), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    _valid(json.loads(out))


def test_stack_and_settings(tmp_path, capsys):
    _valid(_doc(capsys, ["stack", str(tmp_path), "--no-probe", "--json"]))
    _valid(_doc(capsys, ["settings", "render", "--dialect", "romio", "--set", "cb_nodes=8", "--json"]))
    hints = tmp_path / "romio-hints.txt"
    hints.write_text("cb_nodes 8\n")
    code = main(["settings", "check", str(hints), "--json"])
    out, _ = capsys.readouterr()
    assert code in (0, 1)
    _valid(json.loads(out))


@pytest.mark.mpi
def test_bench(tmp_path):
    from cli_support import ENGINE, bench_json

    if not ENGINE:
        pytest.skip("the engine is not built")
    run, doc = bench_json(["-a", "posix", "-n", "1", "-t", "64k", "-b", "256k", "-i", "1", "--dir",
                           str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr
    _valid(doc)


TRACE_LOG = Path(__file__).parent / "data" / "profile" / "mpiio-coll-2ranks-trace.log"


def test_profile_trace_view_filters(capsys, monkeypatch):
    doc = _doc(capsys, ["profile", "show", str(TRACE_LOG), "--trace", "--json", "--limit", "1000"])
    _valid(doc)
    assert doc["total"] == doc["matching"] > 0
    times = [e["t"] for e in doc["events"]]
    assert times == sorted(times)
    one = _doc(capsys, ["profile", "show", str(TRACE_LOG), "--trace", "--json", "--rank", "1", "--file", "pario.",
                        "--from", "0.5", "--limit", "1000"])["events"]
    assert one and all(e["rank"] == 1 and "pario." in e["path"] and e["t"] >= 0.5 for e in one)
    assert {e["op"] for e in one} >= {"write", "read"} and {e["module"] for e in one} == {"posix", "mpiio"}
    # the table at 80 columns: no line wider, the figures whole
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["profile", "show", str(TRACE_LOG), "--trace", "--rank", "1", "--file", "pario.", "--from", "0.5",
                 "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 80 for line in out.splitlines()) and "…" not in out
    assert f"{one[0]['t']:.6f}" in out and f"{len(one) - 5} more" in out


def test_profile_trace_needs_a_trace(capsys):
    for argv, message in (([str(PROFILE_LOG), "--trace"], "has no trace"),
                          ([str(TRACE_LOG), "--rank", "1"], "add --trace")):
        assert main(["profile", "show", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
