"""A profile with the I/O libraries (the advise corpus's logs of HDF5, PnetCDF and NetCDF-4
programs, benchmarks/advise/corpus): `pario profile show` sums the I/O time at the layer the
program called (a library's time holds the layers under it, which are not added again), says
which layer the I/O came from even when a library made no data call (HDF5's metadata alone), and
the report's page has the figures of the terminal's library tables (the same objects)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pario.analysis.profile import load, summary
from pario.report.html import build
from pario.report.html.page import render
from pario.report.terminal import profile as profile_view
from table_support import console, text_of
from test_page_terminal_parity import page_text, same_figures

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "advise" / "corpus"


def _rows(s, path):
    return {f["module"]: f for f in s["files"] if f["path"] == path}


@pytest.mark.parametrize("case,library,module", [("hdf5-rows", "HDF5", "h5f"), ("pnetcdf-put-each", "PnetCDF",
                                                                                   "pnetcdf_file"),
                                                  ("netcdf4-default-chunks", "NetCDF", "netcdf_file")])
def test_io_time_is_summed_at_the_library_s_layer(case, library, module):
    s = summary(load(str(CORPUS / case / "pario.log")))
    job = s["job"]
    path = next(f["path"] for f in s["files"] if f["module"] == module)
    top = _rows(s, path)[module]
    assert job["time_interface"] == library and job["time_layers"] == [library.lower()]
    assert job["io_time_sum"] == pytest.approx(top["read_time"] + top["write_time"] + top["meta_time"])
    under = _rows(s, path)["mpiio"]   # the MPI-IO calls under the library: inside its time, not added
    assert job["io_time_sum"] > under["read_time"] + under["write_time"] + under["meta_time"]
    con = console(100)
    profile_view.show(s, console=con)
    assert f"I/O time, summed ({library}, the layers under it not added again)" in " ".join(text_of(con).split())


def test_a_log_without_a_library_sums_its_top_interface():
    s = summary(load(str(CORPUS / "coll-large" / "pario.log")))
    assert s["job"]["time_interface"] == "mpiio" and s["job"]["time_layers"] == ["mpiio"]


def test_a_library_that_made_only_metadata_i_o_is_the_layer():
    s = summary(load(str(CORPUS / "hdf5-meta-indep" / "pario.log")))   # datasets created and opened, no data
    assert s["job"]["application_layer"]["layer"] == "hdf5" and s["job"]["time_interface"] == "HDF5"


@pytest.mark.parametrize("case", ["hdf5-rows", "pnetcdf-put-each", "netcdf4-default-chunks", "hdf5-convert"])
def test_the_library_tables_have_the_same_figures_on_the_page(case):
    doc = load(str(CORPUS / case / "pario.log"))
    con = console(250)
    profile_view.show(summary(doc), console=con)
    page = render(build(profiles=[("pario.log", doc)]))
    same_figures(text_of(con), page_text(page, "profile1-section"), page_only={"1", "2"})
