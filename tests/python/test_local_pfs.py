"""The local CephFS the striping tests run on (scripts/local-pfs.sh): it mounts N object servers,
keeps the layouts pario sets and reads back, refuses what CephFS refuses, and stops without
leaving a process, a mount or a cgroup, also after a start that failed half-way."""
import errno
import os

import pytest

from pfs_support import can_cap, leftovers, script, skip


def _layout(path, attr="ceph.file.layout"):
    return dict(kv.split("=", 1) for kv in os.getxattr(path, attr).decode().split())


def test_status_names_every_server(pfs):
    out = script("status", "--dir", pfs.dir)
    assert out.returncode == 0, out.stdout + out.stderr
    osds = next(line for line in out.stdout.splitlines() if "ceph-osd running" in line)
    assert len(osds.split("pid ")[1].split()) == pfs.servers
    assert f"mounted at {pfs.mount}" in out.stdout


def test_layouts_are_set_read_back_and_checked_by_the_server(pfs, tmp_path):
    work = pfs.mount / tmp_path.name
    work.mkdir()
    assert _layout(pfs.mount, "ceph.dir.layout")["stripe_count"] == "1"
    f = work / "striped"
    f.touch()
    os.setxattr(f, "ceph.file.layout", b"stripe_unit=1048576 stripe_count=4 object_size=4194304")
    f.write_bytes(b"x" * (1 << 20))
    assert _layout(f) == {"stripe_unit": "1048576", "stripe_count": "4", "object_size": "4194304",
                          "pool": "cephfs_data"}
    with pytest.raises(OSError) as exc:  # a layout is fixed once the file has data
        os.setxattr(f, "ceph.file.layout.stripe_count", b"2")
    assert exc.value.errno == errno.ENOTEMPTY
    g = work / "odd"
    g.touch()
    with pytest.raises(OSError) as exc:  # the stripe unit is a multiple of 64 KiB
        os.setxattr(g, "ceph.file.layout", b"stripe_unit=100000 stripe_count=1 object_size=4194304")
    assert exc.value.errno == errno.EINVAL
    sub = work / "d"
    sub.mkdir()
    os.setxattr(sub, "ceph.dir.layout.stripe_count", b"3")
    (sub / "child").touch()
    assert _layout(sub / "child")["stripe_count"] == "3"  # new files inherit the directory's layout


def test_bad_options_say_what_is_wrong(tmp_path):
    for args, words in ((["--cap", "fast"], "--cap fast"), (["--servers", "0"], "--servers 0"),
                        (["--object-size", "3k"], "--object-size 3k"), (["--colour"], "usage")):
        out = script("start", "--dir", tmp_path / "x", *args)
        assert out.returncode == 2 and words in out.stderr, (args, out.stderr)
    assert not (tmp_path / "x").exists()


def test_a_start_that_fails_half_way_leaves_nothing(tmp_path):
    """The metadata server (the last daemon) cannot start: the monitor and the object servers, their
    cgroups and the port claim are undone."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "ceph-mds"
    fake.write_text("#!/bin/sh\necho 'ceph-mds: broken on purpose' >&2\nexit 1\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    directory = tmp_path / "c"
    cap = [] if can_cap() else ["--cap", "10m"]
    out = script("start", "--dir", directory, "--servers", "2", *cap, env=env)
    if out.returncode in (3, 4):
        skip(" ".join(out.stderr.split("\n")).strip())
    assert out.returncode == 1 and "ceph-mds did not start" in out.stderr, out.stdout + out.stderr
    assert leftovers(directory) == []
    assert script("status", "--dir", directory).returncode == 1
    again = script("stop", "--dir", directory)
    assert again.returncode == 0 and "stopped" in again.stdout
    assert not (directory / "osd").exists()  # the servers' data went with them


def test_it_never_writes_into_a_directory_it_did_not_make(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    out = script("start", "--dir", tmp_path)
    if out.returncode in (3, 4):
        skip(out.stderr.strip())
    assert out.returncode == 2 and "not made by local-pfs.sh" in out.stderr
    assert sorted(os.listdir(tmp_path)) == ["mine.txt"]
