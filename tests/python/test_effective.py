"""Requested vs effective settings: the parsers of what each MPI prints at open (outputs recorded
on this machine and in the seeds), the comparison with its reasons, and real runs under OMPIO,
ROMIO in Open MPI (romio321) and MPICH, each with a hint that must show as not applied."""
import json
from pathlib import Path

import pytest

from mpi_flavours import FLAVOURS, OPENMPI, backends, bench
from pario.settings import effective, view

DATA = Path(__file__).parent / "data" / "stack"
REQUESTED = {"cb_nodes": "4", "striping_factor": "4", "romio_cb_write": "enable",
             "cb_buffer_size": "8388608", "made_up_key": "1"}


def _collect(name, prefix="pario.t1"):
    collector = effective.OutputCollector(prefix)
    echoed = []
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("@pario "):
            collector.event(json.loads(line[len("@pario "):]))
        elif not collector.line(line):
            echoed.append(line)
    return collector.reports(), echoed


def test_romio_print_hints_of_romio321():
    reports, echoed = _collect("romio321-print-hints.txt")
    hints = reports[0][effective.ROMIO_PRINT]
    assert not echoed and len(hints) == 17
    assert hints["cb_nodes"] == "1" and hints["romio_cb_write"] == "enable" and hints["cb_config_list"] == "*:1"
    assert hints["romio_filesystem_type"].startswith("UFS:")
    rows = {r["key"]: r for r in effective.compare(REQUESTED, hints, effective.ROMIO_PRINT,
                                                   view(impl="romio", fs="ext4", ranks=2, hosts=1))}
    assert rows["romio_cb_write"]["status"] == "in effect" and rows["cb_buffer_size"]["status"] == "in effect"
    assert rows["cb_nodes"]["status"] == "not applied"
    assert "ad_open.c:build_cb_config_list" in rows["cb_nodes"]["reason"]
    assert rows["striping_factor"]["status"] == "not applied" and "not Lustre" in rows["striping_factor"]["reason"]
    assert rows["made_up_key"]["status"] == "not applied"


def test_ompio_verbose_info_parsing():
    reports, echoed = _collect("ompio-verbose.txt")
    assert not echoed
    accepted = reports[0][effective.OMPIO_VERBOSE]
    assert accepted == {"cb_buffer_size": "8388608", "cb_nodes": "4"}
    rows = {r["key"]: r for r in effective.compare(REQUESTED, accepted, effective.OMPIO_VERBOSE,
                                                   view(impl="ompio", fs="ext4", ranks=2))}
    assert rows["cb_nodes"]["status"] == "in effect"
    assert rows["romio_cb_write"]["status"] == "not applied" and "ompio ignores" in rows["romio_cb_write"]["reason"]
    assert "not Lustre" in rows["striping_factor"]["reason"]


def test_mpich_get_info_and_print_hints_agree():
    reports, _ = _collect("mpich-print-hints.txt")
    printed = reports[0][effective.ROMIO_PRINT]
    get_info = json.loads((DATA / "mpich-get-info.json").read_text())
    assert {k: v.strip() for k, v in get_info["effective"].items()} == printed
    means, eff = effective.best(get_info, reports[0], "mpich", "romio")
    assert means == effective.GET_INFO and eff["cb_nodes"] == "1"


def test_open_mpi_get_info_only_echoes():
    # With no printed report, Open MPI's MPI_File_get_info answer proves nothing: unverified.
    means, eff = effective.best({"effective": dict(REQUESTED), "source": "MPI_File_get_info"}, {}, "openmpi", None)
    assert means == effective.GET_INFO_ECHO
    rows = {r["key"]: r for r in effective.compare(REQUESTED, eff, means, view(impl=None, fs="ext4"))}
    assert rows["romio_cb_write"]["status"] == "unverified"
    assert rows["striping_factor"]["status"] == "not applied"  # known by rule even without a report


def test_seed_romio_print_hints_csc():
    hints = effective.parse_romio_print((DATA / "csc-romio-print-hints.txt").read_text().splitlines())
    assert hints["cb_nodes"] == "64" and hints["cb_buffer_size"] == "33554432" and len(hints) == 6


def test_cray_display_parser():
    # The layout of MPICH_MPIIO_HINTS_DISPLAY output in public dumps (no Cray system here).
    lines = ["PE 0: MPIIO hints for /lus/scratch/out.dat:", "          cb_buffer_size           = 16777216",
             "          cray_cb_write_lock_mode  = 2", "          striping_factor          = 12", "",
             "other output"]
    parsed = effective.parse_cray_display(lines)
    assert parsed == {"/lus/scratch/out.dat": {"cb_buffer_size": "16777216", "cray_cb_write_lock_mode": "2",
                                               "striping_factor": "12"}}


