"""The SQLite results store: round trips, errors as one line, and concurrent writers."""
import multiprocessing as mp
import sqlite3

import pytest

from pario.analysis.summary import headline
from pario.model.errors import ParioError
from pario.store import SCHEMA_VERSION, Store
from result_factory import case, result


def _doc():
    return result(case("fpp-posix", 0, write=[800.0, 900.0], read=[2000.0, 2100.0]))


def test_round_trip_and_listing(tmp_path):
    store = Store(str(tmp_path / "runs.db"))
    spec = {"schema": "pario.spec/1", "cases": [{"name": "fpp-posix"}]}
    env = {"hostname": "node01", "ceiling": {"write_mib": 500.0}}
    first = store.add_run(kind="bench", command="pario bench -n 4", spec=spec, env=env,
                          result=_doc(), status="complete")
    second = store.add_run(kind="ior", command="ior -a POSIX", spec={}, env={}, result=_doc(), status="partial",
                           headline=headline(_doc()))
    assert second > first
    run = store.get_run(first)
    assert run["id"] == first and run["kind"] == "bench" and run["status"] == "complete"
    assert run["command"] == "pario bench -n 4"
    assert run["spec"] == spec and run["env"] == env and run["result"] == _doc()
    assert run["created"].endswith("Z")
    listed = store.list_runs()
    assert [r["id"] for r in listed] == [second, first]          # newest first
    assert "result" not in listed[0] and "spec" not in listed[0]  # no blobs in listings
    assert listed[0]["headline"] == "1 case, 4 ranks: fpp/posix write 850, read 2050 MiB/s"
    assert [r["id"] for r in store.list_runs(limit=1)] == [second]


def test_unknown_id_is_one_clear_line(tmp_path):
    store = Store(str(tmp_path / "runs.db"))
    with pytest.raises(ParioError) as err:
        store.get_run(42)
    assert "no run 42" in str(err.value) and "pario results" in str(err.value)
    assert "\n" not in str(err.value) and err.value.exit_code == 2


def test_default_path_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PARIO_DB", str(tmp_path / "sub" / "env.db"))
    store = Store()
    assert store.path == str(tmp_path / "sub" / "env.db")
    assert (tmp_path / "sub" / "env.db").exists()


def test_schema_is_versioned_and_wal(tmp_path):
    path = tmp_path / "runs.db"
    Store(str(path))
    con = sqlite3.connect(path)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    Store(str(path))  # reopening migrates nothing and keeps working


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "runs.db"
    Store(str(path))
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with pytest.raises(ParioError, match="newer pario"):
        Store(str(path))


def test_unwritable_or_bad_paths(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ParioError, match="cannot create the results directory"):
        Store(str(blocker / "runs.db"))
    with pytest.raises(ParioError, match="is a directory"):
        Store(str(tmp_path))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not an sqlite database, just bytes" * 100)
    with pytest.raises(ParioError, match="junk.db"):
        Store(str(junk))


def test_directory_without_write_permission(tmp_path, monkeypatch):
    # Root may write anywhere, so the permission answer is simulated for the store's directory.
    import os
    real_access = os.access
    denied = str(tmp_path / "locked")
    os.mkdir(denied)
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(denied) else real_access(p, mode))
    with pytest.raises(ParioError) as err:
        Store(os.path.join(denied, "runs.db"))
    assert "is not writable" in str(err.value) and "--db" in str(err.value) and "\n" not in str(err.value)
    assert not os.path.exists(os.path.join(denied, "runs.db"))


def _writer(path, worker, count, queue):
    try:
        store = Store(path)  # every worker also races through the first-open migration
        ids = [store.add_run(kind="bench", command=f"worker {worker} run {i}", spec={"w": worker, "i": i},
                             env={}, result=_doc(), status="complete") for i in range(count)]
        queue.put(("ok", ids))
    except BaseException as exc:  # report, do not hang the parent
        queue.put(("error", repr(exc)))


def test_concurrent_writers_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.db")
    workers, each = 8, 25
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, w, each, queue)) for w in range(workers)]
    for p in procs:
        p.start()
    outcomes = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    errors = [o[1] for o in outcomes if o[0] != "ok"]
    assert not errors
    ids = [i for o in outcomes for i in o[1]]
    assert len(ids) == workers * each and len(set(ids)) == workers * each
    store = Store(path)
    runs = store.list_runs(limit=1000)
    assert len(runs) == workers * each
    assert {r["command"] for r in runs} == {f"worker {w} run {i}" for w in range(workers) for i in range(each)}
    assert store.get_run(ids[-1])["result"]["schema"] == "pario.result/1"


def test_slurm_jobs_and_the_runs_they_stored(tmp_path):
    """A job's run is found by the job id its environment names, or by ARRAYJOB_TASK."""
    store = Store(str(tmp_path / "r.db"))
    row = store.add_job(kind="bench", job_id="12", command="pario bench -n 2", cluster="c1")
    assert store.get_job(row)["state"] == "SUBMITTED"
    plain = store.add_run(kind="bench", command="x", spec={}, env={"slurm": {"job": "12", "cluster": "c1"}},
                          result={}, status="complete")
    task = store.add_run(kind="tune", command="x", spec={}, env={"slurm": {"job": "31", "array": "30_1"}},
                         result={}, status="partial")
    store.add_run(kind="bench", command="x", spec={}, env={"slurm": {"job": "120"}}, result={}, status="complete")
    assert store.runs_of_job("12") == [plain] and store.runs_of_job("12", "c2") == []
    assert store.runs_of_job("30_1") == [task] and store.runs_of_job("31") == [task]
    store.update_job(row, state="COMPLETED", exit_code="0:0", run_id=plain, doc={"a": 1})
    got = store.get_job(row)
    assert (got["state"], got["run_id"], got["doc"]) == ("COMPLETED", plain, {"a": 1})
    with pytest.raises(ValueError):
        store.update_job(row, created="now")
