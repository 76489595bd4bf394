"""Timed reads are compared with what was written by default (outside the timed calls);
`--no-read-check` reads as IOR's -r does, without the comparison, and says so where it matters:
no "verified" note, no verify record for the timed reads, and `results compare` names it."""
import json
import shutil
import subprocess
import sys

import pytest

from engine_support import ENGINE, run_engine

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(not ENGINE or not shutil.which("mpirun"),
                                                  reason="pario-engine or mpirun not found (run make setup)")]


def _case(**kw):
    c = {"name": "c", "backend": "posix", "strategy": "fpp", "pattern": "segmented",
         "xfer": 4096, "block": 65536, "segments": 1, "ops": ["write", "read"], "reps": 1}
    return {**c, **kw}


def test_engine_checks_timed_reads_unless_told_not_to(tmp_path):
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    _, on = run_engine(tmp_path / "on", [_case()], n=2)
    _, off = run_engine(tmp_path / "off", [_case(read_check=False)], n=2)
    (read_on,) = [p for p in on["cases"][0]["phases"] if p["op"] == "read"]
    (read_off,) = [p for p in off["cases"][0]["phases"] if p["op"] == "read"]
    assert read_on["verify"]["checked_bytes"] == on["cases"][0]["total_bytes"]
    assert "verify" not in read_off
    assert read_off["bytes"] == read_on["bytes"] == 2 * 65536


def _pario(tmp_path, *args, case=("-t", "4k", "-b", "64k")):
    cmd = [sys.executable, "-m", "pario", "bench", "-n", "2", *case, "--no-probe",
           "--dir", str(tmp_path), "--db", str(tmp_path / "runs.db"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_bench_flag_and_its_contradiction(tmp_path):
    bad = _pario(tmp_path, "-R", "--no-read-check", "-w")
    assert bad.returncode == 2 and "contradicts --no-read-check" in bad.stderr
    assert "Traceback" not in bad.stderr
    ok = _pario(tmp_path, "-w", "-r", "--no-read-check", "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    (row,) = doc["summary"]
    assert row["verify"] is None  # nothing was checked, so nothing is called verified
    checked = _pario(tmp_path, "-w", "-r", "--json")
    assert json.loads(checked.stdout)["summary"][0]["verify"]["checked_bytes"] > 0
    cmp = subprocess.run([sys.executable, "-m", "pario", "results", "compare", "1", "2", "--db",
                          str(tmp_path / "runs.db")], capture_output=True, text=True, timeout=120)
    assert cmp.returncode == 0, cmp.stderr
    assert "timed reads checked no vs yes" in " ".join(cmp.stdout.split())


def test_reuse_reads_unchecked_when_asked(tmp_path):
    wrote = _pario(tmp_path, "-w", "-k", "--json")
    assert wrote.returncode == 0, wrote.stderr
    run = json.loads(wrote.stdout)["run"]
    plain = _pario(tmp_path, "--reuse", str(run), "-r", "--no-read-check", "--json", case=())
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["summary"][0]["verify"] is None
    checked = _pario(tmp_path, "--reuse", str(run), "-r", "--json", case=())
    assert json.loads(checked.stdout)["summary"][0]["verify"]["checked_bytes"] > 0