HINTS = ["--hint", "cb_nodes=4", "--hint", "striping_factor=4", "--hint", "romio_cb_write=enable",
         "--hint", "cb_buffer_size=8388608"]
CASE = ["-n", "2", "-a", "mpiio", "-c", "-t", "64k", "-b", "256k", "-w", "-r", "-i", "1"]


def _checks(doc):
    (case,) = doc["result"]["cases"]
    return case["hints"], {r["key"]: r for r in case["hints"]["check"]}, case


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("io", ["ompio", "romio321"])
def test_bench_open_mpi_components(io, tmp_path):
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("needs Open MPI and PARIO_ENGINE")
    out, doc = bench(OPENMPI, CASE + HINTS + ["--io", io], tmp_path)
    assert out.returncode == 0, out.stderr
    hints, rows, case = _checks(doc)
    assert "key = " not in out.stderr and "info: cb_nodes" not in out.stderr  # the reports were taken, not echoed
    assert rows["striping_factor"]["status"] == "not applied"
    assert "not Lustre" in rows["striping_factor"]["reason"]
    assert case["layout"]["applied"] is False and "not Lustre" in case["layout"]["reason"]
    if io == "ompio":
        assert hints["source"] == effective.OMPIO_VERBOSE
        assert rows["cb_nodes"]["status"] == "in effect" and rows["cb_buffer_size"]["status"] == "in effect"
        assert rows["romio_cb_write"]["status"] == "not applied" and "ompio ignores" in rows["romio_cb_write"]["reason"]
    else:
        assert hints["source"] == effective.ROMIO_PRINT
        assert hints["effective"]["romio_filesystem_type"].startswith("UFS")
        assert rows["romio_cb_write"]["status"] == "in effect"
        assert rows["cb_nodes"]["status"] == "not applied" and rows["cb_nodes"]["effective"] == "1"
        assert "cb_config_list" in rows["cb_nodes"]["reason"]
    assert hints["get_info"] == hints["requested"]  # Open MPI's echo, kept for the record


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("flavour", [f for f in FLAVOURS if f.id == "mpich"])
def test_bench_mpich(flavour, tmp_path):
    if "mpiio" not in backends(flavour):
        pytest.skip("mpiio not built in the MPICH engine")
    out, doc = bench(flavour, CASE + HINTS, tmp_path)
    assert out.returncode == 0, out.stderr
    hints, rows, _ = _checks(doc)
    assert hints["source"] == effective.GET_INFO and "MPICH" in doc["result"]["mpi"]["library"]
    assert rows["cb_buffer_size"]["status"] == "in effect" and rows["romio_cb_write"]["status"] == "in effect"
    assert rows["cb_nodes"]["status"] == "not applied" and rows["cb_nodes"]["effective"] == "1"
    assert rows["striping_factor"]["status"] == "not applied" and rows["striping_factor"]["effective"] is None


WRAPPER = """#!/bin/sh
# records, per engine launch of rank 0, whether the MPI was told to print its settings
if [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then
  echo "$1 romio=${ROMIO_PRINT_HINTS:-} ompio=${OMPI_MCA_io_ompio_verbose_info_parsing:-}" >> "%s"
fi
exec "%s" "$@"
"""


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("io", ["ompio", "romio321"])
def test_timed_run_never_prints_settings(io, tmp_path):
    """The settings are read in a launch of their own (`pario-engine --settings`); the timed run
    runs without the displays, even when the user's environment asks for ROMIO_PRINT_HINTS."""
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("needs Open MPI and PARIO_ENGINE")
    record, wrapper = tmp_path / "launches.txt", tmp_path / "engine.sh"
    wrapper.write_text(WRAPPER % (record, OPENMPI["engine"]))
    wrapper.chmod(0o755)
    flavour = dict(OPENMPI, engine=str(wrapper))
    (tmp_path / "d").mkdir()  # the user's: pario leaves it, so leftovers would show
    out, doc = bench(flavour, CASE + HINTS + ["--io", io, "--dir", str(tmp_path / "d")], tmp_path,
                     extra_env={"ROMIO_PRINT_HINTS": "1", "OMPI_MCA_io_ompio_verbose_info_parsing": "1"})
    assert out.returncode == 0, out.stderr
    launches = record.read_text().splitlines()
    settings = [line for line in launches if line.startswith("--settings ")]
    timed = [line for line in launches if line.endswith(".json romio= ompio=") and "--settings" not in line]
    assert len(settings) == 1 and len(timed) == 1, launches
    assert ("romio=1" if io == "romio321" else "ompio=1") in settings[0]
    hints, rows, _ = _checks(doc)
    assert hints["source"] == (effective.ROMIO_PRINT if io == "romio321" else effective.OMPIO_VERBOSE)
    assert rows["cb_buffer_size"]["status"] == "in effect"
    assert not [p for p in (tmp_path / "d").iterdir() if p.name.startswith("pario.")]  # the settings open's file too


