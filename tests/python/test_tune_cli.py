"""`pario tune` end to end with the real engine under mpirun: small cases (2 ranks, 256 KiB), the null
and posix backends, a hint this MPI ignores shown dropped, SIGTERM mid-session then --resume, the
JSON document against schemas/tune.schema.json, the sessions and their runs listed."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import jsonschema
import pytest

from cli_support import ENGINE, HAVE_MPIRUN, ROOT, SRC, pario
from pario.store import Store
from tune_support import check_ending, winner_title

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")]
SCHEMA = json.loads((ROOT / "schemas" / "tune.schema.json").read_text())
SMALL = ["-t", "64k", "-b", "256k", "-n", "2", "-w", "--no-probe"]


def tune_json(args, tmp_path, **kw):
    run = pario([*args, "--json"], tmp_path, command="tune", **kw)
    assert run.returncode == 0, run.stderr
    # the engine warned on every repetition of the null backend that it could not remove the file the
    # backend never made (92 lines in a 6-trial session)
    assert "could not remove" not in run.stderr, run.stderr[-600:]
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMA)
    return doc


def test_null_backend_session_is_stored_with_its_runs(tmp_path):
    doc = tune_json(["-a", "null", "-c", *SMALL, "--trials", "7"], tmp_path)
    s = doc["session"]
    assert s["status"] == "done" and len(s["trials"]) <= 7
    assert set(s["space"]) == {"strategy", "collective"}
    assert s["trials"][0]["state"] == "control" and len(s["trials"][0]["rates"]) == 3
    runs = [r for t in s["trials"] for r in t["runs"]]
    assert runs and all(t["runs"] for t in s["trials"] if t["rates"])
    assert s["winner"]["method"].startswith("bootstrap")
    print(check_ending(s))   # the verdict the measured rates call for (the null backend's rates are noisy)
    # by default the session's trials are one entry holding its runs; --kind tune lists them one by one
    folded = json.loads(pario(["--json"], tmp_path, command="results").stdout)["runs"]
    assert [sorted(r["runs"]) for r in folded if r.get("session") == s["id"]] == [sorted(set(runs))]
    listed = json.loads(pario(["--kind", "tune", "--json"], tmp_path, command="results").stdout)["runs"]
    assert set(runs) <= {r["id"] for r in listed if r["kind"] == "tune"}
    # each stored run names its trial as the bench command that re-runs it, not the session's tune command
    commands = {r["id"]: r["command"] for r in listed}
    for t in s["trials"]:
        for run in t["runs"]:
            assert commands[run].startswith("pario bench -a null") and " -n " in commands[run]
            assert ("--strategy fpp" in commands[run]) == (t["settings"].get("strategy") == "fpp")
    sessions = json.loads(pario(["--list", "--json"], tmp_path, command="tune").stdout)["sessions"]
    assert [x["id"] for x in sessions] == [s["id"]] and sessions[0]["status"] == "done"


def test_posix_session_prints_80_columns_and_a_bench_command(tmp_path):
    run = pario(["-a", "posix", *SMALL, "--trials", "6"], tmp_path, command="tune")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert any(line.lstrip().startswith("0 control") for line in lines)
    assert "Stored as tuning session 1" in run.stdout
    flat = "".join(run.stdout.split())
    stored = Store(str(tmp_path / "runs.db"), existing=True).get_session(1)["doc"]
    print(check_ending(stored))   # the paragraph says the verdict the stored rates call for
    assert winner_title(stored) in flat, run.stdout
    trials = sum(1 for line in lines if re.match(r"^ {0,2}\d+ [a-z]", line))   # each trial's line, once
    assert f"Spent{trials}trialsofthe6budgeted" in flat and "countedrepetitionsinall" in flat, run.stdout
    assert not os.path.exists(tmp_path / "pario-scratch") or not os.listdir(tmp_path / "pario-scratch")


def test_a_hint_ompio_ignores_is_dropped_and_striping_does_not_exist_here(tmp_path):
    doc = tune_json(["-a", "mpiio", "-c", *SMALL, "--io", "ompio", "--space", "romio_cb_write,cb_nodes",
                     "--trials", "5"], tmp_path)
    s = doc["session"]
    dropped = {d["key"]: d["reason"] for d in s["dropped"]}
    assert "ompio ignores" in dropped["romio_cb_write"]
    assert list(s["space"]) == ["cb_nodes"]
    assert all("romio_cb_write" not in t["settings"] for t in s["trials"])
    dry = tune_json(["-a", "mpiio", "-c", *SMALL, "--dry-run"], tmp_path)
    reasons = {d["key"]: d["reason"] for d in dry["session"]["dropped"]}
    if dry["session"]["context"]["space"]["fs"] != "lustre":
        assert "not Lustre" in reasons["striping_factor"] and "not Lustre" in reasons["striping_unit"]
    assert dry["grid"] > 10 and dry["guesses"]


def test_time_alone_is_the_budget(tmp_path):
    """`--time 20m` without --trials stopped at the default 30 trials (a few minutes); alone, the
    time is the budget and the trial cap only bounds it; with --trials, whichever comes first."""
    dry = tune_json(["-a", "mpiio", "-c", *SMALL, "--time", "20m", "--dry-run"], tmp_path)
    assert dry["session"]["budget"]["seconds"] == 1200 and dry["session"]["budget"]["trials"] > max(30, dry["grid"])
    both = tune_json(["-a", "mpiio", "-c", *SMALL, "--time", "20m", "--trials", "12", "--dry-run"], tmp_path)
    assert both["session"]["budget"]["trials"] == 12


def test_sigterm_keeps_the_finished_trials_and_resume_goes_on(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PARIO_ENGINE=ENGINE)
    proc = subprocess.Popen([sys.executable, "-m", "pario", "tune", "-a", "null", "-c", *SMALL, "--trials", "12"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    seen, deadline = 0, time.monotonic() + 120
    while seen < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line[:3].strip().isdigit():
            seen += 1
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "--resume 1" in err
    first = json.loads(pario(["--list", "--json"], tmp_path, command="tune").stdout)["sessions"][0]
    assert first["status"] == "interrupted"
    time.sleep(0.5)
    doc = tune_json(["--resume", "1"], tmp_path)
    s = doc["session"]
    assert s["status"] == "done" and s["id"] == 1 and len(s["trials"]) <= 12
    print(check_ending(s))
    assert len([t for t in s["trials"] if t["state"] in ("complete", "pruned", "control")]) >= 3
    assert not [p for p in os.listdir(tmp_path) if p.startswith("pario-") and p != "pario-scratch"]


def test_a_dry_run_creates_nothing(tmp_path):
    """`--dry-run` made the scratch directory (and removed it) and created the results store; like
    `pario bench --dry-run` it now creates no directory, file or store, and launches nothing."""
    def made():   # the user cache ($XDG_CACHE_HOME = tmp_path/cache) keeps the stack's facts, as pario stack does
        return set(os.listdir(tmp_path)) - {"cache"}

    before = made()
    # a directory whose parent is missing: prepare() refused it; a dry run makes nothing there, so it
    # neither needs nor checks it (the run itself does)
    run = pario(["-a", "mpiio", "-c", *SMALL, "--dry-run", "--dir", str(tmp_path / "no" / "scr")], tmp_path,
                command="tune")
    assert run.returncode == 0, run.stderr
    assert "guess 1:" in run.stdout and "budget30trials(atrialisoneconfiguration" in "".join(run.stdout.split())
    assert made() == before, sorted(made() - before)
    run = pario(["-a", "mpiio", "-c", *SMALL, "--dry-run"], tmp_path, command="tune")   # ./pario-scratch
    assert run.returncode == 0 and not (tmp_path / "pario-scratch").exists() and not (tmp_path / "runs.db").exists()
    run = pario(["--resume", "1", "--dry-run"], tmp_path, command="tune")
    assert run.returncode == 2 and "--dry-run" in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert not (tmp_path / "runs.db").exists()


def test_bad_input_is_one_line(tmp_path):
    for args, text in ((["-a", "mpiio", *SMALL, "--space", "cb_node"], "did you mean cb_nodes"),
                       (["-n", "2", "-w"], "give the one case to tune"),
                       (["-a", "mpiio", *SMALL, "--time", "soon"], "--time 'soon'"),
                       (["--resume", "9"], "no tuning session 9"),
                       # every knob named is inert here: it ran the default twice and named it the winner
                       (["-a", "mpiio", "-c", *SMALL, "--space", "romio_cb_write", "--io", "ompio"],
                        "nothing to search: every knob of --space is left out for this case on this stack "
                        "(romio_cb_write: ompio ignores"),
                       # the case flags were ignored: the session's own case ran, as if they were not given
                       (["--resume", "1", "-a", "posix", "-t", "64k", "--space", "odirect"],
                        "--resume 1 goes on with the session's own case, ranks and space; it does not take -a, -t, "
                        "--space"),
                       # it said "no such case in None"
                       (["-a", "mpiio", *SMALL, "--case", "x"], "--case x picks a [[case]] of a job file")):
        run = pario(args, tmp_path, command="tune")
        assert run.returncode == 2 and text in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_the_session_keeps_the_ceiling_it_probed_and_judges_its_figures_by_it(tmp_path):
    """The O_DIRECT probe runs (1 rank: 1 stream, as bench probes), the session stores the ceiling in its
    context and judges each trial's median and the winner's and default's by it (cache? on the live
    lines, Winner.cache); a --resume without a probe keeps the measured ceiling."""
    args = ["-a", "posix", "-t", "64k", "-b", "256k", "-n", "1", "-w", "--space", "odirect"]
    run = pario([*args, "--trials", "5", "--json"], tmp_path, command="tune")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMA)
    s = doc["session"]
    ceiling = s["context"]["ceiling"]
    assert ceiling["write_mib"] > 0 and ceiling["streams"] == 1 and ceiling["source"] == "probe", ceiling
    cached = json.loads((tmp_path / "cache" / "pario" / "ceilings.json").read_text())
    assert [c["write_mib"] for c in cached.values()] == [ceiling["write_mib"]]
    limit = ceiling["write_mib"]
    cache = s["winner"]["cache"]
    assert cache["judged"] and cache["ceiling_mib"] == limit and cache["streams"] == 1
    assert ("default" in cache["above"]) == (s["winner"]["default_median"] > limit)
    assert bool(cache["line"]) == bool(cache["above"])
    lines = [m for m in (re.match(r"^\s*(\d+) ([a-z]+)\s+([\d.]+) .*", line) for line in run.stderr.splitlines()) if m]
    assert lines, run.stderr
    for m in lines:   # O_DIRECT moves no data through the page cache: never cache?
        above = float(m.group(3)) > limit and "odirect=true" not in m.group(0)
        assert ("cache?" in m.group(0)) == above, (m.group(0), limit)
    again = tune_json(["--resume", str(s["id"]), "--trials", "7", "--no-probe"], tmp_path)
    assert again["session"]["context"]["ceiling"] == ceiling and again["session"]["winner"]["cache"]["judged"]
    print(check_ending(s), "; resumed:", check_ending(again["session"]))


def test_an_objective_the_case_lacks_names_the_flag_to_add(tmp_path):
    # `-w --objective read` said "add -w or -r", though -w was given
    for ops, objective, flag in (("-w", "read", "add -r"), ("-r", "write", "add -w")):
        run = pario(["-a", "null", "-c", "-t", "64k", "-b", "256k", "-n", "2", ops, "--objective", objective,
                     "--dry-run"], tmp_path, command="tune")
        assert run.returncode == 2 and run.stderr.strip().endswith(flag), run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
