"""Presets measure what bench measures by default (suites.measures_storage): the storage, writes
synced inside the timed phase and reads of files evicted first, where `pario bench --preset
kaust-strategies` compared memory copies (5 of 6 rows `cache?`, its 'Reading: ... 9.5x' of the page
cache); a seed's row that says fsync itself keeps it; --cache asks for the page cache's figures;
the run says above its table what the figures are of."""
from __future__ import annotations

import json

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, ours, pario

# Every preset, and what the seed's rows say themselves (fsync = true: the seed timed the flush).
PRESETS = ("archer-smallfiles", "archer2-aggregators", "archer2-layers", "csc-btio", "kaust-smallwrites",
           "kaust-strategies", "kaust-striping", "lrz-hints")
RANKS = {"csc-btio": 4, "kaust-smallwrites": 1}


def _spec(name, tmp_path, *more):
    run = pario(["--preset", name, "--dry-run", "--json", "--scale", str(1 / 64), "-n", str(RANKS.get(name, 2)),
                 "--dir", str(tmp_path / "s"), *more], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(run.stdout)
    return doc["spec"]["cases"], doc["note"]


def _data(cases):
    return [c for c in cases if c.get("workload", "data") == "data"]


@pytest.mark.parametrize("name", PRESETS)
def test_a_preset_measures_the_storage_by_default(tmp_path, name):
    cases, note = _spec(name, tmp_path)
    data = _data(cases)
    assert data, cases
    for case in data:
        if "write" in case["ops"]:   # adios2's too: the engine flushes BP5's files after its close
            assert case["fsync"], case
        if {"read", "verify"} & set(case["ops"]):
            assert case.get("evict") == 1 and case.get("residency"), case
    for case in cases:               # the metadata workload: nothing to sync, the engine evicts data only
        if case.get("workload") == "metadata":
            assert not case.get("evict") and not case.get("fsync"), case
    assert "this preset measures the storage" in note and "--cache for page-cache figures" in note


@pytest.mark.parametrize("name", PRESETS)
def test_cache_asks_a_preset_for_the_page_cache_and_the_seeds_own_fsync_stays(tmp_path, name):
    cases, note = _spec(name, tmp_path, "--cache")
    own = {"kaust-striping": None, "archer-smallfiles": ("shared-1", "shared-4")}   # rows with fsync = true
    for case in _data(cases):
        seeds = name in own and (own[name] is None or case["name"] in own[name])
        assert bool(case["fsync"]) == bool(seeds), case
        assert not case.get("evict"), case
    assert "page-cache figures (--cache)" in note


def test_drop_caches_all_is_a_presets_too(tmp_path):
    """--drop-caches was taken and did nothing with --preset: it applies its level, root or not."""
    run = pario(["--preset", "kaust-strategies", "--dry-run", "--json", "--scale", str(1 / 64), "-n", "2",
                 "--drop-caches", "--cache"], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    cases = json.loads(run.stdout)["spec"]["cases"]
    assert all(c.get("evict") == 1 and not c["fsync"] for c in cases)
    run = pario(["--preset", "kaust-striping", "--dry-run", "--scale", str(1 / 64), "-n", "2", "--drop-caches"],
                tmp_path)
    assert run.returncode != 0 and "no case reads" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found")
def test_a_preset_run_says_what_its_figures_are_of(tmp_path):
    """Two ranks, a 1/64 scale: the line above the table says the storage, and --cache says the page cache."""
    scratch = tmp_path / "s"
    args = ["--preset", "kaust-strategies", "--scale", str(1 / 64), "-i", "2", "-n", "2", "--dir", str(scratch),
            "--no-probe"]
    run = pario(args, tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert ("These figures are of the storage: writes synced inside the timed phase, reads of files evicted "
            "from the page cache.") in run.stdout, run.stdout
    cached = pario([*args, "--cache", "--json"], tmp_path, timeout=300)
    assert cached.returncode == 0, cached.stderr[-2000:]
    measured = json.loads(cached.stdout)["preset"]["measured"]
    assert measured.startswith("These figures may be of the page cache: writes not synced (without --cache"), measured
    assert not ours(scratch)
