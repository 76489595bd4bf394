"""pario tune on a real Slurm (the local one-node cluster): inside an allocation its trials launch
through srun with the allocation's tasks; with --submit each round of launches is a job array (the
guesses of one file layout, a race round of the close ones, ...), and a session
whose front end is gone (SIGHUP: the user logged out) while its jobs run is picked up by --resume
without running those trials again."""
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pario.tune import racing
from slurm_support import ROOT, job_fields, local_slurm, pario, pario_env, stop
from tune_support import check_ending, race_went_on_while_undecided

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


def _arrays(store):
    """The session's job arrays in the order submitted: (stage, [(role, trial, repetitions, rates)])."""
    arrays = {}
    for rec in sorted(store.list_jobs(limit=1000), key=lambda r: r["id"]):
        doc = rec["doc"]
        task = json.loads(Path(doc["batch"]).read_text())["tasks"][doc["task"]]
        done = json.loads(Path(f"{doc['batch']}.task-{doc['task']}.json").read_text())
        assert done["status"] == "complete", done
        stage, tasks = arrays.setdefault(rec["job_id"].split("_")[0], (doc["stage"], []))
        assert doc["stage"] == stage   # one array, one round
        tasks.append((doc["role"], doc["trial"], task["reps"], done["rates"]))
    return list(arrays.values())


def test_submitted_guesses_run_in_layout_arrays_and_close_ones_race(cluster, tmp_path):
    """--submit takes pario tune's decisions, a round per job array: the first control with the first
    guess batch (one file layout), a race round among the close guesses (racing.needs_more), the next
    layout's batch, the final control with the confirmation (alone when nothing beat the default beyond
    the noise), then the confirmation race while those two are not told apart beyond the noise."""
    out = pario(cluster, ["tune", *CASE, "-n", "2", "--trials", "6", "--submit", "--max-jobs", "1",
                          "--sbatch-args", "-t 5", "--json"], tmp_path, timeout=900)
    assert out.returncode == 0, out.stderr
    session = json.loads(out.stdout)["session"]
    assert session["status"] == "done" and session["winner"] is not None
    trials = {t["number"]: t for t in session["trials"]}
    arrays = _arrays(_store(tmp_path))
    stages = [stage for stage, _ in arrays]
    assert stages[0] == "control and guesses"
    final = stages.index("final control and confirmation")   # then the confirmation race, if it is needed
    assert set(stages[final + 1:]) <= {"confirmation race"}, stages
    assert [role for role, *_ in arrays[0][1]][:3] == ["control", "trial", "trial"]
    launches: dict[int, list[float]] = {}
    layouts, rounds, left = [], [], []
    for stage, tasks in arrays:
        guesses = {n: rates for role, n, _, rates in tasks if role == "trial"}
        assert stage == "race" or not left, f"the race of {left} did not go on: {stage}"
        if stage in ("control and guesses", "guesses"):
            layout = {trials[n]["settings"].get("strategy", "shared") for n in guesses}
            assert len(layout) == 1 and layout != set(layouts[-1:])   # one layout per batch, the next one after
            layouts.append(layout.pop())
            entrants = dict(guesses)
        elif stage == "race":   # exactly the close ones, STEP more repetitions each
            assert sorted(guesses) == sorted(left) and all(r <= racing.STEP for _, _, r, _ in tasks)
            rounds.append(sorted(guesses))
            for n, rates in guesses.items():
                entrants[n] = entrants[n] + rates
        elif stage == "confirmation race":   # the final pair alone, STEP more repetitions each
            pair = [n for _, n, *_ in arrays[final][1]]
            assert sorted(n for _, n, *_ in tasks) == sorted(pair) and all(r == racing.STEP for _, _, r, _ in tasks)
        else:
            assert stage in ("challenge", "final control and confirmation"), stage
        for _role, n, reps, rates in tasks:
            assert len(rates) == reps
            launches.setdefault(n, []).extend(rates)
        left = racing.needs_more(entrants) if stage in ("control and guesses", "guesses", "race") else []
    assert len(layouts) == 2 and arrays[final][1][0][0] == "control"
    for n, rates in launches.items():   # the session's trials are what their arrays measured, in order
        assert trials[n]["rates"] == rates
    # the confirmation race went on, an array a round, exactly while the final pair was not told apart
    pair = {role: n for role, n, *_ in arrays[final][1]}
    if "confirm" in pair:
        note = trials[pair["confirm"]]["note"]
        before = ([r for t in session["trials"] if t["state"] == "control" and t["number"] != pair["control"]
                   for r in t["rates"]],
                  [r for t in session["trials"] if t["state"] == "confirm" and t["note"] == note
                   and t["number"] != pair["confirm"] for r in t["rates"]])
        raced = race_went_on_while_undecided([trials[pair["control"]]["rates"], trials[pair["confirm"]]["rates"]],
                                             arrays[final][1][0][2], before)
    else:   # nothing beat the default beyond the noise: the final control alone, no race
        assert session["incumbent"] is None and list(pair) == ["control"], pair
        raced = 0
    assert raced == len(stages) - final - 1, stages
    print(f"race rounds: {rounds or 'none: the guesses were apart beyond the noise after 3 repetitions'}; "
          f"confirmation race rounds: {raced}; {check_ending(session)}")


