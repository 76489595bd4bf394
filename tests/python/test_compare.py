"""`pario results compare`: every difference between the two runs is named (ranks, sizes, fsync,
O_DIRECT, MPI-IO layer, hints, file system, host), operations present on one side only are
shown, metadata runs compare phase by phase in files/s, verdicts use the noise test, and a large
gap between pario and IOR on the same case is explained where the figures allow."""
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from pario.analysis import compare, summary
from pario.cli import main
from pario.report.terminal import runs as run_tables
from pario.store import Store, ior_import
from result_factory import MIB, case, phase, result, validate

pytestmark = [pytest.mark.e2e]
DATA = Path(__file__).parent / "data"


def _run(run_id, *cases, kind="bench", env=None, ranks=4, hosts=None):
    doc = result(*cases, ranks=ranks, hosts=hosts)
    validate(doc)
    return {"id": run_id, "kind": kind, "created": "2026-11-24T10:00:00Z", "status": "complete",
            "command": "pario bench", "spec": {}, "env": env or {}, "result": doc}


def _text(cmp, width=200):
    buf = io.StringIO()
    run_tables.print_compare(Console(file=buf, width=width, color_system=None), cmp)
    return buf.getvalue()


ENV = {"hostname": "vm", "fs_type": "ext4", "dir": "/scratch", "io_component": None,
       "mpi_version": "mpirun (Open MPI) 4.1.4"}


def test_runs_with_different_ranks_and_sizes_warn_and_name_every_difference():
    a = _run(1, case("fpp-posix", 0, write=[100.0, 110.0, 120.0]), env=ENV)
    b = _run(2, case("fpp-posix", 0, write=[200.0, 210.0, 220.0], nbytes=16 * MIB), env={**ENV, "fs_type": "xfs"},
             ranks=2)
    cmp = compare.compare_runs(a, b)
    diffs = {d["what"]: (d["a"], d["b"]) for d in cmp["differences"]}
    assert diffs["ranks"] == ("4", "2") and diffs["file system"] == ("ext4", "xfs")
    (entry,) = cmp["cases"]
    case_diffs = {d["what"]: (d["a"], d["b"]) for d in entry["differences"]}
    assert case_diffs["bytes per phase"] == ("64M", "16M")
    assert cmp["comparable"] is False
    text = _text(cmp)
    assert "A and B differ in: ranks 4 vs 2; file system ext4 vs xfs" in text
    assert "not like for like" in text and "bytes per phase 64M vs 16M" in text


def test_runs_that_differ_only_in_fsync_name_it():
    a = _run(1, case("shared-posix", 0, strategy="shared", write=[100.0, 101.0, 102.0]), env=ENV)
    b = _run(2, case("shared-posix", 0, strategy="shared", fsync=True, write=[60.0, 61.0, 62.0]), env=ENV)
    cmp = compare.compare_runs(a, b)
    assert cmp["differences"] == []
    (entry,) = cmp["cases"]
    assert [(d["what"], d["a"], d["b"]) for d in entry["differences"]] == [("fsync (-e)", "no", "yes")]
    assert entry["write"]["verdict"] == "B slower"
    assert "fsync (-e) no vs yes" in _text(cmp)


def test_operations_on_one_side_only_are_shown_not_dropped():
    a = _run(1, case("fpp-posix", 0, write=[100.0, 110.0, 120.0], read=[500.0, 510.0, 520.0]), env=ENV)
    b = _run(2, case("fpp-posix", 0, write=[100.0, 111.0, 119.0]), env=ENV)
    (entry,) = compare.compare_runs(a, b)["cases"]
    assert entry["read"]["verdict"] == "only in A" and entry["read"]["a"]["median"] == 510.0
    text = _text(compare.compare_runs(a, b))
    assert "only in A" in text and "510 [500-520]" in text


def _md_case(name, index, rates):
    c = case(name, index, workload="metadata", shared_dir=True, files_per_dir=100)
    c["spec"]["ops"] = list(rates)
    c["phases"] = []
    for op, values in rates.items():
        for rep, v in enumerate(values):
            p = phase("write", rep, 100.0)
            p.update(op=op, ops=400, bytes=0, iops=v, xfer_s=400 / v)
            c["phases"].append(p)
    c["metadata"] = {"files_per_rep": 400, "dirs_per_rep": 1, "created": 1200, "removed": 1200, "left_behind": 0}
    return c


