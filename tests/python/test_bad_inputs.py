"""Issue 16: every row of the bad-input table (tests/python/data/bad-inputs.jsonl, made by
bad_inputs.py) gives its expected exit and one line naming the problem, with 0 tracebacks, 0 hangs,
0 wrong acceptances and 0 late refusals (no MPI launch: PARIO_MPIRUN is a launcher that records
being started; a few rows name it with --mpirun too).

Rows run in process (pario.cli.main with captured output), in a pool of worker processes, each in
its own directory with its own copy of a small results store; a few run as real subprocesses."""
from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import pytest

import pario.cli  # noqa: F401  imported now, before another test module puts src/ first on sys.path
from bad_inputs import TABLE, all_rows, table_text

ROWS = [json.loads(line) for line in TABLE.read_text().splitlines()]
ROW_TIMEOUT = 30  # seconds: a row still running then is a hang
RECORDER = """#!/bin/sh
# A launcher for the tests: says it is Open MPI, records every launch, launches nothing.
if [ "$1" = "--version" ]; then echo "mpirun (Open MPI) 4.1.4"; exit 0; fi
echo "$@" >> "${PARIO_TEST_LAUNCHES:-/dev/null}"
exit 1
"""
_BASE = ""  # the worker's directory: recorder, template store


def _installed_preload() -> dict[str, str]:
    """PARIO_PRELOAD of the installed pario: a test module collected earlier may have put src/ first
    on sys.path, and src/pario has no built library (the profile and buffer rows then exit 3)."""
    from importlib import metadata
    try:
        lib = Path(str(metadata.distribution("pario").locate_file("pario/lib/libpario-preload.so")))
    except metadata.PackageNotFoundError:
        return {}
    return {"PARIO_PRELOAD": str(lib)} if lib.is_file() and "PARIO_PRELOAD" not in os.environ else {}


PRELOAD = _installed_preload()


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def _store(path: Path) -> None:
    """Runs 1 (complete, files kept, 2 ranks), 2 (failed) and three damaged ones (3, 4, 5); tuning
    sessions 1 (not JSON), 2 (a list) and 3 (trials a string), all three damaged."""
    from pario.model.tuning import TuningSession
    from pario.store import Store

    store = Store(str(path))
    spec = {"dir": str(path.parent / "kept"), "prefix": "pario.x", "cases": [{"name": "c", "keep": True}]}
    result = {"status": "complete", "mpi": {"ranks": 2}, "cases": [{"name": "c", "index": 0, "phases": []}]}
    store.add_run(kind="bench", command="pario bench -k", spec=spec, env={}, result=result, status="complete")
    store.add_run(kind="bench", command="pario bench", spec={"cases": []}, env={}, result={"cases": []},
                  status="failed")
    sound = TuningSession(id=None, case={"backend": "mpiio", "strategy": "shared", "ops": ["write"]},
                          objective="write", ranks=2, space={"cb_nodes": ["1", "2"]}).to_dict()
    for doc in ({}, [1, 2], {**sound, "trials": "x"}):
        store.add_session(command="pario tune", doc=doc, status="interrupted")
    con = sqlite3.connect(path)
    con.execute("UPDATE tune_sessions SET doc = '{bad' WHERE id = 1")
    rows = [("{}", "{}", "[]"), ("{bad", "{}", "{}"),
            ("{}", "{}", json.dumps({"cases": [{"name": "a", "phases": [{"op": "write", "rep": 0, "bw_mib": "x"}]}]}))]
    for spec_text, env_text, result_text in rows:
        con.execute("INSERT INTO runs(created, kind, command, status, headline, spec, env, result) "
                    "VALUES ('x', 'bench', 'c', 'complete', 'h', ?, ?, ?)", (spec_text, env_text, result_text))
    con.commit()
    con.close()


def _init(base: str) -> None:
    global _BASE
    _BASE = base
    signal.signal(signal.SIGALRM, _alarm)


def _write(directory: Path, files: dict) -> None:
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content)
        elif "hex" in content:
            path.write_bytes(bytes.fromhex(content["hex"]))
        elif "repeat" in content:
            path.write_text(content["repeat"][0] * content["repeat"][1])
        elif content.get("dir"):
            path.mkdir(exist_ok=True)
        elif content.get("fifo"):
            os.mkfifo(path)
        elif "sparse" in content:
            with open(path, "wb") as fh:
                fh.truncate(content["sparse"])


