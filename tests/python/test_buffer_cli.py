"""`pario buffer` from the command line: the program's exit status, signals forwarded, --stats,
--env and show, -n through mpirun, bad input in one line, and `pario profile --buffer`."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from buffer_support import ROOT, build, lib_path


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return lib_path(tmp_path_factory)


def env_for(lib):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PARIO_PRELOAD=lib)
    for key in ("LD_PRELOAD", "PARIO_BUFFER", "PARIO_BUFFER_STATS"):
        env.pop(key, None)
    return env


def default_signals():
    """Background jobs start with SIGINT/SIGHUP ignored: the tests are about the default actions."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def flat(text: str) -> str:
    """The table's text without spaces and line breaks (long paths fold inside their column)."""
    return "".join(text.split())


def pario(*args, lib, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pario", *map(str, args)], capture_output=True, text=True,
                          env=env_for(lib), cwd=cwd, timeout=timeout)


@pytest.mark.e2e
@pytest.mark.parametrize("piece, flushes, reasons, title", [
    # 30,000 x 512 B = 14.6 MiB through a 4 MiB buffer, written out in 1 MiB pieces (the
    # default): 15 flushes (14 pieces, 1 at close); as a whole buffer: 4 (3 full, 1 at close);
    # the title says which (the processes' stats files record the piece size)
    (None, "15", "full14,close1", "4.0 MiB per file, written out in 1.0 MiB pieces"),
    ("0", "4", "full3,close1", "4.0 MiB per file, written out when full"),
])
def test_stats_table_and_same_bytes(lib, tmp_path, monkeypatch, piece, flushes, reasons, title):
    if piece is not None:
        monkeypatch.setenv("PARIO_BUFFER_PIECE", piece)
    sw = build(tmp_path, "smallwrites")
    plain = subprocess.run([sw, "-n", "30000", tmp_path / "plain"], capture_output=True)
    assert plain.returncode == 0
    r = pario("buffer", "--stats", "--size", "4m", "--", sw, "-n", 30000, tmp_path / "out", lib=lib, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("open_to_close_s=")  # the program's stdout is its own
    assert (tmp_path / "out").read_bytes() == (tmp_path / "plain").read_bytes()
    lines = r.stderr.splitlines()
    assert all(len(line) <= 80 for line in lines), r.stderr
    row = next(line for line in lines if " 30000 " in line)
    assert row.split()[1:5] == ["30000", "14.6", "MiB", flushes], row
    assert f"flushedat:{reasons}" in flat(r.stderr)
    assert flat(title) in flat(r.stderr), r.stderr
    assert not list(tmp_path.glob(".pario-buffer-stats-*")), "the stats directory was left behind"


@pytest.mark.e2e
def test_standard_output_redirected_to_a_file_is_buffered(lib, tmp_path):
    code = "import sys\nfor k in range(50000): sys.stdout.write(f'{k} line\\n'); sys.stdout.flush()\n"
    want = "".join(f"{k} line\n" for k in range(50000))
    with open(tmp_path / "out.txt", "w") as out:
        r = subprocess.run([sys.executable, "-m", "pario", "buffer", "--stats", "--", sys.executable, "-c", code],
                           stdout=out, stderr=subprocess.PIPE, text=True, env=env_for(lib), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.txt").read_text() == want
    row = next(line for line in r.stderr.splitlines() if line.split()[:1] == ["out.txt"])
    assert row.split()[1] == "50000" and row.split()[4] == "1", row  # 50,000 writes, one flush (at exit)


@pytest.mark.e2e
@pytest.mark.parametrize("script, code", [("exit 3", 3), ("kill -TERM $$", -15), ("kill -KILL $$", -9)])
@pytest.mark.parametrize("stats", [False, True], ids=["exec", "stats"])
def test_exit_status_is_the_programs(lib, tmp_path, script, code, stats):
    r = pario("buffer", *(["--stats"] if stats else []), "--", "sh", "-c", script, lib=lib, cwd=tmp_path)
    # without --stats pario becomes the program (exec) and ends as it does, by its signal too; with --stats
    # it waits to print them, then exits with the status a shell gives a program a signal ended (128 + N)
    assert r.returncode == (128 - code if stats and code < 0 else code), r.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("stats", [False, True], ids=["exec", "stats"])
def test_pario_is_gone_while_the_program_runs_unless_it_has_work_after(lib, tmp_path, stats):
    """Without --stats nothing is left to do after the program, so pario's process becomes it: the
    program's pid is the one pario was started with (with --stats, pario waits for its child)."""
    proc = subprocess.Popen([sys.executable, "-m", "pario", "buffer", *(["--stats"] if stats else []), "--", "sh",
                             "-c", "echo $$"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_for(lib), cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert (int(out.split()[0]) == proc.pid) is not stats, (out, proc.pid)


@pytest.mark.e2e
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGINT],
                         ids=lambda s: s.name)
def test_signals_reach_the_program(lib, tmp_path, sig):
    script = tmp_path / "wait.py"
    script.write_text(
        "import signal, sys, time\n"
        "def h(s, f):\n"
        "    open('got', 'w').write(str(s)); sys.exit(40 + s)\n"
        f"signal.signal({int(sig)}, h)\n"
        "open('ready', 'w').close()\n"
        "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-m", "pario", "buffer", "--", sys.executable, str(script)],
                            env=env_for(lib), cwd=tmp_path, stdin=subprocess.DEVNULL, preexec_fn=default_signals,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(300):
        if (tmp_path / "ready").exists():
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 40 + sig, err
    assert (tmp_path / "got").read_text() == str(int(sig))


@pytest.mark.e2e
def test_sigterm_to_pario_loses_nothing(lib, tmp_path):
    exe = build(tmp_path, "lifecycle")
    (tmp_path / "w").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "pario", "buffer", "--size", "1m", "--", str(exe), "stream",
                             str(tmp_path / "w"), "0"], env=env_for(lib), stdout=subprocess.PIPE, text=True,
                            preexec_fn=default_signals)
    assert proc.stdout
    said = 0
    for line in proc.stdout:
        said = int(line.split()[1]) if line.startswith("ready") else said
        if said >= 20000:
            proc.send_signal(signal.SIGTERM)
            break
    proc.stdout.read()
    # without --stats pario became the program (exec): the SIGTERM reached it directly, and it ended as the
    # library ends it, by the signal (a shell says 143, as for the program alone)
    assert proc.wait(timeout=60) == -signal.SIGTERM
    data = (tmp_path / "w" / "data").read_bytes()
    numbers = [int(data[i + 2:i + 12]) for i in range(0, len(data), 64)]
    assert numbers == list(range(len(numbers))) and len(numbers) >= said


