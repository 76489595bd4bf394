"""`pario bench` with IOR's -D, -Y, -u, -E and -T end to end: what the tables say, the directories
-u makes and removes, the files -E finds and never removes."""
import os

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, bench_json, pario
from engine_support import prefix_for

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

SMALL = ["-n", "2", "-t", "4k", "-b", "64k", "--no-probe"]


def test_deadline_note_says_how_many_bytes(tmp_path):
    run = pario([*SMALL, "-b", "256m", "-w", "-i", "1", "-Y", "-D", "0.02", "--dir", str(tmp_path / "s")],
                tmp_path)
    assert run.returncode == 0, run.stderr
    out = " ".join(run.stdout.split())
    assert "stonewalled after 0.02s" in out and f"of {2 * (256 << 20)} bytes" in out, run.stdout
    assert "-Y:" in out and "sync calls" in out


def test_max_time_note_says_how_many_repetitions_ran(tmp_path):
    run, doc = bench_json([*SMALL, "-b", "8m", "-w", "-Y", "-i", "5", "-T", "0.00002",
                           "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr
    (row,) = doc["summary"]
    assert "max-time" in row["flags"] and "partial" not in row["flags"]
    assert any("1 of 5 repetitions ran (max time reached)" in n for n in row["ior_notes"]), row["ior_notes"]


def test_unique_dir_makes_and_removes_rank_directories(tmp_path):
    scratch = tmp_path / "s"
    scratch.mkdir()
    (scratch / "1").mkdir()  # there before: used, never removed
    (scratch / "1" / "mine").write_text("user data")
    run, doc = bench_json([*SMALL, "-F", "-u", "-w", "-r", "-i", "1", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr
    assert doc["result"]["cases"][0]["spec"]["unique_dir"] is True
    assert sorted(os.listdir(scratch)) == ["1"] and os.listdir(scratch / "1") == ["mine"]
    # with -k the files stay in DIR/<rank>/, so do the directories
    run, _ = bench_json([*SMALL, "-F", "-u", "-w", "-k", "-i", "1", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr
    assert sorted(os.listdir(scratch)) == ["0", "1"] and len(os.listdir(scratch / "0")) == 1


@pytest.mark.parametrize("backend", ["posix", "mpiio"])
def test_use_existing_with_o_path_keeps_the_file_and_its_inode(tmp_path, backend):
    name = prefix_for(tmp_path)  # OMPIO names a semaphore after each file's base name
    target = tmp_path / "s" / name
    target.parent.mkdir()
    # a first run with -E and -k leaves PATH.0.0 (no run id in the name: -E must find it again)
    run, _ = bench_json([*SMALL, "-a", backend, "-w", "-i", "1", "-E", "-k", "-o", str(target)], tmp_path)
    assert run.returncode == 0, run.stderr
    path = tmp_path / "s" / f"{name}.0.0"
    path.write_bytes(path.read_bytes() + b"tail" * 1024)  # a tail the next run must not truncate
    inode, size = path.stat().st_ino, path.stat().st_size
    # without -k: pario never removes a file that was there before the run
    run, doc = bench_json([*SMALL, "-a", backend, "-w", "-r", "-i", "2", "-E", "-o", str(target)], tmp_path)
    assert run.returncode == 0, run.stderr
    assert doc["summary"][0]["read"]["n"] == 2 and doc["summary"][0]["verify"]["errors"] == 0
    assert path.stat().st_ino == inode and path.stat().st_size == size
    assert os.listdir(tmp_path / "s") == [path.name]


def test_use_existing_removes_what_it_created(tmp_path):
    target = tmp_path / "s" / prefix_for(tmp_path)
    target.parent.mkdir()
    run, _ = bench_json([*SMALL, "-w", "-i", "1", "-E", "-o", str(target)], tmp_path)
    assert run.returncode == 0, run.stderr
    assert os.listdir(tmp_path / "s") == []


def test_reuse_reads_kept_rank_directories(tmp_path):
    scratch = tmp_path / "s"
    run, doc = bench_json([*SMALL, "-F", "-u", "-w", "-k", "-i", "1", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr
    run, again = bench_json(["--reuse", str(doc["run"]), "-r", "-W", "-i", "1"], tmp_path)
    assert run.returncode == 0, run.stderr
    (row,) = again["summary"]
    assert row["verify"]["errors"] == 0 and row["verify"]["checked_bytes"] == 2 * 2 * 64 * 1024


def test_reuse_of_a_stonewalled_write_is_refused_in_one_line(tmp_path):
    run, doc = bench_json([*SMALL, "-b", "256m", "-w", "-k", "-i", "1", "-Y", "-D", "0.02",
                           "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr
    assert doc["result"]["cases"][0]["phases"][0]["bytes"] < doc["result"]["cases"][0]["total_bytes"]
    run = pario(["--reuse", str(doc["run"]), "-r"], tmp_path)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "was stonewalled (-D)" in run.stderr, run.stderr
