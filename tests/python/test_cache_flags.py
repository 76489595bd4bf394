"""The page-cache flags follow what is known: O_DIRECT figures are never "page cache", a read
whose residency was measured says the measured residency, and the device ceiling is probed with
as many streams as the run has ranks on a host (or the footer says how many it had)."""
import io
import json

import pytest
from rich.console import Console

from pario.analysis import summary
from pario.platform import ceiling as ceiling_mod
from pario.report.terminal import tables
from result_factory import case, result, validate

GIB = 1 << 30
CEILING = {"ceiling": {"write_mib": 500.0, "read_mib": 700.0, "streams": 1}}


def _rows(*cases, env=None, **kw):
    doc = result(*cases, **kw)
    validate(doc)
    return summary.summarize(doc, env)


def _text(rows):
    buf = io.StringIO()
    tables.print_summary(Console(file=buf, width=200, color_system=None), rows)
    return buf.getvalue()


def _with_cache(c, resident, evicted="files"):
    """Attach what the engine measured before each read phase (schemas/result.schema.json cache)."""
    reads = [p for p in c["phases"] if p["op"] in ("read", "verify")]
    for p, share in zip(reads, resident):
        p["cache"] = {"evicted": evicted, "resident": share, "resident_max_host": share,
                      "resident_pages": int(share * 1000), "pages": 1000, "seconds": 0.01}
    return c


def test_odirect_figures_are_never_page_cache():
    # the trial: -F --odirect -n 2, two ranks together beat the single-stream probe
    (row,) = _rows(case("fpp-posix", 0, odirect=True, write=[900.0, 950.0, 1000.0], read=[800.0, 900.0, 850.0]),
                   env={**CEILING, "mem_total": 24 * GIB})
    assert "cache?" not in row["flags"] and "warm" not in row["flags"]
    assert row["write"]["flags"] == [] and row["read"]["flags"] == []
    assert row["cache_details"] == ["O_DIRECT: write 3/3, read 3/3 above the 1-stream probe (not page cache)"]


def test_measured_cold_reads_say_their_residency_not_cache():
    c = _with_cache(case("fpp-posix", 0, write=[400.0, 410.0, 420.0], read=[900.0, 950.0, 1000.0]), [0.0, 0.001, 0.0])
    (row,) = _rows(c, env={**CEILING, "mem_total": 24 * GIB})
    assert row["read"]["flags"] == ["cold"] and "warm" not in row["flags"] and "cache?" not in row["read"]["flags"]
    assert row["read"]["resident"] == {"samples": [0.0, 0.001, 0.0], "max": 0.001, "evicted": "files"}
    text = _text([row])
    assert "Page cache before the reads (measured with mincore)" in text
    assert "fpp/posix read: 0% resident before each of 3 repetitions (evicted: fsync + POSIX_FADV_DONTNEED)" in text


def test_evicted_verify_reads_are_cold_not_warm():
    """A write + verify case (-w -W, the presets of ARCHER2 and CSC) whose verify phases read files
    evicted first was 'warm' (reads may come from page cache): the residency measured says cold."""
    c = _with_cache(case("shared-mpiio", 0, write=[400.0, 410.0, 420.0], verify_errors=0), [0.0, 0.0, 0.002])
    (row,) = _rows(c, env={**CEILING, "mem_total": 24 * GIB})
    assert "cold" in row["flags"] and "warm" not in row["flags"], row["flags"]
    warm = _with_cache(case("shared-mpiio", 0, write=[400.0, 410.0, 420.0], verify_errors=0), [0.0, 0.9, 0.9])
    (row,) = _rows(warm, env={**CEILING, "mem_total": 24 * GIB})
    assert "cached" in row["flags"] and "warm" not in row["flags"], row["flags"]
    (row,) = _rows(case("shared-mpiio", 0, write=[400.0, 410.0, 420.0], verify_errors=0),
                   env={**CEILING, "mem_total": 24 * GIB})
    assert "warm" in row["flags"]   # nothing measured: still suspected


def test_measured_warm_reads_are_known_cached():
    # --reuse with two repetitions: the first reads cold, the second what the first cached
    c = _with_cache(case("fpp-posix", 0, read=[300.0, 5000.0, 5200.0]), [0.0, 1.0, 1.0], evicted="none")
    (row,) = _rows(c, env={**CEILING, "mem_total": 24 * GIB})
    assert row["read"]["flags"] == ["cached"] and "cache?" not in row["read"]["flags"]
    assert "fpp/posix read: 0%, 100%, 100% resident before repetitions 1-3" in _text([row])


def test_the_footer_names_the_streams_of_the_ceiling():
    rows = _rows(case("fpp-posix", 0, write=[900.0, 950.0, 1000.0]), env={**CEILING})
    assert "(ceiling: O_DIRECT probe with 1 stream; this run has 4 ranks on a host)" in _text(rows)


def test_the_probe_runs_as_many_streams_as_the_run(tmp_path, monkeypatch):
    calls = []

    class Done:
        returncode, stdout = 0, json.dumps({"odirect": True, "bytes": 1 << 26, "streams": 4, "write_mib": 1.0,
                                            "read_mib": 2.0})

    def fake_run(argv, **kw):
        calls.append(argv)
        return Done

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(ceiling_mod.subprocess, "run", fake_run)
    got = ceiling_mod.device_ceiling("/bin/engine", str(tmp_path), streams=4)
    assert calls[0][:5] == ["/bin/engine", "--probe", str(tmp_path), "--streams", "4"]
    assert got["streams"] == 4 and got["source"] == "probe"
    # cached per number of streams: one stream is probed again
    ceiling_mod.device_ceiling("/bin/engine", str(tmp_path), streams=4)
    ceiling_mod.device_ceiling("/bin/engine", str(tmp_path), streams=1)
    assert len(calls) == 2 and calls[1][4] == "1"


@pytest.mark.parametrize("resident", [[0.0], [0.3]])
def test_old_reuse_facts_still_count_when_phases_have_none(resident):
    env = {"mem_total": 24 * GIB, "reuse": {"resident": {"0": resident[0]}}}
    (row,) = _rows(case("fpp-posix", 0, read=[300.0]), env=env)
    assert ("warm" in row["flags"]) == (resident[0] > 0.05)