@pytest.mark.e2e
def test_env_then_show(lib, tmp_path):
    r = pario("buffer", "--env", "--stats", "-o", tmp_path / "st", "--size", "8m", "--files", "*.dat:size=1m",
              "--files", "/never/*", lib=lib, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    exports = dict(line[len("export "):].split("=", 1) for line in r.stdout.splitlines() if line.startswith("export"))
    assert exports["PARIO_BUFFER"] == '"1"' and exports["PARIO_BUFFER_SIZE"] == f'"{8 << 20}"'
    assert exports["PARIO_BUFFER_FILES"] == f'"*.dat:size={1 << 20},/never/*:size={8 << 20}"'
    assert exports["PARIO_BUFFER_STATS"] == f'"{tmp_path / "st"}"' and lib in exports["LD_PRELOAD"]
    (tmp_path / "st").mkdir()
    sw = build(tmp_path, "smallwrites")
    script = "\n".join(line for line in r.stdout.splitlines() if line.startswith("export"))
    job = subprocess.run(["sh", "-c", f"{script}\n{sw} -n 5000 a.dat && {sw} -n 10 b.txt"], cwd=tmp_path,
                         capture_output=True, env=env_for(lib))
    assert job.returncode == 0, job.stderr
    shown = pario("buffer", "show", tmp_path / "st", lib=lib)
    assert shown.returncode == 0 and "a.dat" in flat(shown.stderr)
    assert "b.txt" not in flat(shown.stderr)  # not matched by the patterns
    assert "flushedat:full2,close1" in flat(shown.stderr)  # 2.4 MiB through 1 MiB


@pytest.mark.e2e
@pytest.mark.parametrize("args, needle", [
    (["--size", "lots", "--", "true"], "argument --size: 'lots' is not a size"),
    (["--size", "0", "--", "true"], "argument --size: 0: the buffer needs a size"),
    (["--files", "a,b", "--", "true"], "cannot hold ','"),
    (["--files", "*.out:count=4", "--", "true"], "the only option is size=N"),
    (["--"], "nothing to run"),
    (["-n", "0", "--", "true"], "argument -n/--ranks: '0' is out of range"),
    (["show", "/nonexistent"], "pario buffer show DIR"),
])
def test_bad_input_one_line(lib, tmp_path, args, needle):
    r = pario("buffer", *args, lib=lib, cwd=tmp_path)
    assert r.returncode != 0 and needle in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.e2e
def test_missing_program(lib, tmp_path):
    r = pario("buffer", "--", tmp_path / "nope", lib=lib, cwd=tmp_path)
    assert r.returncode == 127 and "no such program" in r.stderr


@pytest.mark.e2e
def test_bad_stats_file_is_one_line(lib, tmp_path):
    (tmp_path / "st").mkdir()
    (tmp_path / "st" / "x.json").write_text('{"format": "pario-buffer-stats", "version": 1, "process": {}, '
                                             '"files": [{"path": "/a", "calls": -1}]}')
    r = pario("buffer", "show", tmp_path / "st", lib=lib)
    assert r.returncode != 0 and "not a pario buffer stats file" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.e2e
@pytest.mark.mpi
def test_mpi_ranks_through_mpirun(lib, tmp_path):
    if not shutil.which("mpicc") or not shutil.which("mpirun"):
        pytest.skip("mpicc/mpirun not found")
    exe = build(tmp_path, "mpi_fpp", cc="mpicc")
    r = pario("buffer", "-n", 2, "--stats", "--size", "1m", "--", exe, tmp_path, 20000, lib=lib, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 processes" in r.stderr
    for rank in (0, 1):
        assert (tmp_path / f"out.{rank}").stat().st_size == 20000 * 100
        assert f"out.{rank}" in flat(r.stderr)


@pytest.mark.e2e
def test_profile_with_the_buffer(lib, tmp_path):
    """One obvious way to see both: pario profile --buffer. The log holds the program's calls
    (the profiler's records) and the writes the file system saw (the buffer's stats)."""
    sw = build(tmp_path, "smallwrites")
    log = tmp_path / "app.json"
    r = pario("profile", "--buffer", "--buffer-size", "1m", "-o", log, "--", sw, "-n", 10000, tmp_path / "out",
              lib=lib, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = json.loads(pario("profile", "show", log, "--json", lib=lib).stdout)
    program = next(f for f in shown["files"] if f["path"] == str(tmp_path / "out"))
    fs = next(f for f in shown["filesystem"]["files"] if f["path"] == str(tmp_path / "out"))
    assert program["writes"] == 10000 and fs["calls"] == 10000
    assert fs["sys_writes"] == fs["flushes"] == 5 and fs["sys_bytes"] == 10000 * 512  # 4.9 MiB through 1 MiB
    table = pario("profile", "show", log, lib=lib)
    assert "What the file system saw" in table.stdout
