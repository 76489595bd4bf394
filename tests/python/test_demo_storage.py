"""`make demo` (the default suite) measures the storage: every figure of a newcomer's first table was
`cache?`, memory copies compared. Writes are synced inside the timed phase and reads are of files
evicted first (as any user), the run says so before its table, and `--cache` asks for the page cache's
figures; a case of the user's own runs as its flags say."""
import json

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, pario
from pario.model.errors import ParioError
from pario.plan import suites
from pario.report.terminal.bench import measured_line
from test_spec import cases_of

LISTING = {"backends": [{"name": "posix", "built": True}, {"name": "mpiio", "built": True}]}


def test_the_default_suite_syncs_its_writes_and_evicts_before_its_reads():
    cases = cases_of([], ranks=2, listing=LISTING)
    assert cases and all(c["fsync"] and c["evict"] == 1 and c["residency"] for c in cases)
    assert measured_line([{"spec": c} for c in cases]).startswith("These figures are of the storage: writes synced")
    cached = cases_of(["--cache"], ranks=2, listing=LISTING)
    assert not any(c["fsync"] or c.get("evict") for c in cached)
    assert measured_line([{"spec": c} for c in cached]).startswith("These figures may be of the page cache")
    written = cases_of(["-w"], ranks=2, listing=LISTING)   # nothing read: nothing to evict
    assert all(c["fsync"] and not c.get("evict") for c in written)
    everything = cases_of(["--drop-caches"], ranks=2, listing=LISTING)   # the command line's level then
    assert not any(c.get("evict") for c in everything) and all(c["fsync"] for c in everything)


def test_the_note_says_what_the_suite_measures_and_cache_is_for_the_suite():
    note = suites.storage_note(True, {"fsync": True}, ["write", "read"])
    assert "measures the storage" in note and "--cache for page-cache figures" in note
    assert "page-cache figures (--cache)" in suites.storage_note(False, {}, ["write", "read"])
    with pytest.raises(ParioError, match="--cache asks a suite"):
        cases_of(["--cache", "-a", "mpiio"], ranks=2, listing=LISTING)
    # sized for the storage's pace: half the slower direction of the O_DIRECT probe, not its write rate
    assert suites.storage_rate({"write_mib": 2074.0, "read_mib": 892.0}, cache=False) == 446.0
    assert suites.storage_rate({"write_mib": 2074.0, "read_mib": 892.0}, cache=True) == 2074.0


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")
def test_the_demo_has_no_cache_flag_with_the_probe(tmp_path):
    """The default suite with the device probe, as `make demo` runs it (small): no figure is `cache?`;
    the same with --cache is figures that may be the page cache's, and says so."""
    run = pario(["-n", "2", "--size", "16m", "-i", "2", "-w", "-r", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads(run.stdout)
    flags = [f for r in doc["summary"] for f in r.get("flags") or []]
    assert "cache?" not in flags, doc["summary"]
    assert "measures the storage" in doc["sizes"]
    shown = pario(["show", "last"], tmp_path, command="results")
    assert "cache?" not in shown.stdout


def test_the_layers_suite_measures_the_storage_too():
    """Every row of a layers run was `cache?`: its writes are synced (adios2's too: the engine flushes
    BP5's files after its close) and its reads evicted; --cache asks for the page cache's."""
    listing = {"backends": [{"name": n, "built": True} for n in ("mpiio", "hdf5", "adios2")]}
    cases = cases_of(["--suite", "layers"], ranks=2, listing=listing)
    assert all(c["evict"] == 1 for c in cases)
    assert all(c["fsync"] for c in cases)
    cached = cases_of(["--suite", "layers", "--cache"], ranks=2, listing=listing)
    assert not any(c["fsync"] or c.get("evict") for c in cached)
