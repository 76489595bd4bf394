"""Nothing lost or doubled when a buffered program is stopped, and errors of deferred writes
reported where the kernel's write-back reports them (README, "pario buffer")."""
from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess

import pytest

from buffer_support import buffer_env, build, file_stats, lib_path, run


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return lib_path(tmp_path_factory)


@pytest.fixture(scope="module")
def lifecycle(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lifecycle"), "lifecycle")


@pytest.fixture(scope="module")
def errors(tmp_path_factory):
    return build(tmp_path_factory.mktemp("errors"), "errors")


def records(path):
    data = path.read_bytes()
    assert len(data) % 64 == 0, "a record was cut"
    return [data[i:i + 64] for i in range(0, len(data), 64)]


def default_signals():
    """A background job (nohup, `make test &`) starts with SIGHUP or SIGINT ignored, and a program
    keeps what it inherits: give the writer the default actions the test is about."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def stream_until(lifecycle, lib, work, sig, *extra, after=20000, size="1m"):
    """Start the endless writer; once it said it wrote `after` records, send sig."""
    work.mkdir()
    proc = subprocess.Popen([str(lifecycle), "stream", str(work), "0", *extra], env=buffer_env(lib, size=size),
                            stdout=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=default_signals)
    assert proc.stdout
    said = 0
    for line in proc.stdout:
        if line.startswith("ready"):
            said = int(line.split()[1])
            if said >= after:
                proc.send_signal(sig)
                break
    proc.stdout.read()
    return proc.wait(timeout=60), said


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_mid_stream_loses_and_doubles_nothing(lifecycle, lib, tmp_path, sig):
    code, said = stream_until(lifecycle, lib, tmp_path / "w", sig)
    assert code == -sig  # the default action still ends the program, after the buffer was written
    recs = records(tmp_path / "w" / "data")
    numbers = [int(r[2:12]) for r in recs]
    assert numbers == list(range(len(numbers))), "a record was lost or doubled"
    assert len(numbers) >= said  # everything the program had written before it was stopped


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_the_programs_handler_runs_and_it_goes_on(lifecycle, lib, tmp_path, sig):
    code, said = stream_until(lifecycle, lib, tmp_path / "w", sig, "handled")
    assert code == 0
    recs = records(tmp_path / "w" / "data")
    assert recs[-1][:1] == b"z"  # the record written after the handler, once
    numbers = [int(r[2:12]) for r in recs[:-1]]
    assert numbers == list(range(len(numbers))) and len(numbers) >= said


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_streams_records_are_written_at_the_signal(lifecycle, lib, tmp_path, sig):
    """The same with fwrite: what the enlarged stream holds is written before the default action
    (without pario it would be lost with the process)."""
    code, said = stream_until(lifecycle, lib, tmp_path / "w", sig, "stdio")
    assert code == -sig
    numbers = [int(r[2:12]) for r in records(tmp_path / "w" / "data")]
    assert numbers == list(range(len(numbers))), "a record was lost or doubled"
    assert len(numbers) >= said


def test_sigkill_loses_at_most_the_buffer(lifecycle, lib, tmp_path):
    """SIGKILL cannot be caught: what is in the buffer is lost, at most --size per file."""
    (tmp_path / "w").mkdir()
    proc = subprocess.Popen([str(lifecycle), "kill", str(tmp_path / "w"), "10000"], env=buffer_env(lib, size="64k"),
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout and proc.stdout.readline() == "ready\n"
    proc.kill()
    proc.wait(timeout=30)
    recs = records(tmp_path / "w" / "data")
    assert [int(r[2:12]) for r in recs] == list(range(len(recs)))
    assert 10000 * 64 - 64 * 1024 <= len(recs) * 64 < 10000 * 64


def test_fork_then_exit_in_both_processes(lifecycle, lib, tmp_path):
    for kind, env in (("plain", None), ("buffered", buffer_env(lib))):
        (tmp_path / kind).mkdir()
        assert run([lifecycle, "fork-both-exit", tmp_path / kind, 3000], env=env).returncode == 0
    for name in ("data", "data.parent", "data.child"):
        assert (tmp_path / "buffered" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes()
    assert len(records(tmp_path / "buffered" / "data")) == 3000


# ---- errors of deferred writes: the next write, fsync or close returns them ----
@pytest.mark.parametrize("records_, sync, where", [
    (3000, "fsync", "write"),    # the buffer (64 KiB) fills past the limit: a later write() fails
    (100, "fsync", "fsync"),     # 50 KiB, still buffered at fsync: fsync fails
    (100, "close", "close"),     # nothing synced: close fails
])
def test_deferred_error_is_returned(errors, lib, tmp_path, records_, sync, where):
    """RLIMIT_FSIZE of 20,000 bytes: the write that crosses it fails with EFBIG."""
    for kind, env in (("plain", None), ("buffered", buffer_env(lib, size="64k", stats_dir=tmp_path / "stats"))):
        (tmp_path / kind).mkdir()
        proc = run([errors, tmp_path / kind, 20000, records_, sync], env=env)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout.decode().splitlines()
        assert out[-1] == "done"
        if kind == "plain":
            assert out[0].startswith("write 39 short")  # 20,000 = 39 x 512 + 32
        else:
            assert out[0].split()[0] == where and out[0].endswith(f" {errno.EFBIG}"), out
    # the bytes that fit are the same; nothing doubled
    assert (tmp_path / "buffered" / "data").read_bytes() == (tmp_path / "plain" / "data").read_bytes()
    assert file_stats(tmp_path / "stats", tmp_path / "buffered" / "data")["errors"] >= 1


def test_full_disk(errors, lib, tmp_path):
    """A small tmpfs fills: ENOSPC comes back at a later write, and the file holds what fit."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a small tmpfs needs root")
    disks = {}
    try:
        for kind, env in (("plain", None), ("buffered", buffer_env(lib, size="256k"))):
            mnt = tmp_path / kind
            mnt.mkdir()
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)]).returncode != 0:
                pytest.skip("cannot mount a tmpfs here")
            disks[kind] = mnt
            proc = run([errors, mnt, 0, 4096, "fsync"], env=env)
            assert proc.returncode == 0, proc.stderr
            first = proc.stdout.decode().splitlines()[0].split()
            assert first[0] == "write" and first[-1] in (str(errno.ENOSPC), first[-1]), first
            if kind == "buffered":
                assert first[2:] == ["errno", str(errno.ENOSPC)]
        assert (disks["buffered"] / "data").read_bytes() == (disks["plain"] / "data").read_bytes()
    finally:
        for mnt in disks.values():
            subprocess.run(["umount", str(mnt)])
