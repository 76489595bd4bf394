"""The scratch directory: pario removes only the files of its own run, and the device ceiling is cached."""
import datetime
import json
import os
from pathlib import Path

import pytest

from pario.model.errors import ParioError
from pario.platform import ceiling
from pario.platform import scratch as scr


def test_cleanup_removes_only_this_runs_files(tmp_path):
    d = tmp_path / "s"
    d.mkdir()
    s = scr.Scratch(str(d), run_id="r1")
    s.prepare()
    assert not s.created, "an existing directory is not pario's"
    mine = [d / "pario.r1.0.0", d / "pario.r1.3.12"]
    others = [d / "pario.r10.0.0", d / "pario.r2.0.0", d / "data.h5", d / "pario.r1"]
    for f in mine + others:
        f.write_text("x")
    assert s.leftovers() == sorted(str(f) for f in mine)
    assert s.cleanup() == 2
    assert sorted(os.listdir(d)) == sorted(f.name for f in others)


def test_created_directory_removed_only_when_empty(tmp_path):
    d = tmp_path / "scratch"
    s = scr.Scratch(str(d))
    s.prepare()
    assert s.created and d.is_dir()
    (d / "user.txt").write_text("keep me")
    (d / f"{s.prefix}.0.0").write_text("x")
    s.cleanup()
    assert sorted(os.listdir(d)) == ["user.txt"]
    (d / "user.txt").unlink()
    s.cleanup()
    assert not d.exists()


def test_only_the_last_component_is_created(tmp_path):
    # issue 15: `--dir /nonexist/x` created /nonexist on the root file system and left it behind
    s = scr.Scratch(str(tmp_path / "nonexist" / "x"))
    with pytest.raises(ParioError, match="its parent .*nonexist does not exist"):
        s.prepare()
    assert not (tmp_path / "nonexist").exists()


def test_dir_choice(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PARIO_SCRATCH", raising=False)
    assert scr.Scratch().dir == str(tmp_path / "pario-scratch")
    monkeypatch.setenv("PARIO_SCRATCH", str(tmp_path / "env"))
    assert scr.Scratch().dir == str(tmp_path / "env")
    assert scr.Scratch(str(tmp_path / "flag")).dir == str(tmp_path / "flag")
    assert scr.Scratch().run_id != scr.Scratch().run_id


def test_not_a_directory_or_not_writable(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ParioError, match="not a directory"):
        scr.Scratch(str(f)).prepare()
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        with pytest.raises(ParioError, match="not writable"):
            scr.Scratch(str(ro)).prepare()
    with pytest.raises(ParioError, match="--dir"):
        scr.Scratch("/proc/pario-no").prepare()


def _probing_engine(tmp_path, monkeypatch):
    """An engine whose --probe says 321.5/700 MiB/s and counts its calls; the cache in tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = tmp_path / "calls"
    engine = tmp_path / "engine"
    engine.write_text(f"#!/bin/sh\necho probe >> {calls}\n"
                      "echo '{\"write_mib\": 321.5, \"read_mib\": 700.0, \"bytes\": 67108864}'\n")
    engine.chmod(0o755)
    return engine, calls


def test_ceiling_is_probed_once_per_directory(tmp_path, monkeypatch):
    engine, calls = _probing_engine(tmp_path, monkeypatch)
    first = ceiling.device_ceiling(str(engine), str(tmp_path))
    again = ceiling.device_ceiling(str(engine), str(tmp_path))
    assert first["write_mib"] == again["write_mib"] == 321.5
    assert (first["source"], again["source"]) == ("probe", "cached probe")
    assert calls.read_text().count("probe") == 1
    assert ceiling.device_ceiling(str(engine), str(tmp_path), skip=True) == {"source": "skipped (--no-probe)"}
    other = tmp_path / "other"
    other.mkdir()
    ceiling.device_ceiling(str(engine), str(other))
    assert calls.read_text().count("probe") == 2


def test_a_cached_ceiling_is_probed_again_after_a_day(tmp_path, monkeypatch):
    # the cache never expired: a file system that got slower (or an OST back) kept its old ceiling
    engine, calls = _probing_engine(tmp_path, monkeypatch)
    assert ceiling.device_ceiling(str(engine), str(tmp_path))["source"] == "probe"
    path = ceiling._cache_path()
    now = datetime.datetime.now(datetime.timezone.utc)
    for measured, source in [(now - datetime.timedelta(hours=23), "cached probe"),
                             (now - datetime.timedelta(hours=25), "probe"),
                             (now + datetime.timedelta(hours=1), "probe"), (None, "probe"), ("garbage", "probe")]:
        data = json.loads(Path(path).read_text())
        for entry in data.values():
            entry["write_mib"] = 100.0
            entry.pop("measured")
            if measured is not None:
                entry["measured"] = measured if isinstance(measured, str) else measured.isoformat(timespec="seconds")
        Path(path).write_text(json.dumps(data))
        got = ceiling.device_ceiling(str(engine), str(tmp_path))
        assert got["source"] == source, (measured, got)
        assert got["write_mib"] == (100.0 if source == "cached probe" else 321.5)
    assert calls.read_text().count("probe") == 5


def test_failed_probe_records_no_ceiling(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    engine = tmp_path / "engine"
    engine.write_text("#!/bin/sh\necho 'O_DIRECT: Invalid argument' >&2\nexit 1\n")
    engine.chmod(0o755)
    got = ceiling.device_ceiling(str(engine), str(tmp_path))
    assert "write_mib" not in got and got["source"].startswith("none")
    assert ceiling.device_ceiling(None, str(tmp_path))["source"] == "none: engine not built"


def test_bench_says_when_a_cached_ceiling_was_measured():
    from pario.report.terminal.bench import ceiling_line
    fig = {"write_mib": 1365.2, "read_mib": 1052.0, "streams": 2}
    assert "2 streams, measured now): write 1365 MiB/s, read 1052" in ceiling_line({**fig, "source": "probe"})
    cached = ceiling_line({**fig, "source": "cached probe", "measured": "2026-11-25T04:36:09+00:00"})
    assert "measured 2026-11-25 04:36 UTC)" in cached
    assert "measured earlier" in ceiling_line({**fig, "source": "cached probe"})   # a run stored before dates
    assert ceiling_line({"source": "skipped (--no-probe)"}) == "No device ceiling: skipped (--no-probe)."