def test_settings_launch_only_where_it_tells_something():
    from pario.platform.mpi import MPI
    from pario.run import forward
    ompi = MPI(path="mpirun", flavour="openmpi", version="4.1.4")
    mpich = MPI(path="mpiexec", flavour="mpich", version="4.0")
    mpiio, posix = {"backend": "mpiio"}, {"backend": "posix", "hints": {"cb_nodes": "1"}}
    assert forward.settings_env(ompi, "romio321", [mpiio]) == {"ROMIO_PRINT_HINTS": "1"}
    assert forward.settings_env(ompi, "romio321", [posix]) == {}
    assert forward.settings_env(ompi, "ompio", [mpiio]) == {}  # ompio reports only keys it was given
    assert forward.settings_env(ompi, None, [dict(mpiio, hints={"cb_nodes": "1"})]) == {
        "OMPI_MCA_io_ompio_verbose_info_parsing": "1"}
    assert forward.settings_env(mpich, None, [dict(mpiio, hints={"cb_nodes": "1"})]) == {}  # get_info is complete
    assert forward.timed_env({"ROMIO_PRINT_HINTS": "1", "ROMIO_HINTS": "/h", "PARIO_FAULT": "x"}) == {
        "ROMIO_HINTS": "/h", "PARIO_FAULT": "x"}


def test_settings_from_the_environment_are_collected_with_their_source(tmp_path):
    from pario.settings import envsettings
    hints_file = tmp_path / "romio.txt"
    hints_file.write_text("romio_cb_write enable\ncb_buffer_size 4194304\n")
    env = {"ROMIO_HINTS": str(hints_file), "OMPI_MCA_io_ompio_bytes_per_agg": "8388608",
           "MPICH_MPIIO_HINTS": "*:cb_nodes=2", "OMPI_MCA_btl": "self,vader", "HOME": "/root"}
    got = {(s["key"], s["value"], s["from"]) for s in envsettings.collect(env)}
    assert got == {("romio_cb_write", "enable", f"ROMIO_HINTS={hints_file}"),
                   ("cb_buffer_size", "4194304", f"ROMIO_HINTS={hints_file}"),
                   ("mca.io_ompio_bytes_per_agg", "8388608", "OMPI_MCA_io_ompio_bytes_per_agg"),
                   ("cb_nodes", "2", "MPICH_MPIIO_HINTS")}
    bad = tmp_path / "bad.txt"
    bad.write_text("cb_buffer_size 16mb\n")
    (problem,) = envsettings.collect({"ROMIO_HINTS": str(bad)})
    assert "is read as 16" in problem["problem"]


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("io", ["ompio", "romio321"])
def test_hints_set_through_the_environment_are_requested(io, tmp_path):
    """ROMIO_HINTS and OMPI_MCA_ settings are what the user asked for too: recorded as requested,
    with where they came from, and checked like --hint (they used to show as "none requested")."""
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("needs Open MPI and PARIO_ENGINE")
    hints_file = tmp_path / "romio.txt"
    hints_file.write_text("romio_cb_write enable\n")
    out, doc = bench(OPENMPI, CASE + ["--io", io], tmp_path,
                     extra_env={"ROMIO_HINTS": str(hints_file), "OMPI_MCA_io_ompio_bytes_per_agg": "8388608"})
    assert out.returncode == 0, out.stderr
    hints, rows, _ = _checks(doc)
    assert rows["romio_cb_write"]["from"] == f"ROMIO_HINTS={hints_file}"
    assert rows["mca.io_ompio_bytes_per_agg"]["from"] == "OMPI_MCA_io_ompio_bytes_per_agg"
    if io == "romio321":
        assert rows["romio_cb_write"]["status"] == "in effect"
        assert rows["mca.io_ompio_bytes_per_agg"]["status"] == "not applied"
    else:
        assert rows["romio_cb_write"]["status"] == "not applied" and "ROMIO_HINTS" in rows["romio_cb_write"]["reason"]
        assert rows["mca.io_ompio_bytes_per_agg"]["status"] == "in effect"
    import io as _io

    from rich.console import Console

    from pario.report.terminal.hints import print_hints
    buf = _io.StringIO()
    print_hints(Console(file=buf, width=200, color_system=None), doc["result"]["cases"])
    text = buf.getvalue()
    assert "none requested" not in text and "set by" in text and "ROMIO_HINTS=" in text, text
