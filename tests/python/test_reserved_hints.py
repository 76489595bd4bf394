"""Legal hints are passed on, not refused: the MPI standard's reserved file-info keys and
implementation keys such as GPFS's IBM_largeblock_io are accepted by `pario bench` and
`pario settings check`, with a note where this MPI does not act on them."""
import json

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, bench_json
from pario.settings import hints as hintlib
from pario.settings.check import findings

# MPI-4.0 section 14.2.8 (reserved file hints) and one implementation key
LEGAL = {"access_style": "write_once,sequential", "nb_proc": "4", "num_io_nodes": "2", "io_node_list": "n1,n2",
         "cb_block_size": "1048576", "file_perm": "0644", "chunked": "1024,1024", "chunked_item": "8",
         "chunked_size": "4096,4096", "IBM_largeblock_io": "true"}


def test_reserved_and_implementation_keys_are_known():
    for key, value in LEGAL.items():
        assert hintlib.mpi_value(key, value) == (value, None), key
    assert hintlib.mpi_value("nb_proc", "4k")[1] and hintlib.mpi_value("IBM_largeblock_io", "yes")[1]
    assert hintlib.lookup("filename").kind == "output"  # set by the implementation, read-only


@pytest.mark.parametrize("impl", ["romio", "ompio"])
def test_settings_check_accepts_them_with_notes(impl):
    text = "".join(f"{k} {v}\n" for k, v in LEGAL.items())
    found = findings(text, {"impl": impl, "fs": "ext4"})
    assert not [f for f in found if f["level"] == "error"], found
    notes = {f["message"].split(":")[0]: f for f in found}
    for key in LEGAL:
        assert notes[key]["level"] in ("note", "warning"), key
    assert "reserved by the MPI standard" in notes["access_style"]["message"]
    assert "GPFS" in notes["IBM_largeblock_io"]["message"]


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")
def test_bench_passes_them_on(tmp_path):
    args = ["-a", "mpiio", "-n", "2", "-t", "64k", "-b", "256k", "-i", "1", "-w", "--dir", str(tmp_path / "s")]
    for key in ("access_style", "IBM_largeblock_io", "nb_proc"):
        args += ["--hint", f"{key}={LEGAL[key]}"]
    run, doc = bench_json(args, tmp_path)
    assert run.returncode == 0, run.stderr
    (case,) = doc["result"]["cases"]
    assert case["hints"]["requested"]["access_style"] == "write_once,sequential"
    checks = {c["key"]: c for c in case["hints"]["check"]}
    assert checks["access_style"]["status"] == "not applied" and "reserved" in checks["access_style"]["reason"]
    assert "GPFS" in checks["IBM_largeblock_io"]["reason"]
    json.dumps(doc)
