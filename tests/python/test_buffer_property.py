"""The buffer changes nothing a program can see: random sequences of open, write, pwrite, writev,
lseek, read, pread, fstat, ftruncate, fsync, dup and close on one to three descriptors of one or
two files (tests/buffer/opsdriver.c runs them and prints every result) give the same results and
the same files with and without the buffer, with buffers small enough that runs fill, switch and
flush often, and with the profiler on as well."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buffer_support import buffer_env, build, lib_path, run

LEN = st.integers(0, 300)
SEED = st.integers(0, 255)
OFF = st.integers(0, 2000)


OPEN = st.tuples(st.just("open"), st.integers(0, 1), st.sampled_from(["wc", "rwc", "rwct", "wca", "rwca", "r"]))


def _ops():
    slot = st.integers(0, 2)
    return st.one_of(
        OPEN,
        st.tuples(st.just("write"), slot, LEN, SEED),
        st.tuples(st.just("write"), slot, LEN, SEED),
        st.tuples(st.just("pwrite"), slot, LEN, SEED, OFF),
        st.tuples(st.just("writev"), slot, st.lists(st.integers(0, 100), min_size=1, max_size=4), SEED),
        st.tuples(st.just("pwritev"), slot, st.lists(st.integers(0, 100), min_size=1, max_size=4), SEED, OFF),
        st.tuples(st.just("lseek"), slot, st.integers(-50, 1500), st.integers(0, 2)),
        st.tuples(st.just("read"), slot, st.integers(0, 600)),
        st.tuples(st.just("pread"), slot, st.integers(0, 600), OFF),
        st.tuples(st.just("fstat"), slot),
        st.tuples(st.just("ftruncate"), slot, st.integers(0, 1500)),
        st.tuples(st.just("fsync"), slot),
        st.tuples(st.just("dup"), slot),
        st.tuples(st.just("close"), slot),
    )


def _line(op) -> str:
    return " ".join(",".join(map(str, x)) if isinstance(x, list) else str(x) for x in op)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build(tmp_path_factory.mktemp("opsdriver"), "opsdriver")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return lib_path(tmp_path_factory)


def _run(driver: Path, lines: list[str], work: Path, env) -> tuple[str, dict[str, bytes]]:
    work.mkdir()
    opsfile = work / "ops.txt"
    opsfile.write_text("\n".join(lines) + "\n")
    proc = run([driver, opsfile, work], env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    files = {p.name: p.read_bytes() for p in sorted(work.glob("f*"))}
    return proc.stdout.decode(), files


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(opens=st.lists(OPEN, max_size=2), ops=st.lists(_ops(), min_size=1, max_size=40),
       size=st.sampled_from(["1", "64", "500", "4k"]), profile=st.booleans())
def test_same_results_and_files(driver, lib, tmp_path_factory, opens, ops, size, profile):
    lines = ["open 0 rwc"] + [_line(op) for op in opens + ops]
    base = tmp_path_factory.mktemp("ops")
    want = _run(driver, lines, base / "plain", None)
    got = _run(driver, lines, base / "buffered", buffer_env(lib, size=size, profile=profile,
                                                            PARIO_PROFILE_DIR=str(base / "logs")))
    assert got == want


def test_the_buffer_was_in_the_way(driver, lib, tmp_path):
    """The comparison above can fail: while a file holds data, another process sees less of it."""
    lines = ["open 0 wc", "write 0 100 1", "write 0 100 2", "pause", "fsync 0", "pause", "close 0"]
    (tmp_path / "ops.txt").write_text("\n".join(lines) + "\n")
    env = buffer_env(lib, size="64k")
    proc = subprocess.Popen([str(driver), str(tmp_path / "ops.txt"), str(tmp_path)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout
    sizes = []
    for line in proc.stdout:
        if line.rstrip().endswith("paused"):
            sizes.append(os.path.getsize(tmp_path / "f0"))
            proc.stdin.write("\n")
            proc.stdin.flush()
    assert proc.wait() == 0
    assert sizes == [0, 200]
