"""Presets: every file of examples/presets has its seed's table shape (rows, columns and the
published figures, written out here from the seeds), the scaling rule keeps cases valid, readings
give a ratio only beyond the noise, bad preset files and flags get one line; and every preset runs
end to end at a tiny scale, printing its table with the rows this machine cannot run named."""
from __future__ import annotations

import json
import sys

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, ROOT, ours, pario
from profile_support import preload_lib

sys.path.insert(0, str(ROOT / "src"))
from rich.console import Console  # noqa: E402

from pario.analysis import presets as analysis  # noqa: E402
from pario.model.errors import ParioError  # noqa: E402
from pario.plan import presets  # noqa: E402
from pario.plan.cases import build_case  # noqa: E402
from pario.report.terminal.presets import print_table  # noqa: E402

# The seeds' tables (/work/shared/seeds): columns, then per row (case, the seed's figures).
SHAPES = {
    "lrz-hints": (["write", "read"], [  # LRZ, "MPI-IO in SuperMUC (2)", GiB/s
        ("seq-small-auto", {"write": 25.92, "read": 23.80}), ("seq-small-disable", {"write": 75.34, "read": 67.58}),
        ("seq-small-indep", {"write": 80.39, "read": 69.62}), ("str-small-auto", {"write": 1.63, "read": 17.74}),
        ("str-small-enable", {"write": 25.49, "read": 26.10}), ("str-small-indep", {"write": 5.15, "read": 12.60}),
        ("seq-large-auto", {"write": 74.48, "read": 46.67}), ("seq-large-disable", {"write": 83.37, "read": 65.88}),
        ("seq-large-indep", {"write": 82.29, "read": 64.22}), ("str-large-auto", {"write": 71.12, "read": 41.80}),
        ("str-large-disable", {"write": 77.22, "read": 70.21}), ("str-large-enable", {"write": 24.81, "read": 24.90}),
        ("str-large-indep", {"write": 71.25, "read": 67.71})]),
    "csc-btio": (["blocking", "non-blocking"], [  # CSC BTIO, MiB/s
        ("blk-default", {"blocking": 1292.96}), ("nb-default", {"non-blocking": 1820}),
        ("blk-su", {"blocking": 2939.85}), ("nb-su", {}), ("blk-su-cb2", {"blocking": 3699.31}), ("nb-su-cb2", {}),
        ("blk-su-cb4-nods", {}), ("nb-su-cb4-nods", {"non-blocking": 4565}), ("blk-2ost", {"blocking": 3500}),
        ("nb-2ost", {"non-blocking": 7772}), ("blk-2ost-tuned", {"blocking": 4667}),
        ("nb-2ost-tuned", {"non-blocking": 9520})]),
    "kaust-strategies": (["write", "read", "limited by"], [
        ("serial", {}), ("fpp", {}), ("shared-indep", {}), ("shared-coll", {}), ("subset-agg", {}),
        ("subset-shared", {})]),
    "kaust-smallwrites": (["writes", "write time"], [
        ("unbuffered", {"writes": 2083634, "write time": 1080}), ("buffered", {"writes": 2083634, "write time": 4.5}),
        ("large", {})]),
    "kaust-striping": (["I/O time", "speedup"], [
        ("stripe-1", {"I/O time": 79, "speedup": 1.00}), ("stripe-2", {"I/O time": 48, "speedup": 1.65}),
        ("stripe-4", {"I/O time": 37, "speedup": 2.14}), ("stripe-5", {"I/O time": 42, "speedup": 1.88}),
        ("stripe-10", {"I/O time": 39, "speedup": 2.03}), ("stripe-all", {"speedup": 12.03})]),
    "archer-smallfiles": (["write", "read time"], [
        ("shared-1", {"write": 500}), ("shared-4", {"write": 1500}), ("small-all", {"read time": 7200}),
        ("small-1", {"read time": 360})]),
    "archer2-aggregators": (["write"], [
        ("agg-1", {}), ("agg-2", {}), ("agg-4", {}), ("agg-8", {}), ("agg-16", {}), ("agg-32", {})]),
    "archer2-layers": (["write", "vs MPI-IO"], [
        ("mpiio", {"write": 80}), ("hdf5", {}), ("adios2-default", {}), ("adios2-2", {}), ("adios2-4", {}),
        ("adios2-8", {"write": 200}), ("adios2-16", {}), ("adios2-64", {})]),
}


needs_engine = pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found")


