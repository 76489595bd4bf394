"""pario tune on a real Slurm (the local one-node cluster): inside an allocation its trials launch
through srun with the allocation's tasks; with --submit its trials are job arrays, and a session
whose front end is gone (SIGHUP: the user logged out) while its jobs run is picked up by --resume
without running those trials again."""
import json
import re
import signal
import subprocess
import sys
import time

import pytest

from slurm_support import ROOT, job_fields, local_slurm, pario, pario_env, stop

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]
CASE = ["-a", "null", "-c", "-t", "64k", "-b", "256k", "-w", "--no-probe"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = local_slurm(tmp_path_factory.mktemp("tune"))
    yield c
    stop(c)


def _store(tmp_path):
    sys.path.insert(0, str(ROOT / "src"))
    from pario.store import Store
    return Store(str(tmp_path / "runs.db"))


def test_tune_inside_an_allocation_uses_srun_and_its_tasks(cluster, tmp_path):
    out = pario(cluster, ["tune", *CASE, "--trials", "4", "--json"], tmp_path, salloc=2)
    assert out.returncode == 0, out.stderr
    session = json.loads(out.stdout)["session"]
    assert session["ranks"] == 2
    store = _store(tmp_path)
    runs = [store.get_run(r) for t in session["trials"] for r in t["runs"]]
    assert runs and all(r["env"]["launcher_argv"][:3] == ["srun", "-n", "2"] for r in runs)
    assert all(r["env"]["slurm"]["mpi_plugin"] == "pmix" for r in runs)


def _ended(cluster, job):
    return job_fields(cluster, job)["JobState"] in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT")


def test_trials_as_jobs_survive_a_logout_and_resume_picks_them_up(cluster, tmp_path):
    argv = [sys.executable, "-m", "pario", "tune", *CASE, "-n", "1", "--trials", "7", "--submit", "--batch", "3",
            "--max-jobs", "1", "--sbatch-args", "-t 5"]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=pario_env(cluster, tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 120
        while not (tmp_path / "runs.db").exists() or len(_store(tmp_path).list_jobs()) < 3:
            assert time.monotonic() < end and proc.poll() is None, proc.communicate()[1]
            time.sleep(0.2)
        proc.send_signal(signal.SIGHUP)   # the terminal is gone: the array's tasks go on
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGHUP, err
    store = _store(tmp_path)
    first = sorted(j["job_id"] for j in store.list_jobs())
    assert len(first) == 3 and re.fullmatch(r"\d+_0", first[0])
    session = store.get_session(store.list_sessions()[0]["id"])
    assert session["status"] == "interrupted"
    waiting = [t for t in session["doc"]["trials"] if t["job"]]
    assert sorted(t["job"] for t in waiting) == first
    assert all(t["state"] == "interrupted" and "--resume picks up" in t["note"] for t in waiting)
    end = time.monotonic() + 180
    while not all(_ended(cluster, j) for j in first):   # nobody follows them: they run anyway
        assert time.monotonic() < end, "the array did not end"
        time.sleep(0.5)
    assert all(job_fields(cluster, j)["JobState"] == "COMPLETED" for j in first)
    stored_before = {r["id"] for r in store.list_runs(1000) if r["kind"] == "tune"}
    assert len(stored_before) == 3   # each task stored its trial's run without a front end

    resumed = pario(cluster, ["tune", "--resume", str(session["id"]), "--json"], tmp_path, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    doc = json.loads(resumed.stdout)["session"]
    assert doc["status"] == "done" and len(doc["trials"]) <= 7
    picked = {t["job"]: t for t in doc["trials"] if t["job"] in first}
    assert len(picked) == 3 and all(t["state"] in ("control", "complete") and t["rates"] for t in picked.values())
    assert all(set(t["runs"]) <= stored_before for t in picked.values())   # taken as measured, not run again
    jobs_after = [j["job_id"] for j in store.list_jobs()]
    assert len(jobs_after) > 3 and all(not j.startswith(first[0].split("_")[0] + "_") or j in first
                                       for j in jobs_after)
    assert doc["trials"][0]["state"] == "control"
    assert any(t["state"] == "confirm" for t in doc["trials"]) or doc["incumbent"] is None
