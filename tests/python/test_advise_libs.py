"""advise at the I/O library's level on the corpus's library cases (benchmarks/advise/corpus: pario
logs of programs whose calls are known), without measuring: each library rule fires on the program
that has its defect and not on its near-miss; the rules of the layers under a library leave what the
library did on its own (PnetCDF's hints, netCDF's syncs at close, PnetCDF's second open) to it; a
library fix's two sides are two measurements, and a subarray replay is sized and scaled."""
from __future__ import annotations

import sys

import pytest

from advise_support import ROOT

sys.path.insert(0, str(ROOT / "src"))

from pario.advise import advisor, calibrate, costs, facts, read_pario, rules  # noqa: E402
from pario.advise.rules.base import Plan  # noqa: E402

CORPUS = ROOT / "benchmarks" / "advise" / "corpus"
# a calibration advise made on the machine the logs come from (5.84 us per call + 1236 MiB/s): calls
# below ~7.5 kB are small there, so netCDF's default 4 KiB chunks are
MODEL = costs.Model(write=costs.Line(c0=5.84e-6, bw=1236 * 2**20), read=costs.Line(c0=5.84e-6, bw=1236 * 2**20))


def _found(case: str) -> dict[str, list]:
    job = read_pario.read(str(CORPUS / case / "pario.log"))
    ctx = rules.Ctx(job=job, stack=facts.gather(job), model=MODEL, max_ranks=4)
    out: dict[str, list] = {}
    for c in rules.detect(ctx):
        out.setdefault(c.rule, []).append(c)
    return out


@pytest.mark.parametrize("case,near_miss,rule", [
    ("hdf5-rows", "hdf5-hyperslab", "lib-small-writes"),
    ("pnetcdf-put-each", "pnetcdf-iput-batch", "lib-small-writes"),
    ("hdf5-convert", "hdf5-hyperslab", "hdf5-collective-broken"),
    ("hdf5-tiny-chunks", "hdf5-slab-chunks", "lib-small-chunks"),
    ("netcdf4-default-chunks", "netcdf4-chunked", "netcdf4-default-chunks"),
    ("hdf5-meta-indep", "hdf5-meta-coll", "hdf5-independent-metadata"),
    ("hdf5-misaligned", "hdf5-aligned", "lib-misaligned-data"),
    ("pnetcdf-misaligned", "pnetcdf-aligned", "lib-misaligned-data"),
    ("netcdf4-misaligned", "netcdf4-aligned", "lib-misaligned-data"),
    ("adios2-per-rank", "adios2-default", "adios2-aggregators"),
])
def test_a_library_rule_fires_on_its_program_and_not_on_the_near_miss(case, near_miss, rule):
    assert rule in _found(case), case
    assert rule not in _found(near_miss), near_miss


def test_library_fixes_in_the_library_s_terms():
    rows = _found("hdf5-rows")["lib-small-writes"][0]
    assert "one hyperslab" in rows.fix.text and "H5Dwrite" in rows.fix.text
    # the replay: one independent call per 512 B piece vs the rank's pieces in one collective call
    assert rows.plan.before["pattern"] == rows.plan.after["pattern"] == "subarray"
    assert rows.plan.before["dims"] == [8192, 64] and rows.plan.before["transfer"] == 512
    assert not rows.plan.before["collective"] and rows.plan.after["collective"] and rows.plan.after["view"]
    assert rows.plan.before["lib"]["coll_metadata"] == "false"   # as the program's file had it
    pnc = _found("pnetcdf-put-each")["lib-small-writes"][0]
    assert pnc.fix.settings == {"pnetcdf.mode": "iput"} and "ncmpi_wait_all" in pnc.fix.text
    conv = _found("hdf5-convert")["hdf5-collective-broken"][0]
    assert "type conversion" not in conv.fix.text and "dataset's own type" in conv.fix.text
    # what HDF5 did instead is replayed: the pieces the MPI-IO layer saw, one independent call each
    assert conv.plan.before["transfer"] == 512 and 8192 <= conv.plan.before["dims"][0] <= 8200   # (+ metadata)
    agg = _found("adios2-per-rank")["adios2-aggregators"][0]   # 4 subfiles from 1 node on one ext4 device
    assert agg.fix.settings == {"adios2.NumAggregators": "1"} and "4 data subfiles" in agg.evidence.text
    assert '<parameter key="NumAggregators" value="1"' in agg.fix.rendered["adios2"]
    assert agg.plan.before["lib"] == {"NumAggregators": "4"} and agg.plan.after["lib"] == {"NumAggregators": "1"}
    nc = _found("netcdf4-default-chunks")["netcdf4-default-chunks"][0]
    assert "nc_def_var_chunking" in nc.fix.text and nc.fix.settings == {"netcdf4.chunk": "block"}


