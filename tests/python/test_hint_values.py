"""One validator of MPI-IO hint values, used by every command: what `pario settings check`
reports for a hints file is what `pario bench --hints-file` does with it, and a value the MPI
would misread is an error in both. ROMIO reads integer hints with atoi and compares the
enable/disable/automatic and true/false values with strcmp against the lower- or upper-case
spelling only (adio/common/hint_fns.c); measured on this machine: OMPIO takes cb_nodes=0x10 as 0
and dies of a divide-by-zero, ROMIO (Open MPI romio321 and MPICH 4.0.2) aborts at open with "Out
of memory" on cb_buffer_size=-1."""
import pytest

from cli_support import ENGINE, HAVE_MPIRUN, pario
from pario.model.errors import ParioError
from pario.plan.cases import read_hints_file
from pario.settings import hints as hintlib
from pario.settings.check import findings

# (key, value as written in the file, what the MPI does with it: None when fine, else a phrase of the error)
TRICKY = [
    ("cb_buffer_size", "16mb", "as 16"),
    ("cb_buffer_size", "1e6", "as 1"),
    ("cb_buffer_size", "0x10", "as 0"),
    ("cb_buffer_size", "4m", "as 4"),
    ("cb_buffer_size", "-1", "from 1 to"),
    ("cb_buffer_size", "16777216", None),
    ("cb_buffer_size", "+16777216", None),
    ("cb_nodes", "0x10", "as 0"),
    ("cb_nodes", "2.5", "as 2"),
    ("cb_nodes", "4", None),
    ("striping_factor", "-1", None),
    ("romio_cb_write", "enable", None),
    ("romio_cb_write", "ENABLE", None),
    ("romio_cb_write", "Enable", "strcmp"),
    ("romio_cb_write", "on", "must be one of"),
    ("romio_no_indep_rw", "True", "strcmp"),
]
STACK = {"impl": "romio", "fs": "ext4"}


def _bench_verdict(tmp_path, key, value):
    path = tmp_path / f"hints-{abs(hash((key, value)))}"
    path.write_text(f"{key} {value}\n")
    try:
        read_hints_file(str(path))  # what bench --hints-file reads (bounded, then checked)
        return None
    except ParioError as exc:
        return str(exc)


def _check_verdict(key, value):
    errors = [f["message"] for f in findings(f"{key} {value}\n", STACK) if f["level"] == "error"]
    return errors[0] if errors else None


@pytest.mark.parametrize("key,value,problem", TRICKY, ids=[f"{k}={v}" for k, v, _ in TRICKY])
def test_settings_check_and_bench_hints_file_agree(tmp_path, key, value, problem):
    bench, check = _bench_verdict(tmp_path, key, value), _check_verdict(key, value)
    if problem is None:
        assert bench is None and check is None, (bench, check)
    else:
        assert bench and check and problem in bench and problem in check, (bench, check)
        # the same words: one validator behind both (bench prefixes file:line)
        assert check in bench


def test_a_leading_space_is_what_atoi_skips():
    assert hintlib.mpi_value("cb_buffer_size", " 4") == ("4", None)
    assert hintlib.mpi_value("cb_buffer_size", "16mb")[1].startswith("cb_buffer_size='16mb' is read as 16")


def test_settings_check_no_longer_calls_16mb_the_default(tmp_path):
    # the issue: `cb_buffer_size 16mb` was "ROMIO's default" for settings check, refused by bench
    out = findings("cb_buffer_size 16mb\n", STACK)
    assert [f["level"] for f in out] == ["error"] and "default" not in out[0]["message"]
    assert "16777216" in out[0]["message"]  # what to write instead


@pytest.mark.e2e
def test_both_commands_on_the_same_file(tmp_path):
    path = tmp_path / "romio.txt"
    path.write_text("romio_cb_write enable\ncb_buffer_size 16mb\n")
    check = pario(["check", str(path), "--io", "romio321"], tmp_path, command="settings")
    assert check.returncode == 1 and "romio.txt:2: error: cb_buffer_size='16mb' is read as 16" in check.stdout
    if ENGINE and HAVE_MPIRUN:
        bench = pario(["-a", "mpiio", "-n", "1", "--hints-file", str(path), "--no-probe",
                       "--dir", str(tmp_path / "s")], tmp_path)
        assert bench.returncode == 2 and f"{path}:2: cb_buffer_size='16mb' is read as 16" in bench.stderr