def run_row(row: dict) -> dict:
    """One row in process: (exit, stdout, stderr, traceback, launched, seconds, wrote scratch)."""
    from pario import cli

    base = Path(_BASE)
    here = Path(tempfile.mkdtemp(dir=base))
    cwd = os.getcwd()
    env = {"PARIO_DB": str(here / "runs.db"), "PARIO_SCRATCH": str(here / "scratch"),
           "PARIO_MPIRUN": str(base / "mpirun"), "PARIO_TEST_LAUNCHES": str(here / "launches"),
           "XDG_CACHE_HOME": str(here / "cache"), "COLUMNS": "200", **PRELOAD}
    saved = {k: os.environ.get(k) for k in env}
    out, err, tb, code = io.StringIO(), io.StringIO(), "", None
    try:
        _write(here, row.get("files", {}))
        shutil.copy(base / "runs.db", here / "runs.db")
        os.environ.update(env)
        os.chdir(here)
        argv = [a.replace("{mpirun}", str(base / "mpirun")) for a in row["argv"]]
        start = time.perf_counter()
        signal.alarm(ROW_TIMEOUT)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Hang:
            code = "hang"
        except BaseException:  # a traceback: what the table is there to catch
            code, tb = "traceback", traceback.format_exc()
        finally:
            signal.alarm(0)
        seconds = time.perf_counter() - start
        return {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "traceback": tb,
                "launched": (here / "launches").exists(), "seconds": seconds,
                "scratch": (here / "scratch").exists()}
    finally:
        os.chdir(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(here, ignore_errors=True)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad-inputs")
    (base / "mpirun").write_text(RECORDER)
    (base / "mpirun").chmod(0o755)
    _store(base / "runs.db")
    workers = max(2, min(4, os.cpu_count() or 2))
    with multiprocessing.get_context("fork").Pool(workers, initializer=_init, initargs=(str(base),)) as pool:
        results = pool.map(run_row, ROWS, chunksize=8)
    slow = sorted(zip((r["seconds"] for r in results), (row["id"] for row in ROWS)), reverse=True)[:3]
    print("\nslowest rows: " + "; ".join(f"{s:.2f} s {name}" for s, name in slow))  # measured, not asserted
    return {row["id"]: r for row, r in zip(ROWS, results)}


def test_the_table_is_the_generators(capsys):
    """The kept table is what bad_inputs.py makes from today's parsers (regenerate it with --write)."""
    assert TABLE.read_text() == table_text(all_rows()), \
        "tests/python/data/bad-inputs.jsonl is stale: .venv/bin/python tests/python/bad_inputs.py --write"


def test_the_table_covers_every_command():
    commands = {r["argv"][0] if r["argv"][0] != "settings" else " ".join(r["argv"][:2]) for r in ROWS}
    assert len(ROWS) >= 500
    assert {"bench", "results", "profile", "stack", "settings render", "settings check", "tune", "report"} <= commands
    assert sum(r["exit"] == 0 for r in ROWS) >= 3  # a few sound inputs: the runner can tell the two apart


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_row(outcomes, row):
    got = outcomes[row["id"]]
    assert got["exit"] != "traceback", got["traceback"]
    assert got["exit"] != "hang", f"still running after {ROW_TIMEOUT} s"
    assert not got["launched"], "refused late: the MPI launcher was started"
    assert "Traceback" not in got["stderr"]
    assert got["exit"] == row["exit"], f"exit {got['exit']} (expected {row['exit']}): {got['stderr'][-500:]}"
    if row["exit"] == 0:
        return
    stream = got[row.get("stream", "stderr")]
    if row.get("stream", "stderr") == "stderr":
        lines = stream.strip().splitlines()
        assert len(lines) == 1, f"{len(lines)} lines: {stream[-800:]}"
        assert lines[0].startswith("pario: error: ")
        assert "the engine refuses" not in lines[0], "caught by the engine's check, not the front end's"
    for fragment in (row["says"], row.get("also", "")):
        assert fragment in stream, f"{fragment!r} not in: {stream[-800:]}"
    assert not got["scratch"], "a refused run left its scratch directory"


SUBPROCESS = ["bench --reps '0'", "bench --timeout 'nan'", "profile show: nested 100000 deep",
              "import-ior: bandwidth a string", "settings render --from: xml deep", "job: reps = 0",
              "bench --mpirun /bin/echo -F"]


@pytest.mark.parametrize("name", SUBPROCESS)
def test_rows_as_subprocesses(tmp_path, name):
    """A few rows through `python -m pario` itself: the same exit and the same one line."""
    row = next(r for r in ROWS if r["id"] == name)
    _write(tmp_path, row.get("files", {}))
    (tmp_path / "mpirun").write_text(RECORDER)
    (tmp_path / "mpirun").chmod(0o755)
    env = dict(os.environ, PARIO_DB=str(tmp_path / "runs.db"), PARIO_MPIRUN=str(tmp_path / "mpirun"),
               PARIO_TEST_LAUNCHES=str(tmp_path / "launches"), PARIO_SCRATCH=str(tmp_path / "scratch"))
    src = Path(__file__).resolve().parents[2] / "src"
    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    argv = [a.replace("{mpirun}", str(tmp_path / "mpirun")) for a in row["argv"]]
    run = subprocess.run([sys.executable, "-m", "pario", *argv], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert run.returncode == row["exit"] and not (tmp_path / "launches").exists()
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and row["says"] in lines[0] and "Traceback" not in run.stderr