def test_small_calls_are_not_told_to_align():
    # 512 B rows (pieces HDF5 or PnetCDF write one by one) stay partial blocks wherever the data starts
    for case in ("hdf5-rows", "hdf5-convert", "pnetcdf-put-each"):
        assert "lib-misaligned-data" not in _found(case), case


def test_what_a_library_does_on_its_own_is_not_the_program_s_defect():
    pnc = _found("pnetcdf-aligned")
    assert "hints-not-in-effect" not in pnc      # PnetCDF's nc_* hints reach MPI_File_open too
    assert "reopen" not in pnc and "stat-calls" not in pnc   # PnetCDF's create opens twice on its root
    for case in ("netcdf4-aligned", "netcdf4-chunked"):
        assert "sync-every-write" not in _found(case)   # netCDF flushes HDF5 at enddef and close
    meta = _found("hdf5-meta-indep")
    assert "independent-writes" not in meta and "independent-reads" not in meta   # HDF5's own metadata I/O
    # the program opens the file twice, once to write (create) and once to read it back: one open per
    # run of writes or reads, as IOR's -w -r does (issue 25): not a reopen (the truth tolerates it)
    assert "reopen" not in meta


def test_the_two_sides_of_a_library_fix_are_two_measurements():
    def sig(**over):
        case = {"backend": "hdf5", "strategy": "shared", "pattern": "segmented", "xfer": 512, "block": 512,
                "segments": 8, "ops": ["write"], **over}
        return calibrate._signature(case, 4)
    assert sig(lib={"chunk": "64"}) != sig(lib={"chunk": "block"})
    assert sig(lib={"coll_metadata": "false"}) != sig(lib={"coll_metadata": "true"})
    assert sig(pattern="subarray", ldims=[8192, 64]) != sig(pattern="subarray", ldims=[2048, 64])


def test_a_subarray_plan_is_sized_and_scaled():
    before = {"backend": "hdf5", "pattern": "subarray", "dims": [8192, 64], "transfer": 512, "ops": ["write"]}
    after = {"backend": "hdf5", "pattern": "subarray", "dims": [8192, 64], "collective": True, "view": True,
             "ops": ["write"]}
    assert advisor.side_size(before) == (4 << 20, 8192)
    assert advisor.side_size(after) == (4 << 20, 4)   # one call per MiB through the view
    half = advisor.scaled(before, after, 0.5)
    assert half["dims"] == [4096, 64] and half["transfer"] == 512
    q = advisor.plan_query("lib-small-writes", Plan(ranks=4, before=before, after=after, log_s=1.0, what="x"))
    assert all(len(c["dims"]) == 2 for c in q.options().values())


def test_sides_of_other_transfer_sizes_get_a_block_both_divide():
    before = {"backend": "posix", "strategy": "fpp", "transfer": 28264, "block": 28264 * 100, "ops": ["write"]}
    after = {"backend": "posix", "strategy": "fpp", "transfer": 28672, "block": 28672 * 100, "ops": ["write"]}
    q = advisor.plan_query("misaligned", Plan(ranks=1, before=before, after=after, log_s=1.0, what="x"))
    for case in q.options().values():
        assert case["block"] % 28264 == 0 and case["block"] % 28672 == 0
