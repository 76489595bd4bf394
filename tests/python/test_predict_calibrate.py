"""pario predict --calibrate on a noisy machine: the five probes run in rounds, alternated; the
figures are fitted to the medians; the fits of single rounds give each figure's spread, written
into the system file and taken by the prediction's interval. `pario bench` is replaced here by the
model of a known system times a factor per round (a slow minute), so the numbers are exact; the
real probes run in benchmarks/predict/this_machine.py."""
from __future__ import annotations

import argparse

import pytest

from pario.cli import main
from pario.predict import calibrate, model, system

MIB = 1 << 20
TRUE = {"process_bw": 2e9, "server_bw": 8e8, "collective_call_cost": 1e-3, "call_latency": 4e-6,
        "file_cost": 5e-4, "copy_bw": 4e9, "open_cost": 0.015}
SLOW = [1.0, 3.0, 1.0, 1.0, 1.0]           # one slow round of five: the medians do not see it


def _fake_bench(truth: system.System, calls: list, slow: list[float]):
    def bench(directory, ranks, cases, reps, db):
        calls.append(cases[0]["name"])
        factor = slow[min(len(calls) - 1, len(slow) * 5 - 1) // 5]
        rows = []
        for case in cases:
            secs = model.predict(truth, calibrate._pattern(case, ranks)).seconds * factor
            if case.get("workload") == "metadata":
                files = 2000
                rows.append({"metadata": {"phases": {"create": {"files": files,
                                                                "files_per_s": {"median": files / secs}}}}})
            else:
                total = 1 << 27
                rows.append({"bytes": total, "write": {"bw_mib": {"median": total / secs / MIB}}})
        return rows
    return bench


def _truth(tmp_path) -> system.System:
    base = system.from_dict({"system": {"name": "t"}, "fs": {"kind": "local", "servers": 1}}, str(tmp_path / "t.toml"))
    return base.with_values(TRUE)


def test_probes_alternate_and_one_slow_round_moves_the_spread_not_the_median(tmp_path, monkeypatch, capsys):
    truth = _truth(tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(calibrate, "_bench", _fake_bench(truth, calls, SLOW))
    monkeypatch.setattr(calibrate, "site_facts", lambda d, k: {})
    monkeypatch.setattr("pario.platform.stack.mpi_facts", lambda mpirun, io: {"available": False})
    path = str(tmp_path / "here.toml")
    args = argparse.Namespace(system=path, dir=str(tmp_path / "scratch"), ranks_per_node=2, reps=1, rounds=5)
    assert calibrate.calibrate(args) == 0
    firsts = ["fpp-1", "fpp-n", "coll", "md", "small"]
    assert calls[:5] == firsts and calls[5:10] == firsts[::-1] and len(calls) == 25
    got = system.load(path)
    for name in ("server_bw", "file_cost", "call_latency", "open_cost"):
        p = got.params[name]
        assert p.status == "calibrated" and "5 rounds" in p.how
        assert p.value == pytest.approx(truth[name], rel=0.1)       # the median round: the truth
        assert p.spread > 1.3                                       # the slow round: sqrt(3) either way
    out = capsys.readouterr().out
    assert "3.00x" in out                                           # every probe's slowest/fastest round


def test_the_interval_is_at_least_the_spread_of_the_figure_that_binds(tmp_path):
    sys_ = _truth(tmp_path)
    from pario.plan.cases import build_case
    from pario.predict.pattern import from_case
    pat = from_case(build_case({"ops": ["write"], "backend": "posix", "strategy": "fpp", "block": "64m",
                                "transfer": "4m"}), {"nodes": 1, "ranks_per_node": 2})
    narrow = model.predict(sys_, pat)
    wide_sys = system.System(sys_.name, sys_.path, "", dict(sys_.params))
    binds = narrow.binding
    name = {"servers": "server_bw", "per-process": "process_bw"}[binds]
    old = wide_sys.params[name]
    wide_sys.params[name] = system.Param(name, old.value, "calibrated", spread=2.5)
    wide = model.predict(wide_sys, pat)
    assert wide.seconds == narrow.seconds
    assert wide.high / wide.seconds >= 2.5 > narrow.high / narrow.seconds


def test_spread_in_a_system_file_is_checked(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('[fs]\nkind = "local"\nserver_bw = { value = "1 GB/s", status = "calibrated", spread = 0.5 }\n')
    assert main(["predict", "--system", str(path)]) == 2
    assert "spread = 0.5: must be a number of at least 1" in capsys.readouterr().err


def test_rounds_without_calibrate_is_one_line(capsys):
    assert main(["predict", "--system", "archer2", "--rounds", "3"]) == 2
    assert "add --calibrate" in capsys.readouterr().err


def test_the_mpiio_in_effect_is_stated_from_cray_mpichs_environment_or_pario_stack(monkeypatch):
    monkeypatch.delenv("CRAY_MPICH_VERSION", raising=False)
    monkeypatch.delenv("CRAY_MPICH_DIR", raising=False)
    facts = {"available": True, "flavour": "openmpi", "version": "Open MPI 4.1.4", "mpiio": "ompio"}
    monkeypatch.setattr("pario.platform.stack.mpi_facts", lambda mpirun, io: facts)
    assert calibrate._mpiio()[0] == "ompio"
    facts.update(flavour="unknown", mpiio="romio")      # a launcher pario cannot name: nothing stated
    assert calibrate._mpiio() == (None, "")
    monkeypatch.setenv("CRAY_MPICH_VERSION", "8.1.23")  # the cray-mpich module: its MPI-IO, whatever the launcher
    assert calibrate._mpiio()[0] == "cray"


AUTHOR = '''# Our cluster, as the site's web page states it.
[system]
name = "ours"   # the name in our tickets

[fs]
kind = "local"
# one NVMe per node
servers = 1
server_bw = "2 GB/s"   # the vendor's figure: calibration replaces it

[nodes]
cores = 2
'''


def _calibrate(tmp_path, monkeypatch, text: str) -> tuple[str, str]:
    truth = _truth(tmp_path)
    monkeypatch.setattr(calibrate, "_bench", _fake_bench(truth, [], [1.0] * 5))
    monkeypatch.setattr(calibrate, "site_facts", lambda d, k: {})
    monkeypatch.setattr("pario.platform.stack.mpi_facts", lambda mpirun, io: {"available": False})
    path = tmp_path / "ours.toml"
    path.write_text(text)
    args = argparse.Namespace(system=str(path), dir=str(tmp_path / "scratch"), ranks_per_node=2, reps=1, rounds=1)
    assert calibrate.calibrate(args) == 0
    return path.read_text(), str(path)


def test_calibrate_keeps_the_authors_comments_and_replaces_only_its_figures(tmp_path, monkeypatch, capsys):
    text, path = _calibrate(tmp_path, monkeypatch, AUTHOR)
    for kept in ("# Our cluster, as the site's web page states it.", 'name = "ours"   # the name in our tickets',
                 "# one NVMe per node", "servers = 1\n", "# the vendor's figure: calibration replaces it"):
        assert kept in text
    assert '"2 GB/s"' not in text and text.index("[fs]") < text.index("server_bw = {") < text.index("[nodes]")
    got = system.load(path)
    assert got.status("server_bw") == "calibrated" and got["server_bw"] == pytest.approx(TRUE["server_bw"], rel=0.1)
    assert got.status("file_cost") == "calibrated"                   # a figure the author had not written: added
    assert open(path + ".orig").read() == AUTHOR
    assert "its other lines and comments kept" in capsys.readouterr().out


def test_a_file_it_cannot_edit_line_by_line_is_written_whole_and_says_so(tmp_path, monkeypatch, capsys):
    text, path = _calibrate(tmp_path, monkeypatch, '# dotted keys\nfs.kind = "local"\nfs.servers = 1\n')
    assert "# dotted keys" not in text and system.load(path).status("server_bw") == "calibrated"
    out = capsys.readouterr().out
    assert "its comments are gone" in out and ".orig" in out


@pytest.mark.parametrize("given, says", [
    ("archer2", "is pario's shipped system file"),            # a shipped name: never ./archer2
    ("archr2", "(did you mean archer2?)"),                     # a typo of one: no new file ./archr2
    ("mine", "ending in .toml: --system mine.toml"),
    ("nowhere/mine.toml", "does not exist"),
    (".", "is a directory"),
])
def test_calibrate_refuses_a_target_it_should_not_write_before_anything_runs(tmp_path, monkeypatch, capsys,
                                                                            given, says):
    def no_probe(*a, **k):
        raise AssertionError("a probe ran")
    monkeypatch.setattr(calibrate, "_bench", no_probe)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PARIO_SCRATCH", raising=False)
    assert main(["predict", "--calibrate", "--system", given]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []                     # no ./archer2, no pario-scratch
