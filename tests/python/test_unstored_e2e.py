"""A measured run is never lost with exit 0: when the results store is locked for too long or
corrupt, `pario bench` exits 4 and keeps the run in a file that `pario results import FILE`
stores later, once; the message names the file and the command."""
import json
import os
import re
import sqlite3

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, SRC, pario

pytestmark = [pytest.mark.e2e]
needs_run = pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")
SMALL = ["-n", "2", "-F", "-t", "4k", "-b", "16k", "-i", "1", "--no-probe"]


def make_store(path, runs=0):
    import sys
    sys.path.insert(0, str(SRC))
    from pario.store import Store
    store = Store(str(path))
    for i in range(runs):
        store.add_run(kind="bench", command=f"pario bench #{i}", spec={"run_id": f"old-{i}"}, env={},
                      result={"cases": [], "padding": "x" * 3000}, status="complete")
    return store


def kept_file(stderr):
    m = re.search(r"pario results import (\S+)`", stderr)
    assert m, stderr
    return m.group(1).strip("'")


def run_with_unusable_store(tmp_path, db, env):
    scratch = tmp_path / "scratch"
    run = pario([*SMALL, "--dir", str(scratch)], tmp_path, extra_env={"PARIO_DB": str(db), **env})
    assert run.returncode == 4, run.stderr
    assert "measured but not stored" in run.stderr and "Stored as run" not in run.stdout
    path = kept_file(run.stderr)
    doc = json.loads(open(path).read())
    assert doc["schema"] == "pario.run/1" and doc["status"] == "complete" and doc["result"]["cases"]
    assert not scratch.exists() or not os.listdir(scratch)
    return path


@needs_run
def test_a_locked_store_keeps_the_run_for_import(tmp_path):
    db = tmp_path / "locked.db"
    make_store(db)
    holder = sqlite3.connect(str(db), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the store for longer than pario waits
    try:
        path = run_with_unusable_store(tmp_path, db, {"PARIO_DB_TIMEOUT": "2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    imported = pario(["import", path, "--db", str(db)], tmp_path, command="results")
    assert imported.returncode == 0, imported.stderr
    assert "as run 1 (complete)" in imported.stdout and not os.path.exists(path)
    shown = pario(["show", "1", "--json", "--db", str(db)], tmp_path, command="results")
    assert json.loads(shown.stdout)["status"] == "complete"
    again = pario(["import", path, "--db", str(db)], tmp_path, command="results")
    assert again.returncode == 2 and "does not exist" in again.stderr


@needs_run
def test_a_corrupt_store_keeps_the_run_for_import(tmp_path):
    db = tmp_path / "corrupt.db"
    make_store(db, runs=20)
    con = sqlite3.connect(str(db))
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(db, "r+b") as fh:  # the runs table's root page: its header and cell pointers
        fh.seek((root - 1) * page)
        fh.write(b"\xff" * 64)
    path = run_with_unusable_store(tmp_path, db, {})
    good = tmp_path / "good.db"
    imported = pario(["import", path, "--db", str(good)], tmp_path, command="results")
    assert imported.returncode == 0 and "as run 1 (complete)" in imported.stdout, imported.stderr


def test_import_refuses_what_is_not_a_kept_run(tmp_path):
    db = tmp_path / "r.db"
    bad = tmp_path / "bad.json"
    for text, needle in [("{", "is not valid JSON"), ('{"schema": "x"}', "not a run record"),
                         ('{"schema": "pario.run/1", "kind": "bench"}', "is missing")]:
        bad.write_text(text)
        run = pario(["import", str(bad), "--db", str(db)], tmp_path, command="results")
        assert run.returncode == 2 and needle in run.stderr and "Traceback" not in run.stderr, run.stderr
        assert bad.exists()


def test_import_stores_a_run_once(tmp_path):
    db = tmp_path / "r.db"
    store = make_store(db)
    run = {"schema": "pario.run/1", "kind": "bench", "command": "pario bench", "status": "partial",
           "headline": "1 case", "spec": {"run_id": "20260101T000000-abcdef"}, "env": {}, "result": {"cases": []}}
    path = tmp_path / "pario-run-x.json"
    path.write_text(json.dumps(run))
    first = pario(["import", str(path), "--db", str(db)], tmp_path, command="results")
    assert first.returncode == 0 and not path.exists(), first.stderr
    path.write_text(json.dumps(run))
    second = pario(["import", str(path), "--db", str(db)], tmp_path, command="results")
    assert second.returncode == 2 and "stored already as run 1" in second.stderr
    assert len(store.list_runs()) == 1
