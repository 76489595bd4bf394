"""Every --json output names its schema and validates against it, errors under --json included
(issue 15; schemas/README.md, section 8). test_json_schemas.py covers bench, results list/show/
compare, profile show, stack and settings render/check; this file the rest, and checks that no
command grew a --json this list does not know."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import jsonschema
import pytest

from pario.cli import build_parser, main
from pario.store import Store
from result_factory import case, result

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
PROFILE_LOG = DATA / "profile" / "mpiio-coll-2ranks.log"

# (command, action) of every parser with --json, and the schema(s) its documents follow
COVERED = {
    ("bench", None): "bench, bench-dry-run, backends, preset-list, preset, job",
    ("tune", None): "tune, tune-list, job",
    ("results", None): "results-list", ("results", "show"): "run", ("results", "compare"): "compare",
    ("results", "export"): "error (CSV only)", ("results", "tag"): "results-change",
    ("results", "remove"): "results-change", ("results", "import"): "results-import",
    ("results", "import-ior"): "results-import", ("results", "jobs"): "results-jobs",
    ("profile", None): "profile-summary, profile-trace", ("advise", None): "advise", ("stack", None): "stack",
    ("settings", "render"): "settings-render", ("settings", "check"): "settings-check",
    ("settings", "keys"): "settings-keys", ("predict", None): "predict",
}


def _valid(doc: dict) -> dict:
    name = doc["schema"].removeprefix("pario.").rsplit("/", 1)[0]
    jsonschema.validate(doc, json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text()))
    return doc


def _json(capsys, argv, codes=(0,)) -> dict:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in codes, err
    return _valid(json.loads(out))


def _with_json(parser: argparse.ArgumentParser, path: tuple[str, ...]):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _with_json(sub, (*path, name))
        elif "--json" in action.option_strings:
            yield path


def test_every_json_flag_is_covered():
    found = {(p[0], p[1] if len(p) > 1 else None) for p in _with_json(build_parser(), ())}
    assert found == set(COVERED), found ^ set(COVERED)


def test_schema_names_match_files():
    for path in (ROOT / "schemas").glob("*.schema.json"):
        doc = json.loads(path.read_text())
        jsonschema.Draft202012Validator.check_schema(doc)
        if "schema" in doc.get("properties", {}):
            assert doc["$id"] == f"pario.{path.name[:-12]}/1", path


def test_bench_listings(capsys):
    doc = _json(capsys, ["bench", "--list", "--json"])
    assert doc["backends"] and {"posix", "mpiio"} <= {b["name"] for b in doc["backends"]}
    assert _json(capsys, ["bench", "--preset", "list", "--json"])["presets"]


def test_settings_keys_and_tune_list(tmp_path, capsys):
    keys = _json(capsys, ["settings", "keys", "--json"])["keys"]
    assert any(k["key"] == "cb_nodes" for k in keys)
    Store(str(tmp_path / "t.db"))
    assert _json(capsys, ["tune", "--list", "--json", "--db", str(tmp_path / "t.db")])["sessions"] == []


def test_results_changes_and_imports(tmp_path, capsys):
    db = str(tmp_path / "runs.db")
    run = Store(db).add_run(kind="bench", command="pario bench", spec={}, env={}, status="complete", headline="",
                            result=result(case("fpp-posix", 0, write=[800.0])))
    assert _json(capsys, ["results", "tag", str(run), "base", "--json", "--db", db])["tags"] == ["base"]
    ior = _json(capsys, ["results", "import-ior", str(DATA / "ior-4.0.0-real-mpiio-coll.json"), "--json",
                         "--db", db])
    assert ior["kind"] == "ior" and ior["cases"]
    assert _json(capsys, ["results", "jobs", "--json", "--db", db])["jobs"] == []
    assert _json(capsys, ["results", "remove", str(run), "--json", "--db", db])["runs"] == [run]


def test_job_documents(tmp_path, capsys, monkeypatch):
    from pario.cli import submit
    from pario.model.jobs import JobState

    db = str(tmp_path / "runs.db")
    argv = ["bench", "-a", "posix", "-n", "1", "--script-only", "--json", "--db", db]
    monkeypatch.setattr("sys.argv", ["pario", *argv])  # the script's command line is pario's own
    assert "#SBATCH" in _json(capsys, argv)["script"]
    store = Store(db)
    row = store.add_job(kind="bench", job_id="42", command="pario bench", script="s.sh")
    code = submit.collect(store, row, JobState(job_id="42", state="FAILED", exit_code="1:0"), "", None, True)
    doc = _valid(json.loads(capsys.readouterr().out))
    assert code != 0 and doc["job"]["job_id"] == "42" and doc["runs"] == [] and doc["problems"]


def test_advise(tmp_path, capsys):
    doc = _json(capsys, ["advise", str(PROFILE_LOG), "--no-calibrate", "--json", "--db", str(tmp_path / "a.db")])
    assert doc["jobs"]


@pytest.mark.parametrize("argv, words", [
    (["settings", "keys", "--json", "--bogus"], "unrecognized arguments"),         # argparse's own refusal
    (["profile", "show", "/no/such.log", "--json"], "/no/such.log"),
    (["profile", "show", "--json", "--top", "x"], "--top"),
    (["results", "export", "1", "--json", "--db", "DB"], "writes CSV"),
    (["results", "show", "1", "--json", "--db", "/no/such/dir/runs.db"], "/no/such/dir/runs.db"),
    (["bench", "--preset", "no-such-preset", "--json"], "no-such-preset"),
    (["settings", "check", "/no/such/hints", "--json"], "/no/such/hints"),
    (["stack", "/no/such/dir", "--json", "--no-probe"], "/no/such/dir"),
    (["tune", "--list", "--json", "--db", "/no/such/dir/t.db"], "/no/such/dir"),
])
def test_errors_under_json_are_documents(tmp_path, capsys, argv, words):
    if "DB" in argv:
        db = str(tmp_path / "runs.db")
        Store(db).add_run(kind="bench", command="pario bench", spec={}, env={}, status="complete", headline="",
                          result=result(case("fpp-posix", 0, write=[800.0])))
        argv = [db if a == "DB" else a for a in argv]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code != 0 and err.count("\n") == 1, err
    doc = _valid(json.loads(out))
    assert doc["schema"] == "pario.error/1" and doc["exit_code"] == code and words in doc["error"]
    assert doc["command"] == argv[0]
