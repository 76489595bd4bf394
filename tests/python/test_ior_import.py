"""IOR 4 JSON summaries converted to pario result documents.

data/ior4-mpiio-shared.json is not captured from a real IOR run (IOR is not installed here):
it was written by hand to follow what IOR's src/ior-output.c prints with
`-O summaryFormat=JSON` (keys, nesting, "%.4f" numbers, ", \\n" separators), with
self-consistent numbers: 4 tasks x 4 segments x 16 MiB = 256 MiB per phase, bwMiB = 256 / totalTime.
"""
import json
from pathlib import Path

import pytest

from pario.analysis import summary
from pario.model.errors import ParioError
from pario.store import ior_import

DATA = Path(__file__).parent / "data"
MIB = 1 << 20


def _doc():
    return ior_import.parse_text((DATA / "ior4-mpiio-shared.json").read_text())


def test_fixture_converts_to_pario_shape():
    res = ior_import.convert(_doc())
    assert res["schema"] == "pario.result/1" and res["status"] == "complete"
    assert res["imported_from"] == "ior" and res["engine"]["version"] == "IOR 4.0.0"
    assert res["mpi"]["ranks"] == 4 and res["mpi"]["hosts"] == [{"name": "node01", "ranks": 4}]
    (c,) = res["cases"]
    assert c["name"] == "ior0-mpiio-shared"
    assert c["spec"]["backend"] == "mpiio" and c["spec"]["strategy"] == "shared"
    assert c["spec"]["collective"] is True and c["spec"]["reorder"] == -1  # IOR -C
    assert (c["xfer"], c["bytes_per_rank"], c["total_bytes"], c["files"]) == (MIB, 64 * MIB, 256 * MIB, 1)
    assert [(p["op"], p["rep"]) for p in c["phases"]] == [
        ("write", 0), ("read", 0), ("write", 1), ("read", 1), ("write", 2), ("read", 2)]
    w0 = c["phases"][0]
    assert w0["bw_mib"] == pytest.approx(624.2380, abs=1e-4)       # IOR's own figure, kept
    assert w0["open_to_close_s"] == pytest.approx(0.4101)
    assert w0["xfer_s"] == pytest.approx(0.4012)
    assert w0["xfer_bw_mib"] == pytest.approx(256 / 0.4012)
    assert w0["ops"] == 256 and w0["iops"] == pytest.approx(256 / 0.4012)
    assert w0["open_close_share"] == pytest.approx((0.0021 + 0.0068) / 0.4101)
    assert "first_done_s" not in w0  # IOR does not measure it; nothing is made up
    assert [s["operation"] for s in c["ior_summary"]] == ["write", "read"]


def test_summary_of_an_ior_run_matches_iors_own_numbers():
    doc = _doc()
    (row,) = summary.summarize(ior_import.convert(doc))
    ior_write = doc["summary"][0]
    assert row["write"]["bw_mib"]["max"] == pytest.approx(ior_write["bwMaxMIB"], abs=1e-3)
    assert row["write"]["bw_mib"]["min"] == pytest.approx(ior_write["bwMinMIB"], abs=1e-3)
    assert row["write"]["n"] == 3 and row["read"]["n"] == 3
    assert row["write"]["imbalance"] is None
    assert row["flags"] == []


def test_older_nested_iterations_and_remove_entries():
    doc = _doc()
    flat = doc["tests"][0]["Results"]
    doc["tests"][0]["Results"] = [[flat[0], flat[1], {"access": "remove", "totalTime": 0.01}],
                                  [flat[2], flat[3], {"access": "remove", "totalTime": 0.01}]]
    phases = ior_import.convert(doc)["cases"][0]["phases"]
    assert [(p["op"], p["rep"]) for p in phases] == [("write", 0), ("read", 0), ("write", 1), ("read", 1)]


def test_iteration_numbers_when_ior_gives_them():
    doc = _doc()
    for k, entry in enumerate(doc["tests"][0]["Results"]):
        entry["iter"] = 2 - k // 2   # listed newest first
    phases = ior_import.convert(doc)["cases"][0]["phases"]
    assert [(p["op"], p["rep"]) for p in phases][:2] == [("write", 2), ("read", 2)]


def test_tolerates_log_lines_and_nan():
    text = (DATA / "ior4-mpiio-shared.json").read_text().replace('"latency": 0.0063', '"latency": nan', 1)
    assert "nan" in text
    doc = ior_import.parse_text("IOR-4.0.0: MPI Coordinated Test of Parallel I/O\n" + text)
    assert doc["tests"][0]["Results"][0]["latency"] is None


def test_stonewalled_phase_counts_what_ior_moved():
    doc = _doc()
    entry = doc["tests"][0]["Results"][0]
    entry["bwMiB"] = 100.0          # IOR's bw says 100 MiB/s over 0.4101 s: 41 MiB moved, not 256
    phase = ior_import.convert(doc)["cases"][0]["phases"][0]
    assert phase["bytes"] == int(100.0 * MIB * 0.4101)


@pytest.mark.parametrize("text, message", [
    ("no json here", "holds no JSON object"),
    ('{"Version": "4.0.0", "tests": [', "is not valid JSON"),
    ('{"jobs": []}', "not IOR's summary"),
    (json.dumps({"Version": "4.0.0", "tests": [{"TestID": 0, "Parameters": {}, "Results": []}]}),
     "no per-iteration results"),
])
def test_bad_input_is_one_line(text, message):
    with pytest.raises(ParioError) as err:
        ior_import.convert(ior_import.parse_text(text, where="x.json"))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_env_and_command():
    doc = _doc()
    env = ior_import.env_of(doc, "/tmp/x.json")
    assert env["tool"] == "ior" and env["ranks"] == 4 and env["dir"] == "/scratch/alice/ior"
    assert ior_import.command_of(doc).startswith("ior -a MPIIO -c -t 1m")


def test_a_real_ior_4_0_0_summary():
    # data/ior-4.0.0-real-mpiio-coll.json: written by IOR 4.0.0 (hpc/ior tag 4.0.0, built outside
    # this repository) on the project VM: `mpirun -n 4 ior -a MPIIO -c -t 1m -b 64m -i 3 -w -r
    # -O summaryFormat=JSON -O summaryFile=F -o /var/tmp/iortrial/f`
    doc = ior_import.parse_text((DATA / "ior-4.0.0-real-mpiio-coll.json").read_text())
    res = ior_import.convert(doc)
    (c,) = res["cases"]
    assert res["engine"]["version"] == "IOR 4.0.0" and res["mpi"]["ranks"] == 4
    assert res["mpi"]["hosts"] == [{"name": "vm", "ranks": 4}]
    assert c["spec"]["collective"] is True and c["total_bytes"] == 256 * MIB and c["xfer"] == MIB
    assert [(p["op"], p["rep"]) for p in c["phases"]] == [("write", 0), ("read", 0), ("write", 1), ("read", 1),
                                                         ("write", 2), ("read", 2)]
    (row,) = summary.summarize(res)
    ior_write = next(s for s in doc["summary"] if s["operation"] == "write")
    assert row["write"]["bw_mib"]["max"] == pytest.approx(ior_write["bwMaxMIB"], rel=1e-3)
    assert all(p["xfer_bw_mib"] >= p["bw_mib"] for p in c["phases"])  # transfer-only excludes open and close
