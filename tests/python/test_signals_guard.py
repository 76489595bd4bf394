"""A command's guard (run/scratch_guard.py) when pario is gone without a release (SIGKILL): what its
sentinel waits for and what it removes, without MPI. It waits only for what is on its way out (the
run under way, a probe's file, the deeper directory pario made); files an earlier -k run kept, or the
user's, are never removed and never waited for (that kept a guard for 90 s). time.sleep is replaced:
a wait the guard should not make fails the test at once, and a wait it should make is where the
test plays the run's own sentinel. Also: a guard makes no private directory, and advise's directory
made several levels deep is guarded and removed level by level."""
import argparse
import os

import pytest

from pario.run import scratch_guard, sentinel
from pario.run.sentinel import Sentinel


def guard_state(d, **more):
    return {"scratch": str(d), "prefix": "pario.G", "runs": True, "rmdir": True, **more}


def no_wait(_seconds):
    raise AssertionError("the guard waited for something that never goes")


def test_a_guard_does_not_wait_for_files_an_earlier_run_kept(tmp_path, monkeypatch):
    d = tmp_path / "scratch"
    d.mkdir()
    (d / "pario.R1.0.0").write_text("kept with -k")
    (d / "user.txt").write_text("the user's")
    monkeypatch.setattr(sentinel.time, "sleep", no_wait)
    sentinel.clean("", guard_state(d))
    sentinel.clean("", guard_state(d, running=None))
    assert sorted(os.listdir(d)) == ["pario.R1.0.0", "user.txt"]


def played(monkeypatch, *paths):
    """time.sleep as the run's sentinel: the first wait removes paths; a second wait fails."""
    calls = []

    def sleep(_seconds):
        assert not calls, f"the guard waited again with {os.listdir(os.path.dirname(paths[0]))}"
        calls.append(1)
        for p in paths:
            if os.path.isdir(p):
                os.rmdir(p)
            else:
                os.unlink(p)
    monkeypatch.setattr(sentinel.time, "sleep", sleep)
    return calls


@pytest.mark.parametrize("kept", [False, True], ids=["alone", "beside-kept-files"])
def test_a_guard_waits_for_the_run_under_way(tmp_path, monkeypatch, kept):
    d = tmp_path / "scratch"
    d.mkdir()
    if kept:
        (d / "pario.R1.0.0").write_text("kept with -k")
    (d / "pario.R2.0.0").write_text("the run under way")
    calls = played(monkeypatch, str(d / "pario.R2.0.0"))
    sentinel.clean("", guard_state(d, running={"dir": str(d), "prefix": "pario.R2"}))
    assert calls == [1]
    assert (sorted(os.listdir(d)) == ["pario.R1.0.0"]) if kept else not d.exists()


def test_a_guard_waits_for_the_run_directory_inside_it(tmp_path, monkeypatch):
    """advise's runs: DIR/.pario-advise/, removed by the run's own sentinel."""
    d = tmp_path / "scratch"
    (d / ".pario-advise").mkdir(parents=True)
    calls = played(monkeypatch, str(d / ".pario-advise"))
    sentinel.clean("", guard_state(d, running={"dir": str(d / ".pario-advise"), "prefix": "pario.R3"}))
    assert calls == [1] and not d.exists()


def test_a_guard_waits_for_the_deeper_directory_it_holds(tmp_path, monkeypatch):
    d = tmp_path / "a"
    (d / "b").mkdir(parents=True)
    calls = played(monkeypatch, str(d / "b"))
    sentinel.clean("", guard_state(d, holds="b"))
    assert calls == [1] and not d.exists()


def test_a_guard_never_removes_a_directory_it_did_not_make(tmp_path, monkeypatch):
    d = tmp_path / "scratch"
    d.mkdir()
    monkeypatch.setattr(sentinel.time, "sleep", no_wait)
    sentinel.clean("", guard_state(d, rmdir=False))
    assert d.is_dir()


def test_a_guard_makes_no_private_directory_and_removes_its_own_at_the_end_of_stdin(tmp_path, monkeypatch):
    """The real sentinel process: no $TMPDIR/pario-*, and pario's death (its stdin closed without
    a release) removes the directory pario made."""
    tmpdir, d = tmp_path / "tmp", tmp_path / "scratch"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    watcher = Sentinel()
    assert watcher.start(private=False) == ""
    watcher.tell(scratch=str(d), prefix="pario.G", runs=True, rmdir=True)
    d.mkdir()
    watcher.close(release=False)
    assert not d.exists()
    assert list(tmpdir.iterdir()) == []


def test_execute_tells_the_guards_held_which_run_is_under_way(tmp_path):
    told = []

    class Watcher:
        def tell(self, **message):
            told.append(message)

    scratch_guard._HELD.append(Watcher())
    try:
        from pario.platform.scratch import Scratch
        s = Scratch(str(tmp_path), run_id="r9")
        scratch_guard.running(s)
        scratch_guard.running(None)
    finally:
        scratch_guard._HELD.pop()
    assert told == [{"running": {"dir": str(tmp_path), "prefix": "pario.r9"}}, {"running": None}]


def test_advise_makes_a_deep_directory_level_by_level_and_removes_what_is_left_empty(tmp_path):
    """--dir A/B/C where none exists: each level is made under a guard and removed at the end when
    empty, the deepest first; a level holding the user's file stays, with the levels above it."""
    from pario.cli.advise import Session

    session = Session(argparse.Namespace(mpirun=None), store=None)
    deep = tmp_path / "a" / "b" / "c"
    with session.guards:
        session.where(str(deep))
        assert deep.is_dir()
        assert list(tmp_path.joinpath("a").iterdir()) == [tmp_path / "a" / "b"]
    assert not (tmp_path / "a").exists()
    session = Session(argparse.Namespace(mpirun=None), store=None)
    with session.guards:
        session.where(str(deep))
        (tmp_path / "a" / "b" / "user.txt").write_text("the user's")
    assert not deep.exists() and (tmp_path / "a" / "b" / "user.txt").read_text() == "the user's"
