"""`pario profile` from the command line: run, merge, show (tables and --json), --env, errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from profile_support import ROOT, compile_c, preload_lib

pytestmark = [pytest.mark.e2e]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def pario(*args, lib=None, cwd=None, env_extra=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    env.pop("LD_PRELOAD", None)
    if lib:
        env["PARIO_PRELOAD"] = lib
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "pario", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_profile_serial_then_show(lib, tmp_path):
    exe = compile_c(tmp_path, "posix_seq")
    work = tmp_path / "w"
    work.mkdir()
    log = tmp_path / "seq.json"
    r = pario("profile", "-o", log, "--", exe, work, lib=lib)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""  # the program printed nothing, and neither did pario
    assert "written to" in r.stderr and log.is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".seq.json.parts-")]  # parts removed
    doc = json.loads(log.read_text())
    assert doc["kind"] == "job" and doc["job"]["exit_code"] == 0 and len(doc["processes"]) == 1
    shown = pario("profile", "show", log, "--json")
    assert shown.returncode == 0, shown.stderr
    out = json.loads(shown.stdout)
    row = next(f for f in out["files"] if f["path"] == str(work / "seq.dat") and f["module"] == "posix")
    assert (row["reads"], row["writes"], row["bytes_written"]) == (100, 100, 409600)
    assert out["job"]["modules"]["posix"]["writes"] >= 100
    table = pario("profile", "show", log)
    assert table.returncode == 0 and "seq.dat" in table.stdout and "I/O by interface" in table.stdout


def test_exit_code_is_the_program_s(lib, tmp_path):
    r = pario("profile", "-o", tmp_path / "f.json", "--", "sh", "-c", "echo hi > x.txt; exit 7", lib=lib, cwd=tmp_path)
    assert r.returncode == 7 and (tmp_path / "x.txt").read_text() == "hi\n"
    doc = json.loads((tmp_path / "f.json").read_text())
    paths = {rec["path"] for p in doc["processes"] for rec in p["modules"]["posix"]["records"]}
    assert str(tmp_path / "x.txt") in paths


def test_profile_python_script(lib, tmp_path):
    script = tmp_path / "s.py"
    # subprocess starts `true` through vfork + execve: the child must not switch the parent's profiler off
    script.write_text("import subprocess\nsubprocess.run(['true'])\n"
                      "open('out.txt','w').write('x' * 10000)\nprint('done')\n")
    log = tmp_path / "py.json"
    r = pario("profile", "-o", log, "--", sys.executable, script, lib=lib, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "done\n", r.stderr
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    row = next(f for f in out["files"] if f["path"] == str(tmp_path / "out.txt") and f["module"] == "posix")
    assert row["bytes_written"] == 10000


@pytest.mark.mpi
@pytest.mark.skipif(not (os.path.exists("/usr/bin/mpicc") or __import__("shutil").which("mpicc")), reason="no MPI")
def test_profile_mpi_through_mpirun(lib, tmp_path):
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    log = tmp_path / "mpi.json"
    r = pario("profile", "-n", 4, "-o", log, "--", exe, tmp_path / "shared.dat", lib=lib)
    assert r.returncode == 0, r.stderr
    doc = json.loads(log.read_text())
    assert sorted(p["process"]["rank"] for p in doc["processes"]) == [0, 1, 2, 3]  # mpirun itself is not profiled
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    row = next(f for f in out["files"] if f["path"] == str(tmp_path / "shared.dat") and f["module"] == "mpiio")
    assert row["nprocs"] == 4 and row["writes"] == 16 and row["reads"] == 16
    assert out["job"]["ranks"] == 4


def test_env_prints_exports(lib, tmp_path):
    r = pario("profile", "--env", "-o", tmp_path / "jobdir", "--trace", "--mem", 16, lib=lib)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("export ")]
    assert any(lib in ln and "LD_PRELOAD" in ln for ln in lines)
    assert f'export PARIO_PROFILE_DIR="{tmp_path / "jobdir"}"' in lines
    assert 'export PARIO_PROFILE_TRACE="1"' in lines and 'export PARIO_PROFILE_MEM="16"' in lines


def test_show_reads_a_parts_directory(lib, tmp_path):
    exe = compile_c(tmp_path, "posix_seq")
    (tmp_path / "w").mkdir()
    env = dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(tmp_path / "dir"))
    subprocess.run([str(exe), str(tmp_path / "w")], env=env, check=True)
    out = json.loads(pario("profile", "show", tmp_path / "dir", "--json").stdout)
    assert out["job"]["processes"] == 1


@pytest.mark.parametrize("args,needle", [
    (["profile"], "nothing to profile"),
    (["profile", "show", "/nonexistent/x.json"], "does not exist"),
    (["profile", "--mem", "0", "--", "true"], "--mem"),
    (["profile", "-n", "0", "--", "true"], "argument -n/--ranks: '0' is out of range"),
])
def test_bad_input_one_line(lib, args, needle):
    r = pario(*args, lib=lib)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr


def test_not_a_log(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    r = pario("profile", "show", bad)
    assert r.returncode == 2 and "not a pario profile log" in r.stderr and "Traceback" not in r.stderr


def test_library_not_built_is_clear(tmp_path):
    r = pario("profile", "--", "true", env_extra={"PARIO_PRELOAD": str(tmp_path / "missing.so")})
    assert r.returncode != 0 and "PARIO_PRELOAD" in r.stderr and "Traceback" not in r.stderr


def test_trace_and_memory_bound_from_the_cli(lib, tmp_path):
    exe = compile_c(tmp_path, "many")
    (tmp_path / "w").mkdir()
    log = tmp_path / "t.json"
    r = pario("profile", "--trace", "--mem", 1, "-o", log, "--", exe, tmp_path / "w", 10, 50000, lib=lib)
    assert r.returncode == 0 and "memory bound" in r.stderr  # loud, from the process itself
    doc = json.loads(log.read_text())
    (proc,) = doc["processes"]
    assert proc["settings"]["trace"] is True and proc["settings"]["mem_bound"] == 1 << 20
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    assert out["job"]["trace_dropped"] > 0 and out["job"]["trace_kept"] == proc["limits"]["trace_capacity"]
    hot = next(f for f in out["files"] if f["path"] == str(tmp_path / "w" / "hot.dat"))
    assert hot["writes"] == 50000  # the counters stay exact
    table = pario("profile", "show", log).stdout
    assert "dropped at the memory bound" in table
