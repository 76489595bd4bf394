"""Every line of the README's "pario buffer" semantics, each checked from outside the process:
a file's size is looked at while the program waits (opsdriver's "pause"), so a test sees both
that the buffer held the data and that the call in question wrote it out; and the program's
results are the same as without the buffer."""
from __future__ import annotations

import os
import subprocess

import pytest

from buffer_support import buffer_env, build, file_stats, lib_path, run, run_paused


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return lib_path(tmp_path_factory)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    return build(tmp_path_factory.mktemp("opsdriver"), "opsdriver")


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lifecycle"), "lifecycle")


def same_as_plain(driver, lib, tmp_path, lines, watch="f0", size="64k"):
    """The program's output with and without the buffer (which must match), and the sizes seen at
    each pause with the buffer."""
    plain, _ = run_paused(driver, lines, tmp_path / "plain", None, watch)
    got, sizes = run_paused(driver, lines, tmp_path / "buffered", buffer_env(lib, size=size), watch)
    assert got == plain
    assert (tmp_path / "plain" / watch).read_bytes() == (tmp_path / "buffered" / watch).read_bytes()
    return got, sizes


# ---- what the program reads is what it wrote ----
@pytest.mark.parametrize("look", [
    ["read 1 1000"], ["pread 1 1000 0"], ["lseek 0 0 2"], ["fstat 0"], ["mmap 1 300"], ["ftruncate 0 150"],
    ["statpath 0"], ["truncpath 0 150"],
], ids=["read-other-fd", "pread", "lseek-end", "fstat", "mmap", "ftruncate", "stat-path", "truncate-path"])
def test_reads_see_buffered_data(driver, lib, tmp_path, look):
    lines = ["open 0 wc", "open 0 r", "write 0 300 1", "pause", *look, "pause", "write 0 10 9", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes[0] == 0, "the write was not buffered: the test would prove nothing"
    assert sizes[1] > 0, f"{look[0]} did not write the buffered bytes out first"


@pytest.mark.parametrize("look", [
    ["readv 1 1000"], ["fallocate 0 4096"], ["open 2 r", "read 2 1000"], ["open 2 wc", "sendfile 1 2 1000"],
    ["open 2 wc", "copyfr 1 2 1000"],
], ids=["readv", "fallocate", "other-name", "sendfile", "copy_file_range"])
def test_more_reads_see_buffered_data(driver, lib, tmp_path, look):
    """The rest of the README's list: f2 is a second name (a hard link) of f0 for other-name, else
    the target of the in-kernel copies."""
    lines = ["open 0 wc", "open 0 r", "write 0 300 1", "link 0 2" if look[0] == "open 2 r" else "pause", "pause",
             *look, "pause", "write 0 10 9", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes[0] == 0, "the write was not buffered: the test would prove nothing"
    assert sizes[-1] > 0, f"{look[-1]} did not write the buffered bytes out first"
    assert " -> -" not in out.replace(" -> -1 errno 95", ""), out  # every call succeeded (or is unsupported)


def test_lseek_cur_reports_the_position_without_writing(driver, lib, tmp_path):
    lines = ["open 0 wc", "write 0 300 1", "lseek 0 0 1", "pause", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert "lseek 0 0 1 -> 300" in out and sizes == [0]


def test_lseek_set_to_where_the_stream_is_does_not_write(driver, lib, tmp_path):
    """IOR's POSIX backend seeks to every transfer's offset before it: where the last one ended.
    That seek leaves the run pending; a seek anywhere else writes it out first."""
    lines = ["open 0 wc", "write 0 300 1", "lseek 0 300 0", "write 0 200 2", "lseek 0 500 0", "pause",
             "lseek 0 100 0", "pause", "write 0 10 3", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert "lseek 0 300 0 -> 300" in out and "lseek 0 500 0 -> 500" in out and "lseek 0 100 0 -> 100" in out
    assert sizes == [0, 500]


# ---- what writes the buffer out ----
@pytest.mark.parametrize("op", ["fsync 0", "fdatasync 0", "syncrange 0", "close 0", "dup2 1 0", "ftruncate 0 1000",
                                "flock 0", "fcntllock 0", "dup3 1 0", "syncfs 1", "sync"])
def test_flush_points(driver, lib, tmp_path, op):
    lines = ["open 0 wc", "open 1 wc", "write 0 200 3", "write 0 100 4", "pause", op, "pause"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes == [0, 300 if op != "ftruncate 0 1000" else 1000]


def test_a_shared_mapping_turns_buffering_off(driver, lib, tmp_path):
    lines = ["open 0 wc", "open 0 r", "write 0 300 1", "mmap 1 300", "write 0 10 2", "pause", "write 0 7 3", "pause",
             "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes == [310, 317]  # written through while the file is open


@pytest.mark.parametrize("op", ["exit", "_exit"])
def test_exit_and__exit_write_the_buffer(driver, lib, tmp_path, op):
    out, sizes = same_as_plain(driver, lib, tmp_path, ["open 0 wc", "write 0 500 1", "pause", op])
    assert sizes == [0] and (tmp_path / "buffered" / "f0").stat().st_size == 500


@pytest.mark.parametrize("mode", ["exit", "_exit", "return"])
def test_exit_without_close(lifecycle, lib, tmp_path, mode):
    for kind, env in (("plain", None), ("buffered", buffer_env(lib))):
        (tmp_path / kind).mkdir()
        assert run([lifecycle, mode, tmp_path / kind, 1000], env=env).returncode == 0
    assert (tmp_path / "buffered" / "data").read_bytes() == (tmp_path / "plain" / "data").read_bytes()


@pytest.mark.parametrize("mode", ["exec", "system", "spawn", "popen"])
def test_a_program_started_after_the_writes_sees_them(lifecycle, lib, tmp_path, mode):
    proc = run([lifecycle, mode, tmp_path, 100], env=buffer_env(lib))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().split() == ["6400"]


def test_fork_the_child_never_writes_the_parents_buffer(lifecycle, lib, tmp_path):
    """Parent writes, forks; the child writes on the shared offset and exits without closing; the
    parent goes on: the file holds each record once, in the order the program wrote them."""
    outs = {}
    for kind, env in (("plain", None), ("buffered", buffer_env(lib, stats_dir=tmp_path / "stats"))):
        (tmp_path / kind).mkdir()
        assert run([lifecycle, "fork", tmp_path / kind, 500], env=env).returncode == 0
        outs[kind] = (tmp_path / kind / "data").read_bytes()
    assert outs["buffered"] == outs["plain"] and len(outs["plain"]) == 3 * 500 * 64
    reasons = file_stats(tmp_path / "stats", tmp_path / "buffered" / "data")["flush_reasons"]
    assert reasons.get("fork") == 1


def test_mpi_finalize_writes_the_buffer(lib, tmp_path):
    """An MPI program that is killed with SIGKILL right after MPI_Finalize: only the flush inside
    MPI_Finalize can have written its data."""
    mpicc = "mpicc"
    from shutil import which

    if not which(mpicc) or not which("mpirun"):
        pytest.skip("mpicc/mpirun not found")
    exe = build(tmp_path, "finalize", cc=mpicc)
    env = buffer_env(lib)
    argv = ["mpirun", "-n", "1", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    argv += ["-x", "LD_PRELOAD", "-x", "PARIO_BUFFER", "-x", "PARIO_PROFILE_DISABLE", str(exe), str(tmp_path), "300"]
    proc = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    assert b"finalized" in proc.stdout, proc.stderr
    assert (tmp_path / "data.0").stat().st_size == 300 * 512


# ---- O_APPEND, several descriptors, holes, writev, threads, streams ----
def test_o_append_descriptors_interleaved(driver, lib, tmp_path):
    lines = ["open 0 wca", "open 0 wca", "write 0 100 1", "write 1 50 2", "write 0 30 3", "pause", "write 1 20 4",
             "close 0", "close 1"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes == [100 + 50]  # a switch of descriptor writes the other's run: only the last run pends


def test_an_operation_through_one_descriptor_flushes_the_others_data(driver, lib, tmp_path):
    lines = ["open 0 wc", "open 0 rw", "write 0 400 1", "pwrite 1 100 7 50", "pause", "read 1 1000", "close 0",
             "close 1"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes == [400]


def test_pwrite_far_away_leaves_a_hole(driver, lib, tmp_path):
    lines = ["open 0 wc", "pwrite 0 4096 1 0", "pwrite 0 4096 2 67108864", "pwrite 0 100 3 4096", "close 0"]
    same_as_plain(driver, lib, tmp_path, lines)
    plain, buffered = (os.stat(tmp_path / k / "f0") for k in ("plain", "buffered"))
    assert buffered.st_size == plain.st_size == 67108864 + 4096
    assert buffered.st_blocks == plain.st_blocks and buffered.st_blocks * 512 < 1 << 20


def test_writev_and_pwritev(driver, lib, tmp_path):
    lines = ["open 0 wc", "writev 0 10,0,300,7 1", "writev 0 1,2,3 3", "pause", "pwritev 0 5,6 2 1000",
             "pwritev 0 4,1 2 1011", "pause", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines)
    assert sizes == [0, 323]  # the vectors went into the buffer; a positioned write ends the stream's run


@pytest.mark.parametrize("mode", ["threads", "threads-one-fd"])
def test_threads_writing_one_file(lifecycle, lib, tmp_path, mode):
    """Four threads: each record once, each thread's records in order."""
    (tmp_path / "p").mkdir()
    assert run([lifecycle, mode, tmp_path / "p", 3000], env=buffer_env(lib, size="64k")).returncode == 0
    data = (tmp_path / "p" / "data").read_bytes()
    recs = [data[i:i + 64] for i in range(0, len(data), 64)]
    per = 3000 if mode == "threads-one-fd" else 2000
    assert len(data) == 4 * per * 64
    for who in b"abcd":
        mine = [int(r[2:12]) for r in recs if r[0] == who]
        assert mine == list(range(per))


@pytest.mark.parametrize("mode", ["fwrite", "fprintf"])
def test_streams_get_a_larger_buffer_and_the_same_bytes(lib, tmp_path, mode):
    sw = build(tmp_path, "smallwrites")
    (tmp_path / "p").mkdir()
    (tmp_path / "b").mkdir()
    assert run([sw, "-n", "20000", "-m", mode, tmp_path / "p" / "x"]).returncode == 0
    stats_dir = tmp_path / "stats"
    assert run([sw, "-n", "20000", "-m", mode, tmp_path / "b" / "x"],
               env=buffer_env(lib, stats_dir=stats_dir, size="4m")).returncode == 0
    assert (tmp_path / "b" / "x").read_bytes() == (tmp_path / "p" / "x").read_bytes()
    s = file_stats(stats_dir, tmp_path / "b" / "x", stdio=True)
    # 10 MiB through a 4 MiB stream buffer: the C library wrote 3 times, not 2,500 times (4 KiB)
    assert s["calls"] == 20000 and s["sys_bytes"] == 20000 * 512 and s["flushes"] == 3


def test_stream_and_descriptor_writes_keep_their_order(driver, lib, tmp_path):
    lines = ["open 0 wc", "fopen 1", "fputs hello stream", "write 0 10 1", "fflush", "pause", "fclose", "close 0"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines, watch="f1")
    assert sizes == [len("hello stream")]


def test_fputc_and_fputs_go_through_the_enlarged_stream(driver, lib, tmp_path):
    lines = ["fopen 1", "fputc x", "fputs hello", "fputc y", "pause", "fflush", "pause", "fclose"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines, watch="f1")
    assert sizes == [0, len("xhelloy")]


def test_the_programs_own_setvbuf_wins(driver, lib, tmp_path):
    lines = ["fopen 1", "setvbuf", "fputs hello", "pause", "fclose"]
    out, sizes = same_as_plain(driver, lib, tmp_path, lines, watch="f1")
    assert sizes == [len("hello")]  # unbuffered, as the program asked


def test_standard_error_is_never_buffered(driver, lib, tmp_path):
    """A program whose standard error is a regular file: each message is in it when written."""
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "ops.txt").write_text("stderr one\nstderr two\npause\n")
    err = tmp_path / "b" / "f0"
    with open(err, "wb") as f:
        proc = subprocess.Popen([str(driver), str(tmp_path / "b" / "ops.txt"), str(tmp_path / "b")],
                                env=buffer_env(lib), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=f, text=True)
        assert proc.stdin and proc.stdout
        for line in proc.stdout:
            if line.rstrip().endswith("paused"):
                assert err.read_bytes() == b"onetwo"
                proc.stdin.write("\n")
                proc.stdin.flush()
        assert proc.wait(timeout=60) == 0


@pytest.mark.parametrize("mode", ["_exit", "exec"])
def test_a_stream_is_written_before__exit_and_exec(lifecycle, lib, tmp_path, mode):
    """Without pario, a stream's pending bytes die with the image at _exit and exec; the README
    says pario writes them first."""
    proc = run([lifecycle, "stdio-" + mode, tmp_path, 100], env=buffer_env(lib))
    assert proc.returncode == 0, proc.stderr
    if mode == "exec":
        assert proc.stdout.decode().split() == ["6400"]
    assert (tmp_path / "data").stat().st_size == 6400


def test_fork_the_child_never_writes_the_parents_stream(lifecycle, lib, tmp_path):
    """A stream with pending bytes at fork: without pario both processes would write them at
    exit (the C library's classic doubled output); with it, each record is in the file once."""
    assert run([lifecycle, "stdio-fork", tmp_path, 100], env=buffer_env(lib)).returncode == 0
    data = (tmp_path / "data").read_bytes()
    recs = [data[i:i + 64] for i in range(0, len(data), 64)]
    want = [("p", k) for k in range(100)] + [("c", k) for k in range(100)] + [("p", k) for k in range(100, 200)]
    assert [(chr(r[0]), int(r[2:12])) for r in recs] == want
