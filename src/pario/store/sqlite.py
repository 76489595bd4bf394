"""The results store: every run's spec, environment and result in one SQLite file.

This module and its part store/jobs.py (the Slurm jobs' rows) are the only ones that speak SQL.
Several jobs of an allocation may finish at the same moment and write to the same file, so
writes take the write lock up front (BEGIN IMMEDIATE), wait for it (busy_timeout) and retry on
"database is locked"; WAL mode lets readers go on while a writer commits.
"""
from __future__ import annotations

import json
import os
import random
import sqlite3
import stat
import time
from pathlib import Path

from pario.model.errors import ParioError
from pario.model.formats import parse_json
from pario.platform import documents
from pario.store.jobs import JobRows, _now
from pario.store.migrations import MIGRATIONS, SCHEMA_VERSION

WAIT_S = 150.0            # how long a write waits for a locked store in all (many jobs ending together);
                          # $PARIO_DB_TIMEOUT sets it
_BUSY_S = 30.0            # of which SQLite itself waits per attempt; we retry for the rest


def default_path() -> str:
    """$PARIO_DB, else pario.db in the user's data directory."""
    env = os.environ.get("PARIO_DB")
    if env:
        return env
    import platformdirs
    return str(Path(platformdirs.user_data_dir("pario")) / "pario.db")


def wait_seconds() -> float:
    """$PARIO_DB_TIMEOUT (seconds), else WAIT_S."""
    text = os.environ.get("PARIO_DB_TIMEOUT")
    if not text:
        return WAIT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also nan
        raise ParioError(f"PARIO_DB_TIMEOUT={text}: give the seconds a write may wait for a locked results "
                         "database (default 150)")
    return value


def family_of(kind: str, preset: object = None) -> str:
    """What made a run, as `pario results --kind` names it (model.result.FAMILIES): bench (a case, a
    job file or a suite), preset (bench --preset), tune (a trial of a session), advise (its calibration
    and --verify runs), ior (an imported IOR summary); another kind is its own name."""
    if kind == "bench":
        return "preset" if preset else "bench"
    return {"calibration": "advise", "advise-verify": "advise"}.get(kind, kind)


def _case_names(spec_text: str) -> set[str]:
    try:
        spec = json.loads(spec_text)
    except ValueError:
        return set()
    cases = spec.get("cases") if isinstance(spec, dict) else None
    return {str(c.get("name")) if isinstance(c, dict) else str(c) for c in cases or [] if c}


