"""`pario bench --dry-run` (issue 15): the launcher command line and the engine's spec, with
nothing launched, no file or directory created and no store opened."""
from __future__ import annotations

import json
import os

import jsonschema
import pytest

from cli_support import ENGINE, ROOT, pario

SCHEMAS = ROOT / "schemas"

pytestmark = pytest.mark.skipif(not ENGINE, reason="the engine is not built (make setup)")

# A launcher that answers `--version` as Open MPI does and logs every other call: the dry run
# may ask the version (to build the command line), never launch.
FAKE = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "mpirun (Open MPI) 4.1.4"; exit 0; fi
echo "$@" >> "{log}"
exit 1
"""


@pytest.fixture
def fake_mpirun(tmp_path):
    path = tmp_path / "bin" / "mpirun"
    path.parent.mkdir()
    path.write_text(FAKE.format(log=tmp_path / "launched.log"))
    path.chmod(0o755)
    return path


def _created(tmp_path):
    return sorted(p for p in os.listdir(tmp_path) if p != "bin")


@pytest.mark.parametrize("args", [["-a", "mpiio", "-c", "-s", "4", "-t", "1m", "-b", "2m"], []],
                         ids=["one-case", "suite"])
def test_dry_run_runs_nothing(tmp_path, fake_mpirun, args):
    scratch = tmp_path / "scratch"
    run = pario([*args, "-n", "2", "--dir", str(scratch), "--mpirun", str(fake_mpirun), "--dry-run", "--json"],
                tmp_path)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, json.loads((SCHEMAS / "bench-dry-run.schema.json").read_text()))
    jsonschema.validate(doc["spec"], json.loads((SCHEMAS / "spec.schema.json").read_text()))
    assert doc["schema"] == "pario.bench-dry-run/1"
    argv = doc["launcher_argv"]
    assert argv[0] == str(fake_mpirun) and argv[1:3] == ["-n", "2"] and argv[-2:] == ["SPEC.json", "RESULT.json"]
    assert doc["spec"]["schema"] == "pario.spec/1" and doc["spec"]["dir"] == str(scratch) and doc["spec"]["cases"]
    if args:
        case = doc["spec"]["cases"][0]
        assert (case["backend"], case["collective"], case["segments"], case["xfer"]) == ("mpiio", True, 4, 1 << 20)
    # nothing launched, no scratch directory, no store, no cache of a device probe
    assert not (tmp_path / "launched.log").exists()
    assert _created(tmp_path) == [], _created(tmp_path)


def test_dry_run_text_shows_command_and_spec(tmp_path, fake_mpirun):
    run = pario(["-a", "posix", "-F", "-n", "2", "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                 "--dry-run"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert "dry run: nothing launched" in run.stdout
    assert f"{fake_mpirun} -n 2" in run.stdout and '"strategy": "fpp"' in run.stdout
    assert not (tmp_path / "launched.log").exists() and _created(tmp_path) == []


def test_more_ranks_than_cores_is_said_once(tmp_path, fake_mpirun):
    ranks = len(os.sched_getaffinity(0)) + 1
    run = pario(["-a", "posix", "-n", str(ranks), "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                 "--dry-run"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("oversubscribed") == 1 and "CPU contention" in run.stderr
    fits = pario(["-a", "posix", "-n", "1", "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                  "--dry-run"], tmp_path)
    assert "oversubscribed" not in fits.stderr


def test_flags_that_make_job_cases_identical_are_said(tmp_path, fake_mpirun):
    job = ROOT / "examples" / "metadata-lrz-dir-size.toml"
    run = pario(["--config", str(job), "--files-per-dir", "50", "-n", "1", "--dir", str(tmp_path / "s"),
                 "--mpirun", str(fake_mpirun), "--dry-run"], tmp_path)
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "--files-per-dir overriding the job file, these cases are identical" in text
    assert "dir-500, dir-1000, dir-2000, dir-5000" in text
    plain = pario(["--config", str(job), "-n", "1", "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                   "--dry-run"], tmp_path)
    assert "identical" not in plain.stdout


def test_o_is_iors_test_file(tmp_path, fake_mpirun):
    # IOR: `-o=testFile  testFile -- full name for test` (ior -h); pario took -o as a directory
    target = tmp_path / "new" / "testfile"
    run = pario(["-a", "posix", "-F", "-n", "2", "-o", str(target), "--mpirun", str(fake_mpirun), "--dry-run",
                 "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    spec = json.loads(run.stdout)["spec"]
    assert spec["dir"] == str(target.parent) and spec["prefix"].startswith("testfile.")
    assert not (tmp_path / "new").exists()
    for bad, message in ((["-o", str(tmp_path)], "is a directory; -o names a test file"),
                         (["-o", str(target), "--dir", str(tmp_path)], "give one")):
        r = pario(["-a", "posix", "-n", "1", *bad, "--mpirun", str(fake_mpirun), "--dry-run"], tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


# IOR 4.0.0's -D -Y -u -E -T and -O stoneWallingWearOut=1 (`ior -h`) as the engine's case keys
IOR_KEYS = [(["-D", "0.5", "-w"], {"deadline_us": 500000}), (["-Y"], {"fsync_per_write": True}),
            (["-u", "-F"], {"unique_dir": True}), (["-E"], {"use_existing": True}),
            (["-T", "2"], {"max_time_ms": 120000}),
            (["-D", "3", "-O", "stoneWallingWearOut=1"], {"deadline_us": 3000000, "wearout": True})]


@pytest.mark.parametrize("flags, keys", IOR_KEYS)
def test_ior_flags_reach_the_engine_spec(tmp_path, fake_mpirun, flags, keys):
    run = pario(["-a", "posix", "-n", "1", *flags, "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                 "--dry-run", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    (case,) = json.loads(run.stdout)["spec"]["cases"]
    assert {k: case.get(k) for k in keys} == keys
    assert not (tmp_path / "s").exists()


# Where IOR's flags cannot apply, and the word each one line carries
IOR_REFUSED = [(["-a", "hdf5", "-Y"], "applies to -a posix and -a mpiio"), (["-u"], "add -F"),
               (["-a", "pnetcdf", "-E"], "drop -E"), (["-D", "1"], "stoneWallingWearOut=1"),
               (["-O", "stoneWallingWearOut=1"], "goes with -D"), (["-D", "1", "--aggregate"], "aggregate"),
               (["-O", "summaryFormat=CSV"], "results export"), (["-O", "summaryFile=x"], "summaryFile"),
               (["-O", "stoneWallingWearOut=2"], "0 or 1"), (["-D", "x"], "-D"), (["-T", "-1"], "-T")]


@pytest.mark.parametrize("flags, word", IOR_REFUSED)
def test_ior_flags_that_cannot_apply_say_so_in_one_line(tmp_path, fake_mpirun, flags, word):
    run = pario(["-n", "1", *flags, "--dir", str(tmp_path / "s"), "--mpirun", str(fake_mpirun),
                 "--dry-run"], tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("pario: error: ") and run.stderr.count("\n") == 1 and word in run.stderr, run.stderr


def test_summary_format_json_is_json(tmp_path, fake_mpirun):
    run = pario(["-a", "posix", "-n", "1", "-O", "summaryFormat=JSON", "--dir", str(tmp_path / "s"),
                 "--mpirun", str(fake_mpirun), "--dry-run"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["schema"] == "pario.bench-dry-run/1"


def test_preset_dry_run_runs_nothing(tmp_path, fake_mpirun):
    """--preset NAME --dry-run: one launcher line and one spec with every case the preset runs here."""
    scratch = tmp_path / "scratch"
    base = ["--preset", "kaust-strategies", "-n", "2", "--scale", "0.01", "--mpirun", str(fake_mpirun), "--dry-run"]
    run = pario([*base, "--dir", str(scratch), "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, json.loads((SCHEMAS / "bench-dry-run.schema.json").read_text()))
    jsonschema.validate(doc["spec"], json.loads((SCHEMAS / "spec.schema.json").read_text()))
    names = [c["name"] for c in doc["spec"]["cases"]]
    assert len(names) >= 3 and "serial" in names, names
    assert doc["launcher_argv"][0] == str(fake_mpirun) and "preset kaust-strategies" in doc["note"]
    text = pario([*base, "--dir", str(scratch)], tmp_path)
    assert text.returncode == 0, text.stderr
    assert f"{fake_mpirun} -n 2" in text.stdout and '"name": "serial"' in text.stdout
    # without --scale the size comes from a nominal rate: the device probe would write a file
    sized = pario(["--preset", "kaust-strategies", "-n", "2", "--mpirun", str(fake_mpirun), "--dry-run",
                   "--dir", str(scratch)], tmp_path)
    assert sized.returncode == 0 and "does not probe" in sized.stdout, sized.stderr
    assert not (tmp_path / "launched.log").exists()
    assert _created(tmp_path) == [], _created(tmp_path)


def test_preset_takes_o_as_iors_test_file(tmp_path, fake_mpirun):
    target = tmp_path / "new" / "testfile"
    run = pario(["--preset", "kaust-strategies", "-n", "2", "--scale", "0.01", "-o", str(target), "--mpirun",
                 str(fake_mpirun), "--dry-run", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    spec = json.loads(run.stdout)["spec"]
    assert spec["dir"] == str(target.parent) and spec["prefix"].startswith("testfile.")
    assert not (tmp_path / "new").exists()