def test_the_issues_presets_are_all_there():
    assert set(SHAPES) <= set(presets.available())


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_preset_has_its_seeds_table_shape(name):
    preset = presets.load(presets.available()[name])
    columns, rows = SHAPES[name]
    assert [c.name for c in preset.columns] == columns
    assert [r.case for r in preset.rows] == [case for case, _ in rows]
    for row, (_, seed) in zip(preset.rows, rows):
        numbers = {k: v for k, v in row.seed.items() if isinstance(v, (int, float))}
        assert numbers == seed, row.case
    assert preset.readings and preset.title and preset.seed and preset.setup


def _case(opts):
    return build_case(opts)


@pytest.mark.parametrize("opts,scale,want", [
    ({"transfer": "1m", "block": "64m"}, 1 / 64, {"xfer": 1 << 20, "block": 1 << 20, "segments": 1}),
    ({"transfer": "16m", "block": "64m"}, 1 / 64, {"xfer": 1 << 20, "block": 1 << 20, "segments": 1}),
    ({"transfer": "1m", "block": "1m", "segments": 64}, 1 / 4, {"xfer": 1 << 20, "block": 1 << 20, "segments": 16}),
    ({"transfer": "1m", "block": "1m", "segments": 64}, 1 / 64, {"xfer": 512 << 10, "block": 512 << 10,
                                                                 "segments": 2}),
    ({"transfer": "512", "block": "1g"}, 1 / 64, {"xfer": 512, "block": 16 << 20, "segments": 1}),
    ({"transfer": "1m", "block": "64m"}, 3, {"xfer": 1 << 20, "block": 192 << 20, "segments": 1}),
    ({"transfer": "4k", "block": "12k"}, 0.3, {"xfer": 3680, "block": 3680, "segments": 1}),  # 12k x 0.3, to 8 B
])
def test_scale_keeps_data_cases_valid(opts, scale, want):
    case = _case(presets.scale_opts({"backend": "mpiio", **opts}, scale))
    assert {k: case[k] for k in want} == want
    assert case["block"] % case["xfer"] == 0 and case["xfer"] % 8 == 0


def test_scale_of_metadata_btio_and_subarray():
    md = presets.scale_opts({"workload": "metadata", "files_per_dir": 180, "file_size": "300k"}, 10)
    assert md["files_per_dir"] == 1800 and md["file_size"] == "300k"
    bt = _case(presets.scale_opts({"backend": "pnetcdf", "pattern": "btio", "grid": "256x128x32", "steps": 5}, 1 / 64))
    assert bt["grid_points"] == [64, 32, 8] and bt["steps"] == 5
    sub = _case(presets.scale_opts({"backend": "mpiio", "pattern": "subarray", "dims": "256x256x128"}, 1 / 16))
    assert sub["ldims"] == [16, 256, 128]


def _spread(*samples):
    return {"bw_mib": {"median": sorted(samples)[len(samples) // 2], "min": min(samples), "max": max(samples),
                       "n": len(samples), "samples": list(samples)}}


def _doc(a_samples, b_samples, skip=None):
    """The lrz-hints table for two rows of synthetic write figures (MiB/s)."""
    preset = presets.load(presets.available()["lrz-hints"])
    facts = {"fs_type": "xfs", "hosts": 1, "flavour": "mpich", "cray": False, "io": None, "built": {},
             "buffer": None}
    plan = presets.plan(preset, 4, 1 / 64, facts, storage=True)
    if skip:
        plan.skipped.append(presets.Skipped(skip, plan.labels[skip], "needs Lustre"))
    rows = [{"name": "str-small-enable", "write": _spread(*a_samples), "flags": []},
            {"name": "str-small-auto", "write": _spread(*b_samples), "flags": []}]
    return analysis.table(plan, rows if not skip else rows[1:], {})


def test_reading_gives_a_ratio_only_beyond_the_noise():
    first = _doc([400, 410, 420], [100, 105, 110])["readings"][0]
    assert first["clear"] is True and first["ratio"] == pytest.approx(410 / 105)
    assert first["line"].startswith("collective buffering on strided small writes (cb enable against automatic): "
                                    "3.9x [3.6x-4.2x] here; the seed saw 16x")  # 25.49 / 1.63 from the seed's table
    assert _doc([100, 300, 420], [100, 105, 310])["readings"][0]["verdict"].startswith("no clear difference here")
    assert "too few repetitions" in _doc([400, 410], [100, 105])["readings"][0]["verdict"]
    skipped = _doc([400, 410], [100, 105], skip="str-small-enable")["readings"][0]
    assert skipped["ratio"] is None and skipped["verdict"].startswith("not measured here")


def test_cells_are_in_the_seeds_unit_with_the_seeds_figure():
    doc = _doc([1024, 2048, 3072], [512, 512, 512])
    cell = next(r for r in doc["rows"] if r["cells"]["write"]["case"] == "str-small-enable")["cells"]["write"]
    assert cell["here"] == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3} and cell["seed"] == 25.49
    missing = next(r for r in doc["rows"] if r["cells"]["write"]["case"] == "seq-small-auto")["cells"]["write"]
    assert missing["state"] == "missing"  # planned, but the (synthetic) run has no row for it


