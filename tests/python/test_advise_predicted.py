"""pario advise of a log from another system: costed by pario predict's model of that system when
one is given (--system SYSTEM.toml, or $PARIO_SYSTEM), and saying so; without one, uncosted with
the reason. Either way nothing is measured on this machine (advise/predicted.py)."""
from __future__ import annotations

import sqlite3
import types
from pathlib import Path

import pytest

from advise_support import advise, validate
from pario.advise.costs import Query
from pario.advise.predicted import Predicted
from pario.plan.cases import build_case
from pario.predict import for_pattern
from pario.predict.pattern import from_case

ROOT = Path(__file__).resolve().parents[2]
ARCHER2 = ROOT / "examples" / "systems" / "archer2.toml"
MIB = 1 << 20


def _runs(tmp: Path) -> int:
    db = tmp / "runs.db"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        tables = {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
        return con.execute("select count(*) from runs").fetchone()[0] if "runs" in tables else 0


def test_a_pattern_is_predicted_at_the_jobs_scale_and_nothing_runs():
    job = types.SimpleNamespace(nprocs=2048, hosts=[])
    pred = Predicted(str(ARCHER2), job)
    assert pred.nodes == 16 and not pred.can_measure and "nothing is measured here" in pred.why_not
    before = {"backend": "mpiio", "strategy": "shared", "collective": True, "transfer": 8 * MIB, "block": 8 * MIB,
              "ops": ["write"]}
    after = dict(before, hints={"romio_cb_write": "disable"})
    q = Query.of("cb@2048", 2048, {"before": before, "after": after})
    got = pred.measure([q])[q.key]
    direct = for_pattern(pred.system, from_case(build_case(before), {"nodes": 16, "ranks_per_node": 128}))
    assert got["before"].time_s == pytest.approx(direct.seconds)
    assert got["before"].lo < got["before"].time_s < got["before"].hi
    assert got["after"].kind.startswith("predicted by the system model of ARCHER2")
    model, note = pred.model()
    assert model is not None and "not measured" in note and model.write.bw == 2 ** 30   # the stated 1 GiB/s


@pytest.fixture
def log() -> Path:
    """A Darshan log PyDarshan ships, from another system (it names no host): one process using 153
    files, whose fix (one file per rank) is a pattern the model costs. Its
    example.darshan (vpicio) has no such finding: every rank wrote its own 1 GiB at the POSIX level,
    so collective buffering moved no data between ranks and turning it off is not advised."""
    darshan = pytest.importorskip("darshan", reason="PyDarshan (pip install 'pario[darshan]') is not installed")
    return Path(darshan.__file__).parent / "examples" / "example_logs" / "dxt.darshan"


def _many_files(job: dict) -> dict:
    return next(f for f in job["findings"] + job["not_costed"] if f["rule"] == "many-files")


def test_a_log_from_another_system_is_costed_by_the_model_given_and_says_so(tmp_path, monkeypatch, log):
    monkeypatch.delenv("PARIO_SYSTEM", raising=False)
    doc = advise([log], tmp_path, "--system", ARCHER2)
    validate(doc)
    job = doc["jobs"][0]
    system = job["stack"]["system"]
    assert system["model_of"] == "ARCHER2" and not system["here"] and not system["measured_here"]
    assert "system model of ARCHER2" in job["calibration"]["note"]
    cb = _many_files(job)
    assert cb["seconds_at_stake"] and "predicted by the system model of ARCHER2" in cb["estimate"]
    assert _runs(tmp_path) == 0                                   # nothing ran here


def test_without_a_model_it_is_uncosted_with_the_reason_and_nothing_runs(tmp_path, monkeypatch, log):
    monkeypatch.delenv("PARIO_SYSTEM", raising=False)
    job = advise([log], tmp_path)["jobs"][0]
    cb = _many_files(job)
    assert cb["seconds_at_stake"] is None and cb in job["not_costed"]
    why = job["stack"]["system"]["why"]
    assert "another system" in why and "--system SYSTEM.toml" in why and "PARIO_SYSTEM" in why
    assert _runs(tmp_path) == 0
    monkeypatch.setenv("PARIO_SYSTEM", "archer2")                # the same log, a model from the environment
    job = advise([log], tmp_path)["jobs"][0]
    assert "predicted by the system model of ARCHER2" in _many_files(job)["estimate"] and _runs(tmp_path) == 0
