"""pario advise on Darshan logs (read with PyDarshan): the example logs the `darshan` package
ships all give advice without a crash; truncated, cut and foreign files are named as such in one
line; and, where a Darshan runtime is installed (/opt/darshan, or $DARSHAN_LIB), logs of the test
programs give the same findings as pario's own profiles (exactly 1 MiB is not small even though
Darshan's histogram puts it with the smaller sizes; Open MPI's helper files are left out)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from advise_support import advise, build, pario, rules, validate

darshan = pytest.importorskip("darshan", reason="PyDarshan (pip install 'pario[darshan]') is not installed")
pytestmark = [pytest.mark.e2e]

EXAMPLES = sorted(Path(darshan.__file__).parent.rglob("*.darshan"))
LIBDARSHAN = os.environ.get("DARSHAN_LIB", "/opt/darshan/lib/libdarshan.so")


def test_every_example_log_is_advised(tmp_path):
    assert EXAMPLES, "the darshan package ships example logs"
    doc = advise(EXAMPLES, tmp_path, "--no-calibrate")
    validate(doc)
    assert [j["source"] for j in doc["jobs"]] == [str(p) for p in EXAMPLES]
    assert all(j["format"] == "darshan" for j in doc["jobs"])
    # the terminal report too (of a few: reading is what the first call checked for all)
    run = pario(["advise", *EXAMPLES[:3], "--no-calibrate"], None, tmp_path)
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert max(len(line) for line in run.stdout.splitlines()) <= 80


def test_helper_files_of_a_shipped_log_are_left_out(tmp_path):
    """sample-dxt-simple.darshan is 16 Open MPI ranks with *.locktest.N and *.sm files."""
    log = next(p for p in EXAMPLES if p.name == "sample-dxt-simple.darshan")
    job = advise([log], tmp_path, "--no-calibrate")["jobs"][0]
    assert any(p.endswith(".sm") for p in job["ignored_files"])
    assert sum(".locktest." in p for p in job["ignored_files"]) == 16
    assert "stragglers" not in rules(job)


def test_truncated_and_foreign_logs_are_named(tmp_path):
    whole = next(p for p in EXAMPLES if p.name == "ior_hdf5_example.darshan").read_bytes()
    half, head, foreign = tmp_path / "half.darshan", tmp_path / "head.darshan", tmp_path / "foreign.darshan"
    half.write_bytes(whole[: len(whole) // 2])
    head.write_bytes(whole[:100])
    foreign.write_text("not a darshan log\n")
    run = pario(["advise", half, head, foreign, "--no-calibrate", "--json"], None, tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    errors = run.stderr.strip().splitlines()
    assert len(errors) == 2
    assert "head.darshan: the Darshan log is truncated" in errors[0]
    assert "foreign.darshan: not a Darshan log" in errors[1]
    import json
    doc = json.loads(run.stdout)
    job = doc["jobs"][0]   # the half log is advised on what it holds, and says it is cut
    assert job["source"] == str(half) and "truncated or corrupt" in job["partial"][0]


needs_runtime = pytest.mark.skipif(not os.path.isfile(LIBDARSHAN),
                                   reason=f"no Darshan runtime at {LIBDARSHAN} (set DARSHAN_LIB)")


def _darshan_run(argv, log: Path, ranks: int | None = None):
    env = dict(os.environ, DARSHAN_LOGFILE=str(log))
    env.pop("DARSHAN_ENABLE_NONMPI", None)   # under mpirun each rank would write its own log over the others
    if ranks:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks), "-x", "DARSHAN_LOGFILE", "-x",
               f"LD_PRELOAD={LIBDARSHAN}"]
        if os.geteuid() == 0:
            cmd.insert(1, "--allow-run-as-root")
        run = subprocess.run(cmd + [str(a) for a in argv], env=env, capture_output=True, timeout=120)
    else:
        env.update(LD_PRELOAD=LIBDARSHAN, DARSHAN_ENABLE_NONMPI="1")
        run = subprocess.run([str(a) for a in argv], env=env, capture_output=True, timeout=120)
    assert run.returncode == 0 and log.is_file(), run.stderr


@needs_runtime
def test_darshan_logs_of_the_test_programs(tmp_path):
    exe = build(tmp_path, "patterns")
    work = tmp_path / "w"
    work.mkdir()
    logs = {}
    for mode in ("small-writes", "mib-writes", "many-files", "one-file"):
        logs[mode] = tmp_path / f"{mode}.darshan"
        _darshan_run([exe, mode, work], logs[mode])
    doc = advise(list(logs.values()), tmp_path, "--no-calibrate")
    validate(doc)
    jobs = dict(zip(logs, doc["jobs"]))
    assert "posix-small-writes" in rules(jobs["small-writes"])
    assert "posix-small-writes" not in rules(jobs["mib-writes"])   # Darshan's 100K_1M bucket holds 1 MiB
    assert "many-files" in rules(jobs["many-files"]) and "many-files" not in rules(jobs["one-file"])


@needs_runtime
@pytest.mark.mpi
@pytest.mark.skipif(not shutil.which("mpicc"), reason="no mpicc")
def test_darshan_log_of_an_mpi_program_leaves_helpers_out(tmp_path):
    exe = build(tmp_path, "mpi_patterns", cc="mpicc")
    work = tmp_path / "w"
    work.mkdir()
    log = tmp_path / "ordered.darshan"
    _darshan_run([exe, "ordered", work], log, ranks=4)
    job = advise([log], tmp_path, "--no-calibrate")["jobs"][0]
    assert job["nprocs"] == 4
    assert any(".locktest." in p for p in job["ignored_files"])
    assert not {"stragglers", "one-rank-io"} & rules(job)


def test_tune_from_a_shipped_log_says_what_it_took_in_80_columns(tmp_path):
    """`pario tune --from-log` printed what it took from the log in lines of up to 170 columns; the
    first line (the log and the case as bench flags, to paste) is left whole."""
    log = next(p for p in EXAMPLES if p.name == "sample.darshan")
    run = pario(["tune", "--from-log", log, "--dry-run"], None, tmp_path)
    assert run.returncode == 0, run.stderr
    said = run.stderr.splitlines()
    assert said[0].startswith(f"pario: tuning the case taken from {log}: -a mpiio -c"), said
    assert "the file the job spent most I/O time on" in run.stderr
    assert max(len(line) for line in said[1:]) <= 80, said