def test_unmet_requirements_say_why():
    facts = {"fs_type": "ext2/ext3", "hosts": 1, "flavour": "openmpi", "cray": False, "io": None, "built": {},
             "buffer": None}
    assert "needs Lustre" in presets.unmet("lustre", facts, 4)
    assert "--io romio321" in presets.unmet("romio", facts, 4)
    assert presets.unmet("romio", {**facts, "io": "romio321"}, 4) is None
    assert presets.unmet("pario-buffer", facts, 4) is None          # the preload library is here
    assert "make setup" in presets.unmet("pario-buffer", {**facts, "buffer": "not built: make setup"}, 4)
    assert "needs 4 nodes" in presets.unmet("nodes>=4", facts, 4)
    assert presets.unmet("ranks>=4", facts, 4) is None and "-n 8" in presets.unmet("ranks>=8", facts, 4)


BAD_FILES = [
    ("[preset]\ntitel = 'x'\n[[case]]\nname = 'a'\n", "unknown key 'titel' (did you mean title?)"),
    ("[defaults]\n[[case]]\nname = 'a'\n", "no [preset] table"),
    ("[preset]\n[[case]]\nbackend = 'posix'\n", "needs a name"),
    ("[preset]\n[[case]]\nname = 'a'\ncolumn = 'wrte'\n", "column 'wrte' is not one of the preset's columns"),
    ("[preset]\n[[case]]\nname = 'a'\nrequires = ['lustr']\n", "requirement 'lustr' is unknown"),
    ("[preset]\ncolumns = [{ name = 'x', metric = 'speed' }]\n[[case]]\nname = 'a'\n", "metric 'speed' is unknown"),
    ("[preset]\n[[case]]\nname = 'a'\n[[reading]]\ntext = 't'\na = 'a'\nb = 'b'\nmetric = 'write'\n",
     "b = 'b' is not a case"),
    ("[preset]\nunit = 'GB/s'\n[[case]]\nname = 'a'\n", "unit 'GB/s' is unknown"),
    ("[preset]\n[[case]]\nname = 'a'\nbakend = 'posix'\n", "unknown key 'bakend'"),
    ("[preset\n", "not valid TOML"),
    ("case = 3\n[preset]\n", "'case' must be [[case]] tables"),
    ("[preset]\ncolumns = 'write'\n[[case]]\nname = 'a'\n", "columns is a list"),
    ("[preset]\n[[case]]\nname = 'a'\ncolumn = 5\n", "column is a column's name"),
    ("[preset]\n[[case]]\nname = 'a'\nmin_ranks = 'x'\n", "min_ranks must be a positive integer"),
    ("[preset]\n[[case]]\nname = 'a'\nseed = { write = [1] }\n", "a seed figure is a number"),
    ("[preset]\n[[case]]\nname = 'a'\nrequires = 3\n", "requires is a list"),
    ("[preset]\n[[case]]\nname = 'a'\n[[reading]]\ntext = 't'\na = 'a'\nb = 'a'\nmetric = 'write'\n"
     "seed_ratio = 'big'\n", "seed_ratio is a positive number"),
]


