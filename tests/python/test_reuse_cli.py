"""`pario bench --reuse RUN`: reading and verifying the files an earlier run kept, cold reads
after their pages were evicted, a corrupted byte found, and the kept files never touched."""
import hashlib
import os

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, bench_json, pario
from pario.platform import pagecache

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

WRITE = ["-n", "2", "-t", "64k", "-b", "1m", "-s", "2", "-w", "-k", "-i", "1"]


def _kept(tmp_path, *extra):
    scratch = tmp_path / "kept"
    run, doc = bench_json([*WRITE, *extra, "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr
    files = sorted(scratch.iterdir())
    assert files
    return doc["run"], files


def _state(files):
    return [(f.name, f.stat().st_size, f.stat().st_mtime_ns, hashlib.sha256(f.read_bytes()).hexdigest())
            for f in files]


def _evict(files):
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


@pytest.mark.parametrize("extra", [["-a", "mpiio", "-c"], ["-a", "posix", "-F"]])
def test_reuse_reads_and_verifies_the_kept_files_and_leaves_them(extra, tmp_path):
    run_id, files = _kept(tmp_path, *extra)
    before = _state(files)
    run, doc = bench_json(["--reuse", str(run_id), "-r", "-W", "-i", "2"], tmp_path)
    assert run.returncode == 0, run.stderr
    (row,) = doc["summary"]
    assert row["read"]["n"] == 2 and row["verify"]["errors"] == 0
    # every byte of every read and verify phase: 2 ops x 2 reps x 2 ranks x 2 segments x 1 MiB
    assert row["verify"]["checked_bytes"] == 2 * 2 * 2 * 2 * (1 << 20)
    (case,) = doc["result"]["cases"]
    assert case["spec"]["reuse"] is True and [p["op"] for p in case["phases"]] == ["read", "verify"] * 2
    # measured before each read: the second repetition reads what the first cached
    assert "cached" in row["flags"] and "warm" not in row["flags"] and row["read"]["resident"]["samples"][1] > 0.9
    assert _state(files) == before  # not written, truncated or removed
    assert doc["dir"] == str(files[0].parent)


def test_reuse_after_eviction_reads_cold(tmp_path):
    run_id, files = _kept(tmp_path, "-a", "posix", "-F")
    _evict(files)
    if pagecache.resident_fraction([str(f) for f in files]) > 0.05:
        pytest.skip("this file system keeps its pages resident (tmpfs?): nothing to evict")
    run, doc = bench_json(["--reuse", str(run_id), "-r", "-i", "1"], tmp_path)
    assert run.returncode == 0, run.stderr
    assert "page cache before the run" in run.stderr and "0% of them" in run.stderr
    (row,) = doc["summary"]
    assert "warm" not in row["flags"]


def test_reuse_finds_one_corrupted_byte(tmp_path):
    run_id, (path,) = _kept(tmp_path, "-a", "posix")
    offset = 1_500_000 - 1_500_000 % 8  # rank 0's region of segment 0 holds bytes [0, 1 MiB); this is rank 1's
    with open(path, "r+b") as fh:
        fh.seek(offset)
        old = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([old[0] ^ 0xFF]))
    run, doc = bench_json(["--reuse", str(run_id), "-W", "-i", "1"], tmp_path)
    assert run.returncode == 1, run.stderr
    assert "verify rep 0 found 1 bad 8-byte word(s) of 524288 checked" in run.stderr
    (row,) = doc["summary"]
    assert row["verify"]["errors"] == 1 and "verify-errors" in row["flags"]
    first = row["verify"]["first_error"]
    assert (first["offset"], first["rank"]) == (offset, 1)
    assert path.exists()
    # the stored run is not "complete": its data failed the check
    assert doc["status"] == "verify failed"
    listed = pario(["--json"], tmp_path, command="results")
    import json
    runs = {r["id"]: r for r in json.loads(listed.stdout)["runs"]}
    assert runs[doc["run"]]["status"] == "verify failed" and runs[run_id]["status"] == "complete"
    shown = pario(["show", str(doc["run"])], tmp_path, command="results")
    assert "verify failed" in shown.stdout.splitlines()[0]


def _flip(path, offset):
    with open(path, "r+b") as fh:
        fh.seek(offset)
        old = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([old[0] ^ 0x01]))


# the kept file: 2 ranks x 2 segments x 1 MiB, 64 KiB per call; each rank's ring holds 4 calls
@pytest.mark.parametrize("offset", [0, 8 + 3, (1 << 20) + 65536 * 5 + 7, (4 << 20) - 1])
def test_a_timed_read_finds_a_flipped_byte_anywhere(tmp_path, offset):
    """-r checks every byte a timed read returns (it checked the last buffer window of each rank:
    9 of 12 flipped bytes went unseen with 1 MiB per rank), and each phase counts its own words."""
    run_id, (path,) = _kept(tmp_path, "-a", "posix")
    _flip(path, offset)
    run, doc = bench_json(["--reuse", str(run_id), "-r", "-W", "-i", "1"], tmp_path)
    assert run.returncode == 1, run.stderr
    (row,) = doc["summary"]
    found = {p["op"]: (p["errors"], p["first_error"]["offset"]) for p in row["verify"]["by_phase"]}
    assert found == {"read": (1, offset - offset % 8), "verify": (1, offset - offset % 8)}, found
    assert row["verify"]["errors"] == 1, "a read and a verify of the same words are not added together"
    assert "read rep 0 found 1 bad 8-byte word(s) of 524288 checked" in run.stderr
    (read,) = [p for p in doc["result"]["cases"][0]["phases"] if p["op"] == "read"]
    assert read["verify"]["checked_bytes"] == 4 << 20 and read["verify"]["check_s"] >= 0


def test_a_failed_reuse_run_removes_nothing(tmp_path):
    run_id, (path,) = _kept(tmp_path, "-a", "mpiio")
    os.truncate(path, path.stat().st_size // 2)  # reads past the end come back short
    before = _state([path])
    run, _ = bench_json(["--reuse", str(run_id), "-r", "-i", "1"], tmp_path)
    assert run.returncode == 1
    assert "transferred" in run.stderr or "short" in run.stderr.lower(), run.stderr
    assert _state([path]) == before and sorted(path.parent.iterdir()) == [path]


def _rejected(args, match, tmp_path):
    run = pario([*args, "--no-probe"], tmp_path, timeout=60)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pario: error: ") and match in lines[0], run.stderr


def test_reuse_rejections(tmp_path):
    run_id, files = _kept(tmp_path, "-a", "posix")
    _rejected(["--reuse", str(run_id), "-w"], "drop -w", tmp_path)
    _rejected(["--reuse", str(run_id), "-t", "4k"], "drop --transfer", tmp_path)
    _rejected(["--reuse", str(run_id), "--buffer", "4m"], "drop --buffer", tmp_path)
    _rejected(["--reuse", str(run_id), "-n", "3"], "read them with -n 2", tmp_path)
    _rejected(["--reuse", "999"], "no run 999", tmp_path)
    unkept, doc = bench_json(["-n", "1", "-t", "64k", "-b", "256k", "-w", "-i", "1", "--dir", str(tmp_path / "u")],
                             tmp_path)
    assert unkept.returncode == 0, unkept.stderr
    _rejected(["--reuse", str(doc["run"]), "-n", "1"], "kept no files", tmp_path)
    files[0].unlink()  # the test's own kept file
    _rejected(["--reuse", str(run_id)], "are gone", tmp_path)
