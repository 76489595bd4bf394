"""Exact counters from tiny C programs with known I/O, run under libpario-preload.so."""
from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from profile_support import compile_c, files, parts, preload_lib, run_profiled


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def _run(lib, tmp_path, name, *args, flags=("-O2",), env=None):
    exe = compile_c(tmp_path, name, *flags)
    work, logs = tmp_path / "w", tmp_path / "log"
    work.mkdir(exist_ok=True)
    proc = run_profiled(lib, [exe, work, *args], logs, env)
    assert proc.returncode == 0, proc.stderr.decode()
    return work, logs, proc


def test_sequential_write_then_read(lib, tmp_path):
    work, logs, _ = _run(lib, tmp_path, "posix_seq")
    c = files(logs)[("posix", str(work / "seq.dat"))]["counters"]
    expect = {"POSIX_OPENS": 1, "POSIX_CLOSES": 1, "POSIX_WRITES": 100, "POSIX_READS": 100, "POSIX_SEEKS": 1,
              "POSIX_BYTES_WRITTEN": 409600, "POSIX_BYTES_READ": 409600, "POSIX_MAX_BYTE_WRITTEN": 409599,
              "POSIX_MAX_BYTE_READ": 409599, "POSIX_CONSEC_WRITES": 99, "POSIX_SEQ_WRITES": 99,
              "POSIX_CONSEC_READS": 99, "POSIX_SEQ_READS": 99, "POSIX_RW_SWITCHES": 1,
              "POSIX_SIZE_WRITE_1K_10K": 100, "POSIX_SIZE_READ_1K_10K": 100, "POSIX_SIZE_WRITE_100_1K": 0}
    assert {k: c[k] for k in expect} == expect
    # alignment is judged against the file system's real block size, not an assumed one
    st = os.statvfs(work)
    assert c["POSIX_FILE_ALIGNMENT"] == st.f_bsize
    assert c["POSIX_FILE_NOT_ALIGNED"] == (0 if 4096 % st.f_bsize == 0 else 200)
    assert c["POSIX_F_WRITE_TIME"] > 0 and c["POSIX_F_WRITE_START_TIMESTAMP"] <= c["POSIX_F_WRITE_END_TIMESTAMP"]


def test_files_are_named_as_the_program_named_them(lib, tmp_path):
    """A file is named by its open call's path (tests/preload/named.c): openat's directory joined,
    a symbolic link kept, as MPI-IO and the libraries name theirs; a stream fdopen'd on a descriptor
    by that descriptor's file; a file without a name (O_TMPFILE) as /proc/self/fd names it."""
    work, logs, _ = _run(lib, tmp_path, "named")
    view = files(logs)
    written = {path: f["bytes_written"] for (module, path), f in view.items() if module == "posix" and
               f["bytes_written"]}
    assert written.pop(str(work / "sub" / "at.dat")) == 4096
    assert written.pop(str(work / "link" / "via.dat")) == 3072
    assert view[("stdio", str(work / "stream.dat"))]["bytes_written"] == 2048
    assert view[("posix", str(work / "stream.dat"))]["counters"]["POSIX_OPENS"] == 1
    try:
        os.close(os.open(work, os.O_TMPFILE | os.O_WRONLY, 0o600))
        nameless = True
    except OSError:
        nameless = False
    unnamed = {p: n for p, n in written.items() if p.startswith(f"{work}/#") and p.endswith(" (deleted)")}
    assert list(unnamed.values()) == ([1024] if nameless else []), written


def test_random_misaligned_one_mib_vectors_and_metadata(lib, tmp_path):
    work, logs, _ = _run(lib, tmp_path, "posix_misc")
    view = files(logs)
    c = view[("posix", str(work / "misc.dat"))]["counters"]
    expect = {"POSIX_WRITES": 13, "POSIX_READS": 2, "POSIX_VECTOR_WRITES": 1, "POSIX_VECTOR_READS": 1,
              "POSIX_SEQ_WRITES": 3, "POSIX_CONSEC_WRITES": 0,
              # 1 MiB exactly is not a small request; 1 MiB - 1 is
              "POSIX_SIZE_WRITE_1M_4M": 1, "POSIX_SIZE_WRITE_100K_1M": 1, "POSIX_SIZE_WRITE_100_1K": 11,
              "POSIX_BYTES_WRITTEN": 10 * 1000 + (1 << 20) + (1 << 20) - 1 + 800,
              "POSIX_MAX_BYTE_WRITTEN": (8 << 20) + 799,
              "POSIX_FSYNCS": 1, "POSIX_FDSYNCS": 1, "POSIX_TRUNCATES": 1, "POSIX_MMAPS": 1,
              # stat, lstat, fstat, fstatat and statx: the plain glibc >= 2.33 symbols
              "POSIX_STATS": 5, "POSIX_RENAMES_SOURCE": 1}
    assert {k: c[k] for k in expect} == expect
    if os.statvfs(work).f_bsize == 4096:  # 10 offset-misaligned + 2 size-misaligned writes + 2 reads at offset 1
        assert c["POSIX_FILE_NOT_ALIGNED"] == 14
    target = view[("posix", str(work / "renamed.dat"))]["counters"]
    assert target["POSIX_RENAMES_TARGET"] == 1 and target["POSIX_UNLINKS"] == 1
    assert view[("posix", str(work / "newdir"))]["counters"]["POSIX_MKDIRS"] == 1
    strides = dict(map(tuple, view[("posix", str(work / "misc.dat"))]["common_strides"]))
    assert strides[-1000] == 9