@pytest.mark.parametrize("text,match", BAD_FILES, ids=[m for _, m in BAD_FILES])
def test_a_bad_preset_file_is_one_line(tmp_path, text, match):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(ParioError) as err:
        presets.load(path)
    assert match in str(err.value) and "\n" not in str(err.value)
    run = pario(["--preset", str(path), "-n", "1", "--dir", str(tmp_path / "s")], tmp_path, timeout=60)
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0 and match in run.stderr, run.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("args,match", [
    (["--preset", "lrz-hint"], "unknown preset (did you mean lrz-hints?)"),
    (["--preset", "lrz-hints", "-a", "mpiio"], "--preset runs the cases of its file; drop --backend"),
    (["--preset", "lrz-hints", "--scale", "0"], "argument --scale: '0' is out of range"),
    (["--scale", "2"], "--scale sizes a preset"),
    (["--config", str(ROOT / "examples" / "presets" / "lrz-hints.toml")], "is a preset"),
    (["--preset", "nosuch.toml"], "no such file"),
    (["--preset", "csc-btio"], "csc-btio.toml ('blk-default'): --pattern btio needs a square number"),
])
def test_bad_preset_flags_are_one_line(tmp_path, args, match):
    run = pario([*args, "-n", "2", "--dir", str(tmp_path / "s"), "--no-probe"], tmp_path, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().count("\n") == 0 and match in run.stderr, run.stderr
    assert not (tmp_path / "s").exists()


@pytest.mark.e2e
@pytest.mark.mpi
@needs_engine
def test_an_edited_copy_runs_with_preset_file(tmp_path):
    """The user's way: copy a preset, keep two rows, change a seed figure, run the copy."""
    text = (ROOT / "examples" / "presets" / "kaust-strategies.toml").read_text()
    head, *cases = text.split("[[case]]")
    kept = [c for c in cases if 'name = "fpp"' in c or 'name = "serial"' in c]
    body = head + "".join("[[case]]" + c.split("[[reading]]")[0] for c in kept)
    body += '[[reading]]\ntext = "mine"\na = "fpp"\nb = "serial"\nmetric = "write"\nseed_ratio = 9\n'
    mine = tmp_path / "mine.toml"
    mine.write_text(body)
    run = pario(["--preset", str(mine), "--scale", str(1 / 256), "-i", "2", "-n", "2", "--dir", str(tmp_path / "s"),
                 "--json", "--no-probe"], tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    table = json.loads(run.stdout)["preset"]
    assert table["preset"] == "mine" and [r["label"] for r in table["rows"]][0].startswith("serial")
    assert len(table["rows"]) == 2 and table["readings"][0]["seed_ratio"] == 9


@pytest.mark.e2e
def test_preset_list_is_one_line_each(tmp_path):
    run = pario(["--preset", "list"], tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in run.stdout.splitlines() if ln.split(" ")[0] in presets.available()]
    assert sorted(ln.split()[0] for ln in lines) == sorted(presets.available())
    docs = json.loads(pario(["--preset", "list", "--json"], tmp_path, timeout=60).stdout)["presets"]
    assert {d["name"] for d in docs} == set(presets.available()) and all(d["path"].endswith(".toml") for d in docs)


# ---- end to end: each preset at a tiny scale ----

RANKS = {"csc-btio": 4, "kaust-smallwrites": 1}


def _lacks(reason: str) -> bool:
    """A reason this machine may legitimately give for skipping a row."""
    return any(k in reason for k in ("needs Lustre", "needs a striped file system", "needs at least", "pario buffer",
                                     "needs Cray", "nodes", "is not built", "does not stripe", "CephFS only"))


@pytest.mark.e2e
@pytest.mark.mpi
@needs_engine
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_preset_runs_at_a_tiny_scale(tmp_path, name):
    scratch = tmp_path / "s"
    ranks = RANKS.get(name, 2)
    run = pario(["--preset", name, "--scale", str(1 / 64), "-i", "2", "-n", str(ranks), "--dir", str(scratch),
                 "--json", "--no-probe"], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    doc = json.loads(run.stdout)
    table = doc["preset"]
    columns, rows = SHAPES[name]
    assert [c["name"] for c in table["columns"]] == columns
    cells = {cell["case"]: cell for row in table["rows"] for cell in row["cells"].values()}
    assert set(cells) == {case for case, _ in rows}  # every row of the seed's table, run or skipped
    skipped = {s["case"]: s["reason"] for s in table["skipped"]}
    for case, cell in cells.items():
        if case in skipped:
            assert cell["state"] == "skipped" and _lacks(skipped[case]), (case, skipped[case])
            print(f"{name}: {case} skipped here: {skipped[case]}")  # the reason, in pytest -s output
        elif cell["state"] != "note":
            assert cell["state"] == "measured" and cell["here"] and cell["here"]["median"] > 0, (case, cell)
    console = Console(width=80, record=True)  # the same table as the terminal shows, at 80 columns
    print_table(console, table, " on host, /scratch (ext4)")
    wide = [ln for ln in console.export_text().splitlines() if len(ln) > 80]
    assert not wide, "\n".join(wide)
    ran = [c for c in cells if c not in skipped]
    if not ran:  # e.g. a machine without the preset's library: each row said why
        pytest.skip(f"{name}: nothing runs on this machine: {sorted(set(skipped.values()))}")
    assert all(r["line"] for r in table["readings"])
    assert all(r["verify"] is None or r["verify"]["errors"] == 0 for r in doc["summary"])
    assert not ours(scratch)


@pytest.mark.e2e
@pytest.mark.mpi
@needs_engine
def test_preset_table_fits_80_columns_and_names_what_it_skipped(tmp_path):
    run = pario(["--preset", "kaust-striping", "--scale", str(1 / 64), "-i", "2", "-n", "2", "--dir",
                 str(tmp_path / "s"), "--no-probe"], tmp_path, timeout=300, extra_env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout.splitlines()
    assert max(len(ln) for ln in out) <= 80, "\n".join(ln for ln in out if len(ln) > 80)
    assert any(ln.startswith("Skipped 2; 4; 5; 10;") for ln in out) or any("lfs setstripe" in ln for ln in out)
    assert any(ln.startswith("Reading: 4 stripes against 1:") for ln in out)
    assert any("79" in ln and ln.split()[0] == "1" for ln in out)  # the seed's 79 s beside stripe count 1



def test_a_buffered_case_names_its_buffer(tmp_path):
    path = tmp_path / "mine.toml"
    base = '[preset]\ncolumns = ["write"]\n[defaults]\nbackend = "posix"\nops = ["write"]\n[[case]]\nname = "b"\n'
    path.write_text(base + 'buffer = "8m"\n')
    preset = presets.load(path)
    assert preset.rows[0].buffer == 8 << 20 and "pario-buffer" in preset.rows[0].requires
    facts = {"fs_type": "xfs", "hosts": 1, "flavour": "mpich", "cray": False, "io": None, "built": {}, "buffer": None}
    case = presets.plan(preset, 1, 1 / 64, facts, storage=True).cases[0]
    assert case["_buffer"] == 8 << 20                  # pario's key: the engine's spec never sees it
    path.write_text(base + 'requires = ["pario-buffer"]\n')
    with pytest.raises(ParioError, match="give the buffer size too"):
        presets.load(path)
    path.write_text(base + 'buffer = "lots"\n')
    with pytest.raises(ParioError, match="give the buffer size"):
        presets.load(path)


@pytest.mark.e2e
@pytest.mark.mpi
@needs_engine
def test_kaust_smallwrites_runs_its_buffered_half(tmp_path, tmp_path_factory):
    """The same 512 B writes unbuffered and under pario buffer (the preload library in the rank, a
    --files pattern for the buffered case's file only): both rows measured, the buffer's stats say
    it coalesced the buffered row's calls, and the reading sets the seed's 240x beside this run's."""
    run = pario(["--preset", "kaust-smallwrites", "--scale", str(1 / 64), "-i", "3", "--dir", str(tmp_path / "s"),
                 "--json", "--no-probe"], tmp_path, timeout=600,
                extra_env={"PARIO_PRELOAD": preload_lib(tmp_path_factory)})
    assert run.returncode == 0, run.stderr[-3000:]
    table = json.loads(run.stdout)["preset"]
    assert not [s for s in table["skipped"] if s["case"] in ("unbuffered", "buffered")], table["skipped"]
    cells = {c["case"]: c for row in table["rows"] for c in row["cells"].values() if c["state"] != "note"}
    for case in ("unbuffered", "buffered"):
        assert cells[case]["state"] == "measured" and cells[case]["here"]["median"] > 0
    assert cells["buffered"]["seed"] == 4.5
    note = next(n for n in table["notes"] if "pario buffer" in n)
    calls, writes = (int(x.replace(",", "")) for x in
                     __import__("re").search(r"turned ([\d,]+) write calls .* into ([\d,]+) writes", note).groups())
    assert calls == 3 * 32768 and 0 < writes < calls / 100   # 16 MiB in 512 B pwrites, 3 repetitions
    reading = next(r for r in table["readings"] if r["a"] == "buffered")
    assert "the seed saw 240x" in reading["line"]


def test_a_flag_in_the_footer_marks_its_rows():
    """'cache? (12 of 13 rows)' did not say which: each flagged row carries its flags, and the footer
    says it marks them."""
    doc = {"title": "t", "seed": "s", "setup": "x", "ranks": 2, "scale": 1.0, "row_header": "case",
           "columns": [{"name": "MB/s", "unit": "MB/s"}], "skipped": [], "readings": [], "notes": [],
           "rows": [{"label": f"row {i}", "cells": {}, "flags": ["cache?"] if i else [], "notes": []}
                    for i in range(3)]}
    console = Console(width=80, record=True)
    print_table(console, doc)
    text = console.export_text()
    assert "row 1 [cache?]" in text and "row 2 [cache?]" in text and "row 0 [" not in text, text
    assert "cache? (2 of 3 rows, marked [cache?] above)" in text