def _locked(exc: Exception) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class Store(JobRows):
    """Runs kept in SQLite. Every method opens and closes its own connection, so a Store
    can be kept around and used from forked processes."""

    def __init__(self, path: str | None = None, wait_s: float | None = None, existing: bool = False):
        """existing: a read-only command's store, never created (a mistyped --db must not leave an
        empty database and its directories behind)."""
        self.path = os.path.abspath(os.path.expanduser(path or default_path()))
        self.wait_s = wait_seconds() if wait_s is None else wait_s
        parent = os.path.dirname(self.path)
        if existing and not os.path.isfile(self.path):
            raise ParioError(f"no results store at {self.path}: nothing was stored there; check --db or $PARIO_DB "
                             "(`pario bench` creates it with its first run)")
        if existing and os.path.getsize(self.path) == 0:   # read as it is: never made into a store
            raise ParioError(f"results store {self.path} is an empty file: nothing was stored there; check --db or "
                             "$PARIO_DB (`pario bench` makes a store of it with its first run)")
        named = path is not None or bool(os.environ.get("PARIO_DB"))
        # a place the user named: pario makes its last directory at most (as --dir), never a chain of them
        above = os.path.dirname(parent)
        if named and not os.path.isdir(parent) and (os.path.exists(parent) or not os.path.isdir(above)):
            what = ("a file is there" if os.path.exists(parent) else
                    f"{above} does not exist (pario makes only the last directory of a store's path)")
            raise ParioError(f"cannot create the results directory {parent}: {what}; create it, or pass --db PATH "
                             "or set PARIO_DB to a writable place")
        try:
            os.makedirs(parent, exist_ok=True)   # the user data directory of the default store
        except OSError as exc:
            raise ParioError(f"cannot create the results directory {parent} ({exc.strerror}); "
                             "pass --db PATH or set PARIO_DB to a writable place") from None
        if os.path.isdir(self.path):
            raise ParioError(f"results database {self.path} is a directory; "
                             "pass --db with a file name, e.g. --db runs.db")
        if os.path.exists(self.path) and not stat.S_ISREG(os.stat(self.path).st_mode):
            raise ParioError(f"results database {self.path} is not a regular file (a device, pipe or socket); "
                             "pass --db with a file name, e.g. --db runs.db")
        writable = os.access(self.path, os.W_OK) if os.path.exists(self.path) else os.access(parent, os.W_OK)
        # WAL needs to create -wal and -shm files beside the database.
        if not writable or not os.access(parent, os.W_OK):
            raise ParioError(f"results database {self.path} is not writable; "
                             "pass --db PATH or set PARIO_DB to a writable place")
        if self._read(self._version) != SCHEMA_VERSION:
            self._write(self._migrate)  # re-reads the version under the write lock

    # -- connection and retries -------------------------------------------------------

    def _connect(self, busy_s: float) -> sqlite3.Connection:
        try:
            con = sqlite3.connect(self.path, timeout=busy_s, isolation_level=None)
            con.execute(f"PRAGMA busy_timeout={int(busy_s * 1000)}")
            # WAL cannot work on some network file systems; SQLite then keeps its rollback
            # journal, which is slower but just as safe, so the answer is not checked.
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            return con
        except sqlite3.DatabaseError as exc:
            if _locked(exc):
                raise
            raise ParioError(f"cannot open results database {self.path}: {exc}; "
                             "pass --db to use another file") from None

    def _retry(self, fn, write: bool, wait_s: float | None = None):
        wait = self.wait_s if wait_s is None else wait_s
        busy = min(_BUSY_S, wait)
        deadline = time.monotonic() + wait - busy
        delay = 0.01
        while True:
            con = None
            try:
                con = self._connect(busy)
                if write:
                    con.execute("BEGIN IMMEDIATE")
                    try:
                        out = fn(con)
                        con.execute("COMMIT")
                    except BaseException:
                        if con.in_transaction:
                            con.execute("ROLLBACK")
                        raise
                    return out
                return fn(con)
            except sqlite3.OperationalError as exc:
                if not _locked(exc) or time.monotonic() > deadline:
                    waited = f" after {wait:g} s ($PARIO_DB_TIMEOUT)" if _locked(exc) else ""
                    raise ParioError(f"results database {self.path}: {exc}{waited}; "
                                     "retry, or pass --db to use another file") from None
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.5)
            except sqlite3.DatabaseError as exc:
                raise ParioError(f"results database {self.path} is unusable ({exc}); "
                                 "pass --db to use another file") from None
            finally:
                if con is not None:
                    con.close()

    def _write(self, fn, wait_s: float | None = None):
        return self._retry(fn, write=True, wait_s=wait_s)

    def _read(self, fn):
        return self._retry(fn, write=False)

    @staticmethod
    def _version(con: sqlite3.Connection) -> int:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone():
            return 0
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self, con: sqlite3.Connection) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        version = self._version(con)
        if version > SCHEMA_VERSION:
            raise ParioError(f"results database {self.path} was written by a newer pario "
                             f"(schema {version}, this one knows {SCHEMA_VERSION}); upgrade pario "
                             "or pass --db to use another file")
        for step in MIGRATIONS[version:]:
            for statement in step.split(";"):
                if statement.strip():
                    con.execute(statement)
        if version != SCHEMA_VERSION:
            con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                        (str(SCHEMA_VERSION),))

    # -- the API ------------------------------------------------------------------------

    def add_run(self, *, kind: str, command: str, spec: dict, env: dict, result: dict,
                status: str, headline: str = "", wait_s: float | None = None) -> int:
        """Store one run; returns its id. `headline`: the one line `pario results` lists it with
        (the caller's analysis makes it: storage does not judge results). `wait_s`: how long to
        wait for a locked store this time (default: the store's)."""
        row = (_now(), kind, command, status, headline,
               json.dumps(spec, sort_keys=True), json.dumps(env, sort_keys=True),
               json.dumps(result))

        def insert(con):
            cur = con.execute("INSERT INTO runs(created, kind, command, status, headline, spec, env, result) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
            return int(cur.lastrowid)
        return self._write(insert, wait_s)

    def find_run_id(self, run_id: str) -> int | None:
        """The stored run whose spec has this run_id (the engine run's unique id), if any."""
        def select(con):
            return con.execute("SELECT id FROM runs WHERE json_extract(spec, '$.run_id') = ? LIMIT 1",
                               (run_id,)).fetchone()
        row = self._read(select)
        return int(row[0]) if row else None

    def get_run(self, run_id: int) -> dict:
        """One run with its spec, env and result decoded."""
        def select(con):
            return con.execute("SELECT id, created, kind, command, status, spec, env, result "
                               "FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        row = self._read(select)
        if row is None:
            raise ParioError(f"no run {run_id} in {self.path}; `pario results` lists them")
        keys = ("id", "created", "kind", "command", "status", "spec", "env", "result")
        run = dict(zip(keys, row))
        where = f"run {run_id} in {self.path}"
        for key in ("spec", "env", "result"):
            if not isinstance(run[key], str):
                raise ParioError(f"{where}: its {key} is not JSON text; the store is damaged (pass --db for another)")
            run[key] = parse_json(run[key], f"{where}: its {key}")
        # a store is a file like any other: what is read back is checked before anything uses it
        documents.validate({k: run[k] for k in ("spec", "env", "result")}, "stored-run", where)
        for key in ("kind", "status", "command", "created"):
            run[key] = str(run[key])
        return run

    def list_runs(self, limit: int | None = 50, *, since: str | None = None, tag: str | None = None,
                  case: str | None = None, families: tuple[str, ...] | None = None) -> list[dict]:
        """The newest runs first, without their documents; `since`: created at or after this UTC
        time (ISO text), `tag`: carrying it, `case`: with a case of this name, `families`: of these
        (family_of: bench, preset, tune, advise, ior). Each run says its family, and a tune trial
        its session."""
        where, params = [], []
        if since:
            where.append("created >= ?")
            params.append(since)
        if tag:
            where.append("id IN (SELECT run_id FROM run_tags WHERE tag = ?)")
            params.append(tag)
        sql = ("SELECT id, created, kind, command, status, headline, "
               "(SELECT GROUP_CONCAT(tag, ' ') FROM run_tags WHERE run_id = runs.id), spec, "
               "CASE WHEN json_valid(env) THEN json_extract(env, '$.preset') END, "
               "CASE WHEN json_valid(env) THEN json_extract(env, '$.tune.session') END FROM runs"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC")
        keys = ("id", "created", "kind", "command", "status", "headline", "tags")
        out = []
        for row in self._read(lambda con: con.execute(sql, params).fetchall()):
            if case is not None and case not in _case_names(row[7]):
                continue
            run = dict(zip(keys, row[:7]))
            run["tags"] = sorted((run["tags"] or "").split())
            run["family"] = family_of(run["kind"], row[8])
            session = row[9]
            if run["kind"] == "tune" and isinstance(session, int) and not isinstance(session, bool):
                run["session"] = session
            if families is not None and run["family"] not in families:
                continue
            out.append(run)
            if limit is not None and len(out) >= limit:
                break
        return out

    def tag_run(self, run_id: int, tags: list[str], remove: bool = False) -> None:
        self.get_run(run_id)  # a run that is not there is one line, not a silent no-op

        def change(con):
            for t in tags:
                if remove:
                    con.execute("DELETE FROM run_tags WHERE run_id = ? AND tag = ?", (int(run_id), t))
                else:
                    con.execute("INSERT OR IGNORE INTO run_tags(run_id, tag) VALUES (?, ?)", (int(run_id), t))
        self._write(change)

    def remove_run(self, run_id: int) -> None:
        self.get_run(run_id)

        def delete(con):
            con.execute("DELETE FROM run_tags WHERE run_id = ?", (int(run_id),))
            con.execute("DELETE FROM runs WHERE id = ?", (int(run_id),))
        self._write(delete)

    def latest_id(self) -> int | None:
        """The id of the newest run, or None when the store is empty."""
        row = self._read(lambda con: con.execute("SELECT MAX(id) FROM runs").fetchone())
        return row[0] if row else None

    def runs_of_kind(self, kinds: tuple[str, ...], limit: int = 200) -> list[dict]:
        """The newest runs of these kinds first, with their documents decoded (what a reader of
        stored measurements, e.g. `pario advise` looking for a calibration, searches)."""
        marks = ", ".join("?" for _ in kinds)

        def select(con):
            return con.execute(f"SELECT id, created, kind, command, status, spec, env, result FROM runs "
                               f"WHERE kind IN ({marks}) ORDER BY id DESC LIMIT ?",
                               (*kinds, int(limit))).fetchall()
        keys = ("id", "created", "kind", "command", "status", "spec", "env", "result")
        out = []
        for row in self._read(select):
            run = dict(zip(keys, row))
            for key in ("spec", "env", "result"):
                run[key] = json.loads(run[key])
            out.append(run)
        return out

    # -- tuning sessions ------------------------------------------------------------------

    def add_session(self, *, command: str, doc: dict, status: str, headline: str = "") -> int:
        """Store a new tuning session document; returns its id."""
        now = _now()

        def insert(con):
            cur = con.execute("INSERT INTO tune_sessions(created, updated, status, command, headline, doc) "
                              "VALUES (?, ?, ?, ?, ?, ?)", (now, now, status, command, headline, json.dumps(doc)))
            return int(cur.lastrowid)
        return self._write(insert)

    def update_session(self, session_id: int, *, doc: dict, status: str, headline: str = "") -> None:
        row = (_now(), status, headline, json.dumps(doc), int(session_id))
        self._write(lambda con: con.execute("UPDATE tune_sessions SET updated = ?, status = ?, headline = ?, doc = ? "
                                            "WHERE id = ?", row))

    def get_session(self, session_id: int) -> dict:
        """One session with its document decoded."""
        def select(con):
            return con.execute("SELECT id, created, updated, status, command, headline, doc FROM tune_sessions "
                               "WHERE id = ?", (int(session_id),)).fetchone()
        row = self._read(select)
        if row is None:
            raise ParioError(f"no tuning session {session_id} in {self.path}; `pario tune --list` lists them")
        out = dict(zip(("id", "created", "updated", "status", "command", "headline", "doc"), row))
        where = f"tuning session {session_id} in {self.path} is damaged (start a new session)"
        if not isinstance(out["doc"], str):
            raise ParioError(f"{where}: its document is not JSON text")
        out["doc"] = parse_json(out["doc"], f"{where}: its document")
        # read back like any file: checked before --resume or report uses it
        documents.validate(out["doc"], "tune", where, part="session")
        return out

    def list_sessions(self, limit: int = 50) -> list[dict]:
        """The newest tuning sessions first, without their documents."""
        def select(con):
            return con.execute("SELECT id, created, updated, status, command, headline FROM tune_sessions "
                               "ORDER BY id DESC LIMIT ?", (int(limit),)).fetchall()
        keys = ("id", "created", "updated", "status", "command", "headline")
        return [dict(zip(keys, row)) for row in self._read(select)]
