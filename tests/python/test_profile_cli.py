"""`pario profile` from the command line: run, merge, show (tables and --json), --env, errors."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from profile_support import ROOT, compile_c, load, preload_lib

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
    doc = load(log)
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
    doc = load(tmp_path / "f.json")
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
    doc = load(log)
    assert sorted(p["process"]["rank"] for p in doc["processes"]) == [0, 1, 2, 3]  # mpirun itself is not profiled
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    row = next(f for f in out["files"] if f["path"] == str(tmp_path / "shared.dat") and f["module"] == "mpiio")
    assert row["nprocs"] == 4 and row["writes"] == 16 and row["reads"] == 16
    assert out["job"]["ranks"] == 4


def test_job_log_nearly_flat_in_the_rank_count(lib, tmp_path):
    """A job whose ranks share one file: the merged log (compact, version 2) grows by a process
    entry per rank, not by counter names and runtime files (benchmarks/profile_logsize has the
    4-256 rank figures)."""
    jsonschema = pytest.importorskip("jsonschema")
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    sizes = {}
    for n in (2, 4):
        log = tmp_path / f"mpi{n}.json"
        r = pario("profile", "-n", n, "-o", log, "--", exe, tmp_path / "shared.dat", lib=lib)
        assert r.returncode == 0, r.stderr
        sizes[n] = log.stat().st_size
        on_disk = json.loads(log.read_text())
        assert on_disk["version"] == 2
        jsonschema.validate(on_disk, json.loads((ROOT / "schemas" / "profile-log.schema.json").read_text()))
    assert sizes[4] - sizes[2] < 2 * 400, sizes
    # the runtime's files asked for one by one: recorded, and the log says so
    log = tmp_path / "rt.json"
    r = pario("profile", "-n", 2, "--runtime-files", "-o", log, "--", exe, tmp_path / "shared.dat", lib=lib)
    assert r.returncode == 0, r.stderr
    doc = json.loads(log.read_text())
    assert doc["common"]["settings"]["runtime_files"] is True
    assert log.stat().st_size > sizes[2]


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
    doc = load(log)
    (proc,) = doc["processes"]
    assert proc["settings"]["trace"] is True and proc["settings"]["mem_bound"] == 1 << 20
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    assert out["job"]["trace_dropped"] > 0 and out["job"]["trace_kept"] == proc["limits"]["trace_capacity"]
    hot = next(f for f in out["files"] if f["path"] == str(tmp_path / "w" / "hot.dat"))
    assert hot["writes"] == 50000  # the counters stay exact
    table = pario("profile", "show", log).stdout
    assert "dropped at the memory bound" in table


@pytest.mark.mpi
@pytest.mark.skipif(not __import__("shutil").which("mpicc"), reason="no MPI")
def test_show_says_what_get_info_confirmed_and_labels_sums(lib, tmp_path):
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    log = tmp_path / "mpi.json"
    r = pario("profile", "-n", 4, "-o", log, "--", exe, tmp_path / "shared.dat", lib=lib)
    assert r.returncode == 0, r.stderr
    out = json.loads(pario("profile", "show", log, "--json").stdout)
    row = next(f for f in out["files"] if f["path"] == str(tmp_path / "shared.dat") and f["module"] == "mpiio")
    # Open MPI's MPI_File_get_info gives back the keys the program passed: an echo, not a confirmation;
    # its MCA variables, read through MPI_T in the run, are what OMPIO used
    assert row["hints_status"]["echoed"] == {"cb_nodes": "1"} and row["hints_status"]["confirmed"] == {}
    assert "io_ompio_bytes_per_agg" in row["hints_status"]["mca"]
    job = out["job"]
    assert job["io_time_sum"] > 0 and job["per_rank"]["n"] == 4
    assert job["per_rank"]["low"] <= job["per_rank"]["high"] <= job["io_time_sum"]
    text = pario("profile", "show", log, env_extra={"COLUMNS": "200"}).stdout
    assert "echoed by Open MPI" in text and "not confirmed" in text and "hints in effect (as reported" not in text
    assert "sum over ranks" in text and "I/O time per rank" in text and "I/O time, summed" in text


def test_per_rank_time_of_shared_files_is_bounded_by_their_fastest_and_slowest_rank():
    from pario.analysis.profile.views import per_rank_time
    own = {0: 1.0, 1: 2.0, 2: 0.5}
    shared = [{"fastest": (0, 3.0), "slowest": (2, 5.0), "nprocs": 3}]
    spread = per_rank_time(own, shared)
    # rank 0: 1 + 3 exactly; rank 2: 0.5 + 5 exactly; rank 1: 2 + somewhere in [3, 5]
    assert spread == {"n": 3, "low": 4.0, "high": 7.0, "exact": False}
    assert per_rank_time({0: 1.0, 1: 2.0}, []) == {"n": 2, "low": 1.0, "high": 2.0, "exact": True}
def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _profile_in_background(lib, tmp_path, argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), PARIO_PRELOAD=lib)
    env.pop("LD_PRELOAD", None)
    log = tmp_path / "sig.json"
    proc = subprocess.Popen([sys.executable, "-m", "pario", "profile", "-o", str(log), "--", *map(str, argv)],
                            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    program = [int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == proc.pid]
    return proc, log, program


def _parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rpartition(")")[2].split()[1])
    except (OSError, ValueError):
        return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_to_pario_is_passed_on_and_the_log_is_written(lib, tmp_path, sig):
    """pario waits for the program it profiles: the signal goes to the program (which dies of it),
    the log is written (partial), the parts are removed, and pario exits as the program did."""
    exe = compile_c(tmp_path, "signalled")
    work = tmp_path / "w"
    work.mkdir()
    proc, log, program = _profile_in_background(lib, tmp_path, [exe, work, "plain"])
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert program and not any(_alive(p) for p in program), "the program outlived pario"
    doc = load(log)  # the compact log, expanded by the reader
    assert doc["job"]["exit_code"] == -sig
    assert [p["process"]["partial"] for p in doc["processes"]] == [True]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".sig.json.parts-")]
    assert f"passed {signal.Signals(sig).name} on" in err and "Traceback" not in err


def test_sighup_is_passed_on_and_pario_exits_with_the_program_s_code(lib, tmp_path):
    script = tmp_path / "hup.py"
    script.write_text("import signal, sys, time\n"
                      "def bye(*a):\n    open('bye.txt', 'w').write('x' * 100)\n    sys.exit(5)\n"
                      "signal.signal(signal.SIGHUP, bye)\nprint('ready', flush=True)\ntime.sleep(300)\n")
    proc, log, program = _profile_in_background(lib, tmp_path, [sys.executable, script])
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 5, err
    assert not any(_alive(p) for p in program)
    doc = load(log)  # the compact log, expanded by the reader
    paths = {rec["path"] for p in doc["processes"] for rec in p["modules"]["posix"]["records"]}
    assert str(tmp_path / "bye.txt") in paths, "the log holds what the program did on its way out"


MERGE = """
import json, sys
from pathlib import Path
from pario.model.errors import ParioError
from pario.profile import run as prun
try:
    prun.merge(Path(sys.argv[1]), Path(sys.argv[2]), {"command": ["true"]})
