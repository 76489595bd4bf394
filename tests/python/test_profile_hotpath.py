"""The per-call path of libpario-preload.so: histogram edges, the exact size table and its
last-match shortcut, both clocks, and a wrapper whose real symbol is missing."""
from __future__ import annotations

import pytest

from profile_support import compile_c, files, parts, preload_lib, run_profiled

# tests/preload/sizes.c writes these sizes in this order to edges.dat, then 3 more of 100 B.
SIZES = [0, 1, 99, 100, 101, 1023, 1024, 1025, 10239, 10240, 102399, 102400,
         1048575, 1048576, 1048577, 4194303, 4194304, 10485760]
EDGES = [("0_100", 100), ("100_1K", 1024), ("1K_10K", 10240), ("10K_100K", 102400), ("100K_1M", 1 << 20),
         ("1M_4M", 4 << 20), ("4M_10M", 10 * (1 << 20)), ("10M_100M", 100 * (1 << 20)),
         ("100M_1G", 1 << 30), ("1G_PLUS", None)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def _run(lib, tmp_path, name, env=None):
    exe = compile_c(tmp_path, name, "-O2")
    work, logs = tmp_path / "w", tmp_path / "log"
    work.mkdir(exist_ok=True)
    proc = run_profiled(lib, [exe, work], logs, env)
    return work, logs, proc


def _records(logs):
    """path -> raw posix record of the single process log (sizes table as written)."""
    (log,) = parts(logs)
    return {r["path"]: r for r in log["modules"]["posix"]["records"]}


def _bucket(size):
    for name, hi in EDGES:
        if hi is None or size < hi:
            return name


def test_histogram_edges_and_exact_size_table(lib, tmp_path):
    work, logs, proc = _run(lib, tmp_path, "sizes")
    assert proc.returncode == 0, proc.stderr.decode()
    sizes = SIZES + [100] * 3
    c = files(logs)[("posix", str(work / "edges.dat"))]["counters"]
    hist = {name: 0 for name, _ in EDGES}
    for s in sizes:
        hist[_bucket(s)] += 1
    assert {f"POSIX_SIZE_WRITE_{k}": c[f"POSIX_SIZE_WRITE_{k}"] for k in hist} == \
        {f"POSIX_SIZE_WRITE_{k}": v for k, v in hist.items()}
    assert c["POSIX_WRITES"] == len(sizes) and c["POSIX_BYTES_WRITTEN"] == sum(sizes)
    # every write starts where the previous one ended
    assert c["POSIX_CONSEC_WRITES"] == len(sizes) - 1 == c["POSIX_SEQ_WRITES"]
    assert c["POSIX_MAX_BYTE_WRITTEN"] == sum(sizes) - 1
    recs = _records(logs)
    # 16 distinct sizes fit the table in first-seen order; the 17th and 18th are counted as other
    edges = recs[str(work / "edges.dat")]
    table = [[s, 1] for s in SIZES[:16]]
    table[3][1] += 3  # the three extra 100 B writes find their slot again
    assert edges["sizes"] == table and edges["sizes_other"] == 2
    alt = recs[str(work / "alt.dat")]
    assert alt["sizes"] == [[5, 3], [6, 2], [0, 1]] and alt["sizes_other"] == 0
    # strides between starts: +5, +6, +5, +6, +5
    assert alt["strides"] == [[5, 3], [6, 2]]
    zero = recs[str(work / "zero.dat")]
    assert zero["sizes"] == [[0, 2], [3, 1]] and zero["strides"] == [[0, 2]]


@pytest.mark.parametrize("clock", ["tsc", "monotonic"])
def test_times_are_honest_with_either_clock(lib, tmp_path, clock):
    """PARIO_PROFILE_TEST_NOTSC=1 forces the CLOCK_MONOTONIC fallback used where the TSC is not
    invariant; with either clock the times of the calls lie inside the process's life."""
    env = {"PARIO_PROFILE_TEST_NOTSC": "1"} if clock == "monotonic" else {}
    work, logs, proc = _run(lib, tmp_path, "posix_seq", env)
    assert proc.returncode == 0, proc.stderr.decode()
    c = files(logs)[("posix", str(work / "seq.dat"))]["counters"]
    assert c["POSIX_WRITES"] == 100 and c["POSIX_READS"] == 100 and c["POSIX_CONSEC_WRITES"] == 99
    (log,) = parts(logs)
    if clock == "monotonic":
        assert log["settings"]["clock"] == "monotonic"
    else:  # the TSC where the kernel calls it invariant, else the fallback
        flags = next((ln for ln in open("/proc/cpuinfo") if ln.startswith("flags")), "").split()
        invariant = "constant_tsc" in flags and "nonstop_tsc" in flags
        assert log["settings"]["clock"] == ("tsc" if invariant else "monotonic")
    start, end = log["process"]["start"], log["process"]["end"]
    slack = 2e-3  # timestamps are rounded to microseconds in the log; calibration is not exact
    assert start - slack <= c["POSIX_F_OPEN_START_TIMESTAMP"] <= c["POSIX_F_WRITE_START_TIMESTAMP"]
    assert c["POSIX_F_WRITE_START_TIMESTAMP"] <= c["POSIX_F_WRITE_END_TIMESTAMP"] <= c["POSIX_F_READ_START_TIMESTAMP"]
    assert c["POSIX_F_READ_END_TIMESTAMP"] <= c["POSIX_F_CLOSE_END_TIMESTAMP"] <= end + slack
    busy = c["POSIX_F_WRITE_TIME"] + c["POSIX_F_READ_TIME"] + c["POSIX_F_META_TIME"]
    assert 0 < c["POSIX_F_MAX_WRITE_TIME"] <= c["POSIX_F_WRITE_TIME"]
    assert 0 < busy <= (c["POSIX_F_CLOSE_END_TIMESTAMP"] - c["POSIX_F_OPEN_START_TIMESTAMP"]) + slack


def test_missing_real_symbol_disables_that_wrapper_and_says_so_once(lib, tmp_path):
    work, logs, proc = _run(lib, tmp_path, "missing", {"PARIO_PROFILE_TEST_MISSING": "fsync"})
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().splitlines() == ["fsync -1 ENOSYS"] * 3
    said = [line for line in proc.stderr.decode().splitlines() if "fsync" in line]
    assert said == ["pario-preload: fsync not found after the profiler; calls to it fail with ENOSYS "
                    "and are not profiled"]
    c = files(logs)[("posix", str(work / "missing.dat"))]["counters"]
    assert c["POSIX_FSYNCS"] == 0  # not profiled
    assert c["POSIX_WRITES"] == 2 and c["POSIX_BYTES_WRITTEN"] == 1024 and c["POSIX_CLOSES"] == 1


def test_without_the_hook_fsync_is_profiled(lib, tmp_path):
    work, logs, proc = _run(lib, tmp_path, "missing")
    assert proc.returncode == 0 and proc.stderr.decode() == ""
    assert proc.stdout.decode().splitlines() == ["fsync 0 -"] * 3
    assert files(logs)[("posix", str(work / "missing.dat"))]["counters"]["POSIX_FSYNCS"] == 3