@pytest.mark.parametrize("flags", [("-O0", "-fno-builtin"), ("-O2", "-D_FORTIFY_SOURCE=2")], ids=["plain", "fortified"])
def test_stdio(lib, tmp_path, flags):
    work, logs, proc = _run(lib, tmp_path, "stdio_ops", flags=flags)
    assert proc.stdout == b"value 1\n"
    c = files(logs)[("stdio", str(work / "stdio.txt"))]["counters"]
    expect = {"STDIO_OPENS": 2, "STDIO_CLOSES": 2, "STDIO_WRITES": 62, "STDIO_BYTES_WRITTEN": 5000 + 60 + 6 + 1,
              "STDIO_READS": 8, "STDIO_BYTES_READ": 500 + 6 + 1, "STDIO_SEEKS": 1, "STDIO_FLUSHES": 1,
              "STDIO_SIZE_WRITE_100_1K": 50, "STDIO_SIZE_WRITE_0_100": 12, "STDIO_MAX_BYTE_WRITTEN": 5066}
    assert {k: c[k] for k in expect} == expect


def test_threads_exact(lib, tmp_path):
    work, logs, _ = _run(lib, tmp_path, "threads")
    view = files(logs)
    for t in range(4):
        c = view[("posix", str(work / f"thread{t}.dat"))]["counters"]
        assert (c["POSIX_WRITES"], c["POSIX_BYTES_WRITTEN"], c["POSIX_CONSEC_WRITES"]) == (1000, 512000, 999)
    shared = view[("posix", str(work / "shared.dat"))]["counters"]
    assert ((shared["POSIX_WRITES"], shared["POSIX_BYTES_WRITTEN"], shared["POSIX_MAX_BYTE_WRITTEN"])
            == (4000, 2048000, 2047999))


def test_fork_child_records_and_merge(lib, tmp_path):
    work, logs, _ = _run(lib, tmp_path, "forked")
    docs = parts(logs)
    assert len(docs) == 2
    child = [d for d in docs if d["process"]["fork_parent"]]
    parent = [d for d in docs if not d["process"]["fork_parent"]]
    assert len(child) == 1 and child[0]["process"]["fork_parent"] == parent[0]["process"]["pid"]
    view = files(logs)
    assert view[("posix", str(work / "child.dat"))]["counters"]["POSIX_WRITES"] == 20
    p = view[("posix", str(work / "parent.dat"))]
    assert p["counters"]["POSIX_WRITES"] == 25 and p["nprocs"] == 2   # 10 + 10 by the parent, 5 by the child
    assert p["counters"]["POSIX_OPENS"] == 2


def _start_and_term(lib, tmp_path, mode):
    exe = compile_c(tmp_path, "signalled")
    work, logs = tmp_path / "w", tmp_path / "log"
    work.mkdir(exist_ok=True)
    env = dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(logs))
    proc = subprocess.Popen([str(exe), str(work), mode], env=env, stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    return work, logs, proc.returncode, out


def test_sigterm_leaves_partial_log(lib, tmp_path):
    work, logs, rc, _ = _start_and_term(lib, tmp_path, "plain")
    assert rc == -signal.SIGTERM  # the default action still ends the program
    (doc,) = parts(logs)
    assert doc["process"]["partial"] is True and doc["process"]["reason"] == "signal"
    assert files(logs)[("posix", str(work / "sig.dat"))]["counters"]["POSIX_WRITES"] == 10


def test_sigterm_chains_to_program_handler(lib, tmp_path):
    work, logs, rc, out = _start_and_term(lib, tmp_path, "handler")
    assert rc == 3 and out == b"handled\n"
    (doc,) = parts(logs)
    assert doc["process"]["partial"] is False  # the handler exit()ed: the final log replaced the partial one
    assert files(logs)[("posix", str(work / "sig.dat"))]["counters"]["POSIX_WRITES"] == 10


def test_memory_bound_is_loud_and_counters_exact(lib, tmp_path):
    work, logs, proc = _run(lib, tmp_path, "many", "2000", "100000",
                            env={"PARIO_PROFILE_MEM": "1", "PARIO_PROFILE_TRACE": "1"})
    assert b"memory bound" in proc.stderr and b"PARIO_PROFILE_MEM" in proc.stderr
    (doc,) = parts(logs)
    lim = doc["limits"]
    assert lim["dropped_records"] > 0 and lim["trace_dropped"] > 0
    # every open, close and write is an event: kept + dropped accounts for all of them
    assert lim["trace_kept"] + lim["trace_dropped"] == 2001 + 2001 + 2000 + 100000
    assert len(doc["trace"]["events"]) == lim["trace_kept"]
    rows = [f for f in files(logs).values()
            if f["module"] == "posix" and (f["path"].startswith(str(work)) or f["path"] == "<other files>")]
    assert sum(f["counters"]["POSIX_OPENS"] for f in rows) == 2001
    assert sum(f["counters"]["POSIX_WRITES"] for f in rows) == 2000 + 100000
    assert sum(f["counters"]["POSIX_BYTES_WRITTEN"] for f in rows) == 2000 * 10 + 100000 * 8


def test_trace_columns(lib, tmp_path):
    work, logs, _ = _run(lib, tmp_path, "posix_seq", env={"PARIO_PROFILE_TRACE": "1"})
    (doc,) = parts(logs)
    ev = doc["trace"]["events"]
    cols = doc["trace"]["columns"]
    writes = [dict(zip(cols, e)) for e in ev if e[1] == "write"]
    assert len(writes) == 100 and [w["offset"] for w in writes] == [k * 4096 for k in range(100)]
    assert all(w["size"] == 4096 and w["duration"] >= 0 for w in writes)


def test_log_matches_schema(lib, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    _, logs, _ = _run(lib, tmp_path, "posix_misc", env={"PARIO_PROFILE_TRACE": "1"})
    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "profile-log.schema.json").read_text())
    for doc in parts(logs):
        jsonschema.validate(doc, schema)