except ParioError as exc:
    print("error:", exc)
print("jsonschema" in sys.modules)
"""


def test_merge_checks_its_own_parts_cheaply_and_names_a_damaged_one(lib, tmp_path):
    """The parts pario's library just wrote are merged without the schema, whose validator alone
    takes about 0.1 s to import (benchmarks/startup); one that is not as the library writes it is
    then checked against the schema, which names the damage in one line."""
    r = pario("profile", "-o", tmp_path / "t.json", "--keep-parts", "--", "true", lib=lib, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    parts = next(tmp_path.glob(".t.json.parts-*"))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    good = subprocess.run([sys.executable, "-c", MERGE, str(parts), str(tmp_path / "again.json")],
                          capture_output=True, text=True, env=env, check=True)
    assert good.stdout.split() == ["False"], good.stdout  # merged, and the validator was never imported
    assert load(tmp_path / "again.json")["processes"]  # a log every reader takes (load checks the schema)
    part = next(parts.glob("*.json"))
    doc = json.loads(part.read_text())
    del doc["process"]
    part.write_text(json.dumps(doc))
    bad = subprocess.run([sys.executable, "-c", MERGE, str(parts), str(tmp_path / "bad.json")],
                         capture_output=True, text=True, env=env, check=True)
    lines = bad.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: profile log ") and "process" in lines[0], bad.stdout
    assert lines[1] == "True" and not (tmp_path / "bad.json").exists()
