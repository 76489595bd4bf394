"""`--submit` where no Slurm controller answers: sbatch's own words, said as the controller's (not as
the job's options: it blamed --sbatch-args), exit 3, and nothing left behind (its script stayed in
pario-jobs/). A fake sbatch stands in for a machine with Slurm's client and no cluster."""
import os
import stat

import pytest

from cli_support import pario

FAKE = """#!/bin/sh
echo "sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host" >&2
echo "sbatch: error: fetch_config: DNS SRV lookup failed" >&2
echo "sbatch: error: _establish_config_source: failed to fetch config" >&2
echo "sbatch: fatal: Could not establish a configuration source" >&2
exit 1
"""
REFUSES = """#!/bin/sh
echo "sbatch: error: invalid partition specified: nosuch" >&2
echo "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2
exit 1
"""


def _path_with(tmp_path, text):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "sbatch"
    fake.write_text(text)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("command", [["bench", "-a", "posix", "-w", "-n", "1"],
                                     ["tune", "-a", "mpiio", "-w", "-n", "2", "--trials", "4"]])
def test_no_controller_is_said_and_leaves_nothing(tmp_path, command):
    run = pario([*command[1:], "--no-probe", "--submit"], tmp_path, extra_env=_path_with(tmp_path, FAKE),
                command=command[0])
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 3 and len(lines) == 1, run.stderr
    assert "could not reach a Slurm controller" in lines[0] and "--script-only" in lines[0], lines
    assert "--sbatch-args" not in lines[0]
    assert not (tmp_path / "pario-jobs").exists() or not os.listdir(tmp_path / "pario-jobs")


def test_a_refused_job_names_its_options(tmp_path):
    run = pario(["-a", "posix", "-w", "-n", "1", "--no-probe", "--submit", "--sbatch-args", "-p nosuch"], tmp_path,
                extra_env=_path_with(tmp_path, REFUSES))
    assert run.returncode == 2 and "sbatch refused the job: invalid partition specified" in run.stderr
    assert "--sbatch-args" in run.stderr and not (tmp_path / "pario-jobs").exists()