def _ended(cluster, job):
    return job_fields(cluster, job)["JobState"] in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT")


def test_trials_as_jobs_survive_a_logout_and_resume_picks_them_up(cluster, tmp_path):
    argv = [sys.executable, "-m", "pario", "tune", *CASE, "-n", "2", "--trials", "7", "--submit", "--batch", "3",
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
    picked = {t["number"]: t for t in doc["trials"] if t["number"] in {rec["doc"]["trial"] for rec in store.list_jobs()
                                                                        if rec["job_id"] in first}}
    assert len(picked) == 3 and all(t["state"] in ("control", "complete") and t["rates"] for t in picked.values())
    assert all(t["runs"][0] in stored_before for t in picked.values())   # taken as measured, not run again:
    again = [rec["doc"]["stage"] for rec in store.list_jobs() if rec["job_id"] not in first
             and rec["doc"]["trial"] in picked]
    assert set(again) <= {"race", "challenge"}   # only more repetitions when close guesses race
    jobs_after = [j["job_id"] for j in store.list_jobs()]
    assert len(jobs_after) > 3 and all(not j.startswith(first[0].split("_")[0] + "_") or j in first
                                       for j in jobs_after)
    assert doc["trials"][0]["state"] == "control"
    assert any(t["state"] == "confirm" for t in doc["trials"]) or doc["incumbent"] is None
    print(check_ending(doc))   # the resumed session's verdict and confirmation race follow the rules


def test_a_logout_during_the_second_array_loses_none_of_its_repetitions(cluster, tmp_path):
    """The second array (a race round of the first guesses, or the next layout's guesses) still runs
    when the user logs out: pario names its jobs, and --resume adds what they measured to their trials
    (a race round's repetitions to the racing trials) without launching them again."""
    argv = [sys.executable, "-m", "pario", "tune", *CASE, "-n", "2", "--trials", "6", "--submit", "--max-jobs", "1",
            "--sbatch-args", "-t 5"]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=pario_env(cluster, tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 180
        while not (tmp_path / "runs.db").exists() or len(_store(tmp_path).list_jobs()) < 4:
            assert time.monotonic() < end and proc.poll() is None, proc.communicate()[1]
            time.sleep(0.1)
        proc.send_signal(signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGHUP, err
    store = _store(tmp_path)
    second = sorted(j["job_id"] for j in store.list_jobs() if not j["doc"].get("collected"))
    stage = {j["doc"]["stage"] for j in store.list_jobs() if j["job_id"] in second}
    assert second and len(stage) == 1 and stage <= {"race", "guesses"}, store.list_jobs()
    assert f"{', '.join(second)} go on and --resume picks up" in err, err   # named, whatever the trials' state
    print(f"interrupted during a {stage.pop()} array ({len(second)} job(s))")
    end = time.monotonic() + 180
    while not all(_ended(cluster, j) for j in second):
        assert time.monotonic() < end, "the array did not end"
        time.sleep(0.5)
    session_id = store.list_sessions()[0]["id"]
    resumed = pario(cluster, ["tune", "--resume", str(session_id), "--json"], tmp_path, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    doc = json.loads(resumed.stdout)["session"]
    assert doc["status"] == "done" and len(doc["trials"]) <= 6
    trials = {t["number"]: t for t in doc["trials"]}
    jobs = {j["job_id"]: j for j in store.list_jobs(limit=1000)}
    for job in second:   # collected once, its run in its trial
        rec = jobs[job]
        assert rec["doc"].get("collected") and rec["run_id"] in trials[rec["doc"]["trial"]]["runs"]
    print(check_ending(doc))
    for stage_, tasks in _arrays(store):   # no trial's first launch was made twice
        for role, n, _, _ in tasks:
            if stage_ in ("control and guesses", "guesses") and role == "trial":
                assert sum(1 for s, ts in _arrays(store) for r, m, _, _ in ts
                           if m == n and s in ("control and guesses", "guesses", "proposals")) == 1
