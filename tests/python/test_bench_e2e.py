"""`pario bench` end to end: the real engine under the real mpirun, every strategy x pattern x
backend on 1, 2 and 4 ranks at KiB sizes; bad input; a rank that dies; a rank that hangs."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.mpi]

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


def find_engine():
    env = os.environ.get("PARIO_ENGINE")
    if env:
        return env if os.access(env, os.X_OK) else None
    dev = ROOT / "build" / "dev" / "pario-engine"
    if dev.is_file():
        return str(dev)
    sys.path.insert(0, str(SRC))
    try:
        from pario.platform.engine import engine_path
        return engine_path()
    except Exception:
        return None


ENGINE = find_engine()
needs_engine = pytest.mark.skipif(not ENGINE, reason="pario-engine not found (build it: make, or set PARIO_ENGINE)")
needs_mpi = pytest.mark.skipif(not shutil.which("mpirun"), reason="no mpirun on PATH")


def pario(args, tmp_path, extra_env=None, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["PARIO_DB"] = str(tmp_path / "runs.db")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("PARIO_FAULT", None)
    if ENGINE:
        env["PARIO_ENGINE"] = ENGINE
    env.update(extra_env or {})
    return subprocess.run([sys.executable, "-m", "pario", "bench", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=tmp_path)


# ---- the matrix -------------------------------------------------------------------------------

STRATEGIES = [("serial", False), ("fpp", False), ("shared", False), ("nfiles:2", False), ("per-node", False),
              ("shared", True), ("nfiles:2", True), ("per-node", True)]
PATTERNS = {"contig": {"pattern": "segmented", "segments": 1, "transfer": 1024, "block": 4096},
            "strided": {"pattern": "segmented", "segments": 3, "transfer": 1024, "block": 4096},
            "subarray": {"pattern": "subarray", "dims": "4x4x8"},
            "random": {"pattern": "random", "segments": 2, "transfer": 1024, "block": 8192}}
BACKENDS = {"posix": {"backend": "posix"}, "mpiio": {"backend": "mpiio"},
            "mpiio-coll": {"backend": "mpiio", "collective": True, "view": False},
            "mpiio-coll-view": {"backend": "mpiio", "collective": True, "view": True}}


def matrix(ranks):
    cases = []
    for strategy, aggregate in STRATEGIES:
        if strategy.startswith("nfiles") and ranks < 2:
            continue
        one_writer = strategy == "serial" or aggregate
        for pname, pat in PATTERNS.items():
            for bname, back in BACKENDS.items():
                if one_writer and back.get("collective"):
                    continue
                if back.get("view") and pname == "random":
                    continue
                name = f"{strategy.replace(':', '')}{'-agg' if aggregate else ''}-{pname}-{bname}"
                cases.append({"name": name, "strategy": strategy, "aggregate": aggregate, **pat, **back})
    return cases


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(v)


def write_job(path, cases, defaults):
    lines = ["[defaults]"] + [f"{k} = {toml_value(v) if not isinstance(v, list) else json.dumps(v)}"
                              for k, v in defaults.items()]
    for case in cases:
        lines.append("[[case]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in case.items()]
    path.write_text("\n".join(lines) + "\n")


def expected_bytes(case, ranks):
    if case["pattern"] == "subarray":
        n = 8
        for d in case["dims"].split("x"):
            n *= int(d)
        return n * ranks
    return case["block"] * case["segments"] * ranks


@needs_engine
@needs_mpi
@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_every_strategy_pattern_backend(tmp_path, ranks):
    cases = matrix(ranks)
    job = tmp_path / "job.toml"
    write_job(job, cases, {"ops": ["write", "read", "verify"], "reps": 1})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "user-file.dat").write_text("not pario's")
    run = pario(["--config", str(job), "-n", str(ranks), "--dir", str(scratch), "--json", "--no-probe"], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    doc = json.loads(run.stdout)
    assert doc["status"] == "complete" and isinstance(doc["run"], int)
    result = doc["result"]
    assert result["status"] == "complete" and result["mpi"]["ranks"] == ranks
    by_name = {c["name"]: c for c in result["cases"]}
    assert sorted(by_name) == sorted(c["name"] for c in cases)
    for case in cases:
        got = by_name[case["name"]]
        ops = [p["op"] for p in got["phases"]]
        assert ops == ["write", "read", "verify"], (case["name"], ops)
        for phase in got["phases"]:
            assert phase["bytes"] == expected_bytes(case, ranks), (case["name"], phase["op"], phase["bytes"])
        for phase in got["phases"][1:]:  # the timed read and the verify: every byte checked
            check = phase["verify"]
            assert check["errors"] == 0 and check["checked_bytes"] == expected_bytes(case, ranks), case["name"]
    assert sorted(os.listdir(scratch)) == ["user-file.dat"], "pario removed its files and only them"
    sys.path.insert(0, str(SRC))
    from pario.store import Store
    assert Store(str(tmp_path / "runs.db")).get_run(doc["run"])["status"] == "complete"


@needs_engine
@needs_mpi
def test_keep_keeps_the_files_and_default_dir(tmp_path):
    run = pario(["-n", "2", "-F", "-t", "4k", "-b", "16k", "-i", "2", "-k", "--no-probe"], tmp_path)
    assert run.returncode == 0, run.stderr
    kept = sorted(os.listdir(tmp_path / "pario-scratch"))
    assert len(kept) == 2 and all(k.startswith("pario.") for k in kept), kept
    run = pario(["-n", "2", "-F", "-t", "4k", "-b", "16k", "-i", "1", "--no-probe"], tmp_path)
    assert run.returncode == 0 and sorted(os.listdir(tmp_path / "pario-scratch")) == kept
    assert "Stored as run" in run.stdout


@needs_engine
@needs_mpi
def test_list(tmp_path):
    run = pario(["--list", "--json"], tmp_path)
    names = {b["name"]: b for b in json.loads(run.stdout)["backends"]}
    assert names["posix"]["built"] and names["mpiio"]["built"]


def test_list_without_engine(tmp_path):
    run = pario(["--list", "--json"], tmp_path, {"PARIO_ENGINE": str(tmp_path / "absent")})
    rows = json.loads(run.stdout)["backends"]
    assert {r["name"] for r in rows} >= {"posix", "mpiio", "null"}
    assert all(not r["built"] and r["missing"] for r in rows)


# ---- bad input: exit 2, one line, no traceback, nothing created -------------------------------

BAD = [
    (["-t", "3k", "-b", "4k"], "does not divide"),
    (["-t", "12", "-b", "24"], "multiple of 8"),
    (["-c"], "add -a mpiio or drop -c"),
    (["--view"], "add -a mpiio or drop --view"),
    (["-a", "mpiio", "--strategy", "nfiles:8", "-n", "2"], "nfiles:8 needs at least 8 ranks"),
    (["-a", "mpiio", "--strategy", "serial", "-c"], "one writer"),
    (["-a", "mpiio", "--aggregate", "--view"], "one writer"),
    (["-a", "mpiio", "--view", "-z"], "random"),
    (["--odirect", "-t", "1000", "-b", "8000"], "nearest valid -t"),
    (["--pattern", "subarray"], "--dims"),
    (["-a", "mpiio", "--hint", "romio_cb_writ=enable"], "did you mean romio_cb_write"),
    (["--hint", "cb_nodes=2"], "MPI-IO hints apply to mpiio,"),
    (["-a", "mpiio", "--hints-file", "/no/such/file"], "does not exist"),
    (["-i", "0", "-F"], "argument -i/--reps: '0' is out of range; give a value from 1 to"),
    (["-a", "posixx"], "did you mean posix"),
    (["-t", "4q"], "not a size"),
    (["--strategy", "nfile:2"], "nfiles"),
    (["-F", "-b", "1000t"], "is free"),
    (["-w", "-F", "--drop-caches"], "no case reads"),
    (["-F", "--drop-caches", "sometimes"], "argument --drop-caches: 'sometimes' must be one of files, all"),
    (["-n", "0", "-F"], "argument -n/-N/--ranks: '0' is out of range; give a value from 1 to"),
    (["-F", "--timeout", "nan"], "'nan' needs a number"),   # nan turned the watchdog off
    (["-F", "--timeout", "0"], "'0' is out of range; give a value from 0.001"),
]


@pytest.mark.parametrize("argv,needle", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_rejections(tmp_path, argv, needle):
    scratch = tmp_path / "scratch"
    run = pario([*argv, "--dir", str(scratch), "--no-probe"], tmp_path)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pario: error: ") and needle in lines[0], run.stderr
    assert "Traceback" not in run.stderr and not run.stdout
    assert not scratch.exists() and not (tmp_path / "runs.db").exists()


def test_hints_file_error_names_file_and_line(tmp_path):
    hints = tmp_path / "romio.txt"
    hints.write_text("cb_nodes 2\nromio_ds_wrte disable\n")
    run = pario(["-a", "mpiio", "--hints-file", str(hints)], tmp_path)
    assert run.returncode == 2 and f"{hints}:2: unknown MPI-IO hint" in run.stderr


@needs_engine
def test_io_component_rejected_on_other_mpi(tmp_path):
    fake = tmp_path / "mpirun"
    fake.write_text("#!/bin/sh\necho 'HYDRA build details:'\necho '    Version: 4.0.2'\n")
    fake.chmod(0o755)
    run = pario(["-F", "--io", "romio321", "--mpirun", str(fake), "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 2 and "Open MPI io component" in run.stderr and not (tmp_path / "s").exists()


@needs_engine
def test_no_mpi_is_exit_3(tmp_path):
    run = pario(["-F", "--dir", str(tmp_path / "s")], tmp_path, {"PATH": str(tmp_path)})
    assert run.returncode == 3 and "no MPI found" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_dir_not_writable(tmp_path):
    if os.geteuid() == 0:
        target = "/proc/pario-cannot-be-here"  # root can write anywhere else
    else:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        target = str(ro)
    run = pario(["-F", "--dir", target], tmp_path, {"PARIO_ENGINE": ENGINE or sys.executable})
    if not ENGINE or not shutil.which("mpirun"):
        pytest.skip("needs the engine and mpirun to get as far as the directory")
    assert run.returncode == 2 and "scratch" in run.stderr and "--dir" in run.stderr


# ---- faults --------------------------------------------------------------------------------

@needs_engine
@needs_mpi
def test_a_dying_rank(tmp_path):
    scratch = tmp_path / "scratch"
    run = pario(["-n", "2", "-F", "-t", "4k", "-b", "64k", "-i", "2", "--dir", str(scratch), "--json", "--no-probe"],
                tmp_path, {"PARIO_FAULT": "die:1"}, timeout=120)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("pario: error: run ") and "rank" in last, run.stderr
    doc = json.loads(run.stdout)
    assert doc["status"] in ("partial", "failed")
    assert not scratch.exists() or not [f for f in os.listdir(scratch) if f.startswith("pario.")]
    sys.path.insert(0, str(SRC))
    from pario.store import Store
    assert Store(str(tmp_path / "runs.db")).get_run(doc["run"])["status"] == doc["status"]


@needs_engine
@needs_mpi
def test_watchdog_names_the_hanging_rank(tmp_path):
    scratch = tmp_path / "scratch"
    before = engine_pids()
    run = pario(["-n", "2", "-F", "-t", "4k", "-b", "64k", "-i", "1", "--dir", str(scratch), "--timeout", "4",
                 "--no-probe"], tmp_path, {"PARIO_FAULT": "hang:1"}, timeout=120)
    assert run.returncode == 1, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "no progress for 4 s" in last and "rank 1 stuck in" in last, run.stderr
    assert not scratch.exists() or not [f for f in os.listdir(scratch) if f.startswith("pario.")]
    assert engine_pids() <= before, "an engine rank outlived the watchdog"


def engine_pids():
    ps = subprocess.run(["pgrep", "-f", ENGINE], capture_output=True, text=True)
    return {int(p) for p in ps.stdout.split()}


@needs_engine
@needs_mpi
def test_interrupt_cleans_up(tmp_path):
    """Ctrl-C during a run: the ranks end, this run's files go, pario exits 130 (the run is stored:
    test_signals_e2e.py)."""
    import signal
    import time
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "keep.me").write_text("user data")
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"), PARIO_ENGINE=ENGINE,
               XDG_CACHE_HOME=str(tmp_path / "cache"), PARIO_FAULT="hang:1")
    before = engine_pids()
    proc = subprocess.Popen([sys.executable, "-m", "pario", "bench", "-n", "2", "-F", "-t", "4k", "-b", "64k",
                             "--dir", str(scratch), "--no-probe", "--timeout", "120"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not [f for f in os.listdir(scratch) if f.startswith("pario.")]:
        time.sleep(0.1)  # until the engine has created its files
    assert [f for f in os.listdir(scratch) if f.startswith("pario.")], "the engine never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stopped by SIGINT" in err and "Traceback" not in err
    assert os.listdir(scratch) == ["keep.me"]
    assert engine_pids() <= before


@needs_engine
@needs_mpi
def test_example_job_file_runs(tmp_path):
    run = pario(["--config", str(ROOT / "examples" / "job.toml"), "-n", "2", "-i", "1", "--json", "--no-probe",
                 "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(run.stdout)
    assert doc["status"] == "complete" and len(doc["summary"]) == 7
    coll = [c for c in doc["result"]["cases"] if c["name"] == "shared-mpiio-coll"][0]
    assert coll["hints"]["requested"] == {"romio_cb_write": "enable", "cb_buffer_size": "16777216"}
    assert not (tmp_path / "s").exists(), "pario made the directory, so it removed it once empty"


@needs_engine
@needs_mpi
def test_default_suite(tmp_path):
    run = pario(["--size", "8m", "-i", "1", "--json", "--no-probe"], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(run.stdout)
    names = [r["name"] for r in doc["summary"]]
    assert names == ["fpp-posix", "shared-posix", "shared-mpiio", "shared-mpiio-coll", "pernode-mpiio-coll",
                     "serial-posix"]
    assert "default suite" in doc["sizes"] and "default suite" in run.stderr
    # one repetition: the highest median is reported, no winner is named
    assert doc["fastest"]["write"] is None and doc["verdicts"]["write"]["undecided"]
    assert doc["verdicts"]["write"]["best"] in names
    assert all(6 << 20 < c["total_bytes"] <= 8 << 20 for c in doc["result"]["cases"]), "--size is the data per phase"
    assert not (tmp_path / "pario-scratch").exists()
