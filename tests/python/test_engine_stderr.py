"""A run whose engine stops before it can write its result (rank 0 on a node that does not see
pario's directory): the final line carries the reason the engine printed on the launcher's stderr,
not only the launcher's exit code. pario keeps the launcher's stderr (run/tee.py) under srun,
mpirun and MPICH's mpiexec alike; a launcher of our own runs the real engine under the real one,
on a spec and a result path that do not exist for it."""
import os
import shutil

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, pario
from mpi_flavours import FLAVOURS
from pario.run.bench import engine_said

# srun --mpi=list as Slurm 22.05 prints it; a launch runs the ranks under mpirun instead, the timed
# one (not the settings launch) with the spec and the result where rank 0 cannot reach them.
FAKE_SRUN = """#!/bin/sh
if [ "$1" = "--mpi=list" ]; then printf 'MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n\\tpmix\\n'; exit 0; fi
n=1
while [ $# -gt 0 ]; do case "$1" in -n) n=$2; shift 2;; -*) shift;; *) break;; esac; done
engine=$1; shift
if [ "$1" != "--settings" ]; then set -- /nonexistent/pario/spec.json /nonexistent/pario/result.json; fi
exec mpirun --oversubscribe --allow-run-as-root -n "$n" "$engine" "$@"
"""


def test_the_engines_own_line_is_found_in_the_launchers_stderr():
    lines = ["srun: error: node2: task 0: Exited with exit code 2\n",
             "pario-engine: cannot read spec /tmp/x/spec.json on node2, where rank 0 runs: run pario from ...\n",
             "some MPI noise\n"]
    assert engine_said(lines).startswith("cannot read spec /tmp/x/spec.json on node2, where rank 0 runs")
    assert engine_said(["0: pario-engine: out of memory\n"]) == "out of memory"   # srun --label
    assert engine_said(["srun: error: Unable to create step\n", "a rank said pario-engine: x"]) is None


@pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")
def test_a_spec_rank_0_cannot_read_is_the_final_line(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    srun = bindir / "srun"
    srun.write_text(FAKE_SRUN)
    srun.chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    run = pario(["-n", "2", "-t", "64k", "-b", "64k", "--no-probe", "--launcher", "srun",
                 "--dir", str(tmp_path / "scratch")], tmp_path, extra_env=env, timeout=180)
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode != 0, run.stderr
    assert last.startswith("pario: error:"), run.stderr
    assert "the engine stopped: cannot read spec /nonexistent/pario/spec.json on " in last, run.stderr
    assert "where rank 0 runs: run pario from a directory every node of the job sees" in last, run.stderr
    assert "no rank wrote a status file" not in last, run.stderr


# The launcher pario runs (mpirun, mpiexec.mpich) replaced by one that runs the real one, the timed
# launch (not --version, not the settings launch) on a spec and a result rank 0 cannot reach.
FAKE_MPIRUN = """#!/bin/bash
case " $* " in *" --settings "*|*" --version "*|*" -version "*) exec {real} "$@";; esac
args=()
for a in "$@"; do
    case $a in *.json) args+=("/nonexistent/pario/${{a##*/}}");; *) args+=("$a");; esac
done
exec {real} "${{args[@]}}"
"""


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_engines_reason_is_the_final_line_under_mpirun_too(tmp_path, flavour):
    real = shutil.which(flavour["mpirun"])
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / flavour["mpirun"]
    fake.write_text(FAKE_MPIRUN.format(real=real))
    fake.chmod(0o755)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "PARIO_ENGINE": flavour["engine"]}
    run = pario(["-n", "2", "-t", "64k", "-b", "64k", "--no-probe", "--mpirun", flavour["mpirun"],
                 "--dir", str(tmp_path / "scratch")], tmp_path, extra_env=env, timeout=180)
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode != 0 and last.startswith("pario: error:"), run.stderr
    assert "the engine stopped: cannot read spec /nonexistent/pario/" in last, run.stderr
    assert "where rank 0 runs: run pario from a directory every node of the job sees" in last, run.stderr
    assert "no rank wrote a status file" not in last, run.stderr


def test_only_open_mpis_lost_help_message_line_is_hidden_and_every_line_kept():
    from pario.run.tee import StderrTee

    noise = ("[vm:24659] [[3245,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c "
             "at line 501\n")
    said = ["pario-engine: a file was left open; the job ends with MPI_Abort\n", noise,
            "[vm:24659] [[3245,0],0] ORTE_ERROR_LOG: Not found in file ../../orte/runtime/x.c at line 7\n",
            "a rank said: " + noise]
    shown: list[str] = []
    tee = StderrTee(shown.append).start()
    assert tee.file is not None
    tee.file.writelines(said)
    tee.close()
    assert tee.lines == said and shown == [said[0], said[2], said[3]]