def test_metadata_runs_compare_phase_by_phase_in_files_per_second():
    a = _run(1, _md_case("md-shared", 0, {"create": [1000.0, 1100.0, 1050.0], "stat": [9000.0, 9100.0, 9050.0]}),
             env=ENV)
    b = _run(2, _md_case("md-shared", 0, {"create": [2000.0, 2100.0, 2050.0], "stat": [9010.0, 9120.0, 9040.0]}),
             env=ENV)
    (entry,) = compare.compare_runs(a, b)["cases"]
    md = entry["metadata"]
    assert md["create"]["verdict"] == "B faster" and md["create"]["ratio"] == pytest.approx(2050.0 / 1050.0)
    assert md["stat"]["verdict"] == "within noise"
    text = _text(compare.compare_runs(a, b))
    assert "files/s" in text and "create" in text and "1.95" in text and "MiB/s" not in text


def test_pario_against_ior_explains_a_gap_in_open_and_close():
    ior = ior_import.convert(ior_import.parse_text((DATA / "ior4-mpiio-shared.json").read_text()))
    a = {"id": 1, "kind": "ior", "env": {"tool": "ior", "ranks": 4}, "result": ior, "spec": {}}
    # same case, same transfers, but pario's phases spend 30% in open and close
    mine = case("shared-mpiio-c", 0, backend="mpiio", strategy="shared", collective=True, reorder=-1,
                nbytes=256 * MIB, write=[300.0, 310.0, 305.0])
    for p in mine["phases"]:
        p["open_close_share"] = 0.55
        p["xfer_bw_mib"] = 640.0
    b = _run(2, mine, env=ENV)
    cmp = compare.compare_runs(a, b)
    (entry,) = cmp["cases"]
    why = " ".join(entry["write"]["explain"])
    assert "transfers alone" in why and "open and close" in why and "MPI_File_set_size" in why
    assert "pario" in _text(cmp) and "IOR" in _text(cmp)


def test_ior_against_a_smaller_pario_run_names_ranks_and_size(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    db = str(tmp_path / "runs.db")
    assert main(["results", "import-ior", str(DATA / "ior4-mpiio-shared.json"), "--db", db]) == 0
    capsys.readouterr()
    doc = result(case("shared-mpiio-c", 0, backend="mpiio", strategy="shared", collective=True, reorder=-1,
                      nbytes=16 * MIB, write=[9000.0, 9100.0, 9050.0]), ranks=2)
    mine = Store(db).add_run(kind="bench", command="pario bench", spec={}, env=ENV, result=doc, status="complete",
                             headline=summary.headline(doc))
    assert main(["results", "compare", "1", str(mine), "--db", db]) == 0
    out = capsys.readouterr().out
    assert "ranks 4 vs 2" in out and "bytes per phase 256M vs 16M" in out and "tool IOR 4.0.0 vs pario" in out
    assert main(["results", "compare", "1", str(mine), "--db", db, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["comparable"] is False and {d["what"] for d in got["differences"]} >= {"ranks", "tool"}


def test_hints_in_effect_are_a_difference_too():
    checked = {"requested": {"romio_cb_write": "enable"}, "effective": {"romio_cb_write": "enable"},
               "check": [{"key": "romio_cb_write", "requested": "enable", "effective": "enable",
                          "status": "in effect", "reason": "", "means": "ROMIO_PRINT_HINTS"}]}
    ignored = {**checked, "check": [{**checked["check"][0], "status": "not applied", "effective": None}]}
    a = _run(1, case("shared-mpiio", 0, backend="mpiio", strategy="shared", write=[1.0, 1.1, 1.2], hints=checked),
             env=ENV)
    b = _run(2, case("shared-mpiio", 0, backend="mpiio", strategy="shared", write=[1.0, 1.1, 1.2], hints=ignored),
             env=ENV)
    (entry,) = compare.compare_runs(a, b)["cases"]
    assert [(d["what"], d["a"], d["b"]) for d in entry["differences"]] == [
        ("hints in effect", "romio_cb_write=enable", "none")]


def test_runs_that_differ_only_in_the_read_check_name_it():
    a = _run(1, case("fpp-posix", 0, read=[100.0, 101.0, 102.0]), env=ENV)
    b = _run(2, case("fpp-posix", 0, read=[130.0, 131.0, 132.0], read_check=False), env=ENV)
    (entry,) = compare.compare_runs(a, b)["cases"]
    assert [(d["what"], d["a"], d["b"]) for d in entry["differences"]] == [("timed reads checked", "yes", "no")]
    w = _run(3, case("fpp-posix", 0, write=[100.0, 101.0, 102.0]), env=ENV)
    w2 = _run(4, case("fpp-posix", 0, write=[100.0, 101.0, 102.0], read_check=False), env=ENV)
    (entry,) = compare.compare_runs(w, w2)["cases"]
    assert entry["differences"] == []  # no reads: nothing was or was not checked
