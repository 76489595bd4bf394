"""pario bench as a batch job on a real Slurm (the local one-node cluster): --submit follows the job and
shows the run it stored; --script-only prints a script that sbatch runs as it is; sbatch's refusal,
a job that cannot start, scancel and a time limit each end in one line with the job id and Slurm's
reason, and what was measured before is kept as a partial run."""
import re
import subprocess
import time

import pytest

from slurm_support import ROOT, job_fields, local_slurm, pario, pario_env, stop

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]
CASE = ["-a", "posix", "-t", "64k", "-b", "256k", "-i", "2", "--no-probe", "-o", "scratch"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = local_slurm(tmp_path_factory.mktemp("submit"))
    yield c
    stop(c)


def _store(tmp_path):
    import sys
    sys.path.insert(0, str(ROOT / "src"))
    from pario.store import Store
    return Store(str(tmp_path / "runs.db"))


def _errors(out):
    return [ln for ln in out.stderr.splitlines() if ln.startswith("pario: error:")]


def test_submit_follows_the_job_and_shows_its_run(cluster, tmp_path):
    out = pario(cluster, ["bench", *CASE, "-n", "2", "--submit", "--sbatch-args", "-p debug -t 5 -J mine"], tmp_path)
    assert out.returncode == 0, out.stderr
    job = re.search(r"submitted Slurm job (\d+)", out.stderr).group(1)
    assert f"Slurm job {job}: RUNNING" in out.stderr and f"Slurm job {job}: COMPLETED" in out.stderr
    assert "pario: [4/4] shared-posix read rep 1" in out.stderr  # the job's own progress, as it came
    fields = job_fields(cluster, job)
    assert (fields["JobName"], fields["TimeLimit"], fields["NumTasks"]) == ("mine", "00:05:00", "2")
    store = _store(tmp_path)
    runs = store.runs_of_job(job)
    assert len(runs) == 1 and f"Stored as run {runs[0]} (complete) by Slurm job {job}" in out.stdout
    run = store.get_run(runs[0])
    assert run["env"]["launcher_argv"][:2] == ["srun", "-n"] and run["result"]["mpi"]["ranks"] == 2
    assert "--submit" not in run["command"] and "--sbatch-args" not in run["command"]
    listed = pario(cluster, ["results", "jobs"], tmp_path)
    assert re.search(rf"\b{job}\s+COMPLETED\s+{runs[0]}\b", listed.stdout), listed.stdout


def test_script_only_prints_a_script_sbatch_runs(cluster, tmp_path):
    out = pario(cluster, ["bench", *CASE, "-n", "1", "--script-only", "--sbatch-args=--time=3"], tmp_path)
    assert out.returncode == 0, out.stderr
    script = out.stdout
    assert script.startswith("#!/bin/bash\n") and "#SBATCH --ntasks=1\n" in script and "#SBATCH --time=3\n" in script
    assert "--script-only" not in script and "exec " in script
    assert not (tmp_path / "pario-jobs").exists() and not _store(tmp_path).list_jobs()  # nothing submitted
    (tmp_path / "job.sh").write_text(script)
    sub = cluster.run(["sbatch", "--parsable", str(tmp_path / "job.sh")], cwd=tmp_path)
    assert sub.returncode == 0, sub.stderr
    job = sub.stdout.strip().split(";")[0]
    end = time.monotonic() + 120
    while job_fields(cluster, job)["JobState"] not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"):
        assert time.monotonic() < end, "the job did not end in 120 s"
        time.sleep(0.3)
    assert job_fields(cluster, job)["JobState"] == "COMPLETED", (tmp_path / f"pario-bench-{job}.err").read_text()
    assert "Stored as run" in (tmp_path / f"pario-bench-{job}.out").read_text()
    assert len(_store(tmp_path).runs_of_job(job)) == 1


def test_sbatch_refusal_is_one_line(cluster, tmp_path):
    out = pario(cluster, ["bench", *CASE, "-n", "1", "--submit", "--sbatch-args", "-p nosuch -t 5"], tmp_path)
    assert out.returncode == 2
    assert _errors(out) == [_errors(out)[0]] and "sbatch refused the job: invalid partition specified: nosuch" in \
        _errors(out)[0]
    out = pario(cluster, ["bench", *CASE, "--submit"], tmp_path)
    assert out.returncode == 2 and "say how many ranks" in out.stderr
    out = pario(cluster, ["bench", *CASE, "-n", "2", "-t", "3k", "--submit"], tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr  # bad case input fails here, not in the queue
    assert not _store(tmp_path).list_jobs()


def test_a_job_that_cannot_start_is_cancelled(cluster, tmp_path):
    """4 tasks on a 2-CPU node: Slurm keeps it pending for ever (PartitionConfig)."""
    out = pario(cluster, ["bench", *CASE, "-n", "4", "--submit"], tmp_path)
    assert out.returncode == 2  # bad input: more than the partition has
    job = re.search(r"submitted Slurm job (\d+)", out.stderr).group(1)
    assert f"Slurm job {job} cannot start as asked: it waits for PartitionConfig" in _errors(out)[0]
    assert job_fields(cluster, job)["JobState"] == "CANCELLED"


def _submit_in_background(cluster, tmp_path, extra_args, fault):
    import sys
    argv = [sys.executable, "-m", "pario", "bench", *CASE, "-i", "5", "-n", "2", "--timeout", "600", "--submit",
            *extra_args]
    extra = {"PARIO_FAULT": fault} if fault else {}
    return subprocess.Popen(argv, cwd=tmp_path, env=pario_env(cluster, tmp_path, extra=extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _job_of(tmp_path, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        jobs = _store(tmp_path).list_jobs() if (tmp_path / "runs.db").exists() else []
        if jobs:
            return jobs[0]["job_id"]
        time.sleep(0.2)
    raise AssertionError("no job was submitted")


def _wait_phases(tmp_path, job, phases, timeout=120):
    """Until the job's messages show `phases` measured phases (then rank 0 hangs: PARIO_FAULT), or
    with phases=0 until its case has started (rank 0 hangs in its first write)."""
    mark = f"[{phases}/10]" if phases else "shared-posix: 512 KiB per phase"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        errs = list((tmp_path / "pario-jobs").glob(f"*-{job}.err"))
        if errs and mark in errs[0].read_text():
            return
        time.sleep(0.3)
    raise AssertionError(f"job {job} did not show {mark!r} in {timeout}s")


def _cancel_left(cluster, tmp_path):
    """A failed test must not leave its job holding the node's CPUs for the next ones."""
    for rec in (_store(tmp_path).list_jobs() if (tmp_path / "runs.db").exists() else []):
        cluster.run(["scancel", rec["job_id"]])


def _kept(tmp_path, job, errors, err):
    """What a stopped job left: a partial run with the 2 phases measured before rank 0 hung."""
    runs = _store(tmp_path).runs_of_job(job)
    assert len(errors) == 1, err
    assert len(runs) == 1, err
    run = _store(tmp_path).get_run(runs[0])
    assert run["status"] == "partial" and len(run["result"]["cases"][0]["phases"]) == 2
    assert f"; what it measured is kept as partial run {runs[0]} (" in errors[0], err


def test_scancel_keeps_what_was_measured(cluster, tmp_path):
    proc = _submit_in_background(cluster, tmp_path, [], "hang:0:2")
    try:
        job = _job_of(tmp_path)
        _wait_phases(tmp_path, job, 2)
        assert cluster.run(["scancel", job]).returncode == 0
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        _cancel_left(cluster, tmp_path)
    assert proc.returncode == 1, err
    errors = [ln for ln in err.splitlines() if ln.startswith("pario: error:")]
    assert errors[0].startswith(f"pario: error: Slurm job {job} was cancelled (scancel or an administrator)"), err
    assert job_fields(cluster, job)["JobState"] == "CANCELLED"
    _kept(tmp_path, job, errors, err)


def test_time_limit_keeps_what_was_measured(cluster, tmp_path):
    """Slurm's shortest limit is a minute, checked every 30 s: this test takes 60-100 s."""
    proc = _submit_in_background(cluster, tmp_path, ["--sbatch-args", "--time=1"], "hang:0:2")
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        proc.kill()
        _cancel_left(cluster, tmp_path)
    job = _job_of(tmp_path)
    assert proc.returncode == 1, err
    errors = [ln for ln in err.splitlines() if ln.startswith("pario: error:")]
    assert errors[0].startswith(f"pario: error: Slurm job {job} reached its time limit (00:01:00) and was stopped "
                                "after 00:0"), err
    fields = job_fields(cluster, job)
    assert (fields["JobState"], fields["Reason"]) == ("TIMEOUT", "TimeLimit")
    _kept(tmp_path, job, errors, err)


def test_stop_following_then_results_jobs_picks_the_run_up(cluster, tmp_path):
    """The user logs out while the job runs: it stores its run anyway, and `pario results jobs` links it."""
    import signal
    proc = _submit_in_background(cluster, tmp_path, [], None)
    try:
        job = _job_of(tmp_path)
        proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        if proc.returncode != 128 + signal.SIGHUP:
            _cancel_left(cluster, tmp_path)
    assert proc.returncode == 128 + signal.SIGHUP, err
    assert f"stopped following Slurm job {job}; it goes on" in err
    end = time.monotonic() + 120
    while job_fields(cluster, job)["JobState"] not in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"):
        assert time.monotonic() < end, "the job did not end"
        time.sleep(0.3)
    assert _store(tmp_path).list_jobs()[0]["run_id"] is None   # nobody has looked yet
    listed = pario(cluster, ["results", "jobs", "--json"], tmp_path)
    import json
    rec = json.loads(listed.stdout)["jobs"][0]
    runs = _store(tmp_path).runs_of_job(job)
    assert (rec["job_id"], rec["state"], rec["run_id"]) == (job, "COMPLETED", runs[-1])
    assert _store(tmp_path).get_run(runs[-1])["status"] == "complete"
