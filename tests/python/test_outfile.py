"""A file the user names with -o is written whole, and a device or pipe there is written in
place, never replaced: `pario report -o /dev/null` as root once turned /dev/null into a file."""
import os
import stat
import threading
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pario.model.errors import ParioError
from pario.platform.outfile import check_output, path_text, suffix, write_output


def test_regular_file_replaced_whole_with_its_mode(tmp_path):
    out = tmp_path / "r.html"
    out.write_text("old")
    out.chmod(0o640)
    assert write_output(out, b"new page") == 8
    assert out.read_bytes() == b"new page" and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_character_device_is_written_in_place_not_replaced(tmp_path):
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the same device as /dev/null
    write_output(dev, b"x" * 4096)
    assert stat.S_ISCHR(dev.stat().st_mode) and dev.stat().st_rdev == os.makedev(1, 3)


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, b"through the pipe")
    reader.join(timeout=30)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_directory_and_missing_parent_are_one_line(tmp_path):
    with pytest.raises(ParioError, match="is a directory"):
        write_output(tmp_path, b"x")
    with pytest.raises(ParioError, match="does not exist"):
        write_output(tmp_path / "no" / "such" / "r.html", b"x")


def test_symbolic_link_is_kept_and_its_target_written(tmp_path):
    target = tmp_path / "reports" / "r.html"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.html"
    link.symlink_to(target)
    write_output(link, b"new page")
    assert link.is_symlink() and target.read_bytes() == b"new page"
    assert sorted(p.name for p in target.parent.iterdir()) == ["r.html"]


# The wrappers' paths are strings (pathlib costs their start: tests/python/test_startup.py): what
# they print and the names they make are pathlib's all the same.
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="/.ab ", max_size=12))
def test_a_path_is_written_as_pathlib_writes_it(text):
    assert path_text(text) == str(PurePosixPath(text))
    name = text.replace("/", "")
    if name not in ("", ".", ".."):
        assert suffix(name) == PurePosixPath(name).suffix


def test_a_loop_of_symbolic_links_is_refused_before_the_program_runs(tmp_path, tmp_path_factory, monkeypatch, capsys):
    """-o naming a loop (or a path below one) is one line before the work: `pario profile` ended in a
    traceback (RuntimeError: Symlink loop) where pathlib resolved the path."""
    from pario.cli import main
    from profile_support import preload_lib

    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    for path in (loop, loop / "x.json"):
        with pytest.raises(ParioError, match="loop"):
            check_output(path)
    monkeypatch.setenv("PARIO_PRELOAD", preload_lib(tmp_path_factory))
    ran = tmp_path / "ran"
    assert main(["profile", "-o", str(loop), "--", "touch", str(ran)]) == 2
    assert not ran.exists()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "symbolic links form a loop" in err[0], err
