"""`pario tune` interrupted by Ctrl-C while a guess batch runs, with the real engine (null backend, 2
ranks), then `--resume`: the guess that had finished its repetitions is taken up with them, not
measured again as a new trial, and the budget, the end line and `--list` count it once.

Deterministic: the engine is a wrapper that sends SIGINT to pario when its third timed launch
starts (the first control, guess 1, then guess 2 of the first batch), so pario is always inside
that launch when the interrupt comes. pario starts with SIGINT's default action: a background job
(`make test &`, nohup, a CI runner) inherits SIGINT ignored, and Python keeps an ignored SIGINT, so
the Ctrl-C would be lost and the session would run to its end."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, SRC, pario
from pario.store import Store
from tune_support import check_ending

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")]
CASE = ["-a", "null", "-c", "-t", "64k", "-b", "256k", "-n", "2", "-w", "--no-probe", "--trials", "10"]
CUT = 3   # the timed launch that is interrupted

WRAPPER = """#!/bin/sh
# rank 0 counts the timed launches (the spec file comes first); the CUT-th sends Ctrl-C to pario
case "$1" in
  *.json)
    if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" = 0 ]; then
      echo "$1" >> %(count)s
      if [ "$(wc -l < %(count)s)" -eq %(cut)d ]; then kill -INT "$(cat %(pid)s)"; fi
    fi;;
esac
exec %(engine)s "$@"
"""


def _default_sigint():
    """In the child before sh: an ignored SIGINT survives exec (sh cannot even trap it back)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_a_guess_batch_then_resume_takes_the_guess_up_and_charges_it_once(tmp_path):
    wrapper, count, pid = tmp_path / "engine.sh", tmp_path / "launches.txt", tmp_path / "pario.pid"
    wrapper.write_text(WRAPPER % {"count": shlex.quote(str(count)), "cut": CUT, "pid": shlex.quote(str(pid)),
                                  "engine": shlex.quote(ENGINE)})
    wrapper.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PARIO_ENGINE=str(wrapper), COLUMNS="200")
    env.pop("PARIO_FAULT", None)
    # the shell writes its pid, then becomes pario: the pid is known before pario starts
    command = "echo $$ > " + shlex.quote(str(pid)) + "; exec " + shlex.join(
        [sys.executable, "-m", "pario", "tune", *CASE])
    first = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
                           preexec_fn=_default_sigint)
    assert first.returncode == 130, first.stdout + first.stderr
    assert "--resume 1" in first.stderr
    store = Store(str(tmp_path / "runs.db"), existing=True)
    before = store.get_session(1)["doc"]
    states = [(t["number"], t["state"], len(t["rates"])) for t in before["trials"]]
    assert states[:3] == [(0, "control", 3), (1, "interrupted", 3), (2, "interrupted", 0)], states
    guess = before["trials"][1]

    resumed = pario(["--resume", "1"], tmp_path, command="tune", timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    doc = Store(str(tmp_path / "runs.db"), existing=True).get_session(1)["doc"]
    trials = doc["trials"]
    taken = trials[1]
    # taken up: the repetitions and the run it had, in the same trial, judged with its batch
    assert taken["rates"][:3] == guess["rates"] and taken["runs"][:1] == guess["runs"], taken
    assert taken["state"] == "complete", taken
    # not measured again as a new trial, and no trial left behind as interrupted
    same = [t["number"] for t in trials if t["settings"] == guess["settings"] and t["state"] != "confirm"]
    assert same == [1], [(t["number"], t["state"], t["settings"]) for t in trials]
    assert not [t for t in trials if t["state"] in ("interrupted", "running")], trials
    # the budget counts each trial once: the end line and --list say as many trials as there are records
    flat = " ".join(resumed.stdout.split())
    spent = re.search(r"Spent (\d+) trials of the 10 budgeted .* and (\d+) counted repetitions in all", flat)
    assert spent, resumed.stdout
    assert int(spent.group(1)) == len(trials) <= 10
    assert int(spent.group(2)) == sum(len(t["rates"]) for t in trials)
    print(check_ending(doc))   # the resumed session ends by the rules, from what it measured before and after
    listed = json.loads(pario(["--list", "--json"], tmp_path, command="tune").stdout)["sessions"]
    assert f", {len(trials)} trials" in listed[0]["headline"], listed[0]["headline"]
