"""The winner's dialects, and pario tune under MPICH (so Cray MPICH, Intel MPI): the space is
ROMIO's hints, Open MPI's MCA knobs are said to be out and why, and the winner renders in the
dialects MPICH reads, never Open MPI's; a dialect that can say none of a winner's settings shows
nothing rather than a skeleton."""
import io

import pytest

from engine_support import ENGINE
from pario.model.errors import ParioError
from pario.model.tuning import TuningSession
from pario.report.terminal import tune as tune_report
from pario.settings import parse, render
from pario.tune import verdict
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.search import Budget, Search
from pario.tune.space import Context
from test_tune_search import CAPS, CASE, Synthetic, space


def mpich_space(only=None):
    return build(Context(backend="mpiio", strategy="shared", collective=True, ops=("write",), objective="write",
                         ranks=4, xfer=1 << 20, block=16 << 20, caps=CAPS, flavour="mpich", impl="romio",
                         romio_component=None), only)


def test_the_space_is_romio_hints_and_says_why_the_mca_knobs_are_out():
    sp = mpich_space()
    keys = [k.key for k in sp.knobs]
    assert "romio_cb_write" in keys and "cb_config_list" in keys
    assert not [k for k in keys if k.startswith("mca.")]
    out = {d.key: d.reason for d in sp.dropped}
    assert "this MPI is mpich" in out["mca.io"] and "this MPI is mpich" in out["mca.fcoll"]
    with pytest.raises(ParioError, match="--space mca.io: not searched .*this MPI is mpich"):
        mpich_space(["mca.io"])


def test_the_winner_renders_for_mpich_and_cray_not_for_open_mpi():
    sp = mpich_space()

    def rate(eff):   # collective buffering off wins
        return 900.0 if eff.get("romio_cb_write") == "disable" and eff.get("strategy") == "shared" else 300.0

    s = TuningSession(id=1, case=CASE, objective="write", ranks=4, space=sp.values(), seed=0)
    Search(sp, Synthetic(sp, rate), s, Budget(trials=14)).run(guesses(sp))
    w = verdict.conclude(s, sp, CASE, 4)
    assert w.verdict == "faster" and w.settings == {"romio_cb_write": "disable"}
    assert "romio_cb_write disable" in w.rendered["romio"]
    assert w.rendered["cray"].startswith("export MPICH_MPIIO_HINTS=") and "romio_cb_write=disable" in w.rendered["cray"]
    assert not [d for d in w.rendered if d.startswith("ompi")]
    s.winner = w
    out = io.StringIO()
    tune_report.winner(s, out)
    assert "OMPI_MCA" not in out.getvalue() and "--mca" not in out.getvalue() and "OMPI" not in w.bench_flags


def test_a_dialect_that_says_none_of_the_settings_renders_nothing():
    """Under Open MPI a winner of mca.io alone rendered `{}` as MPI_Info and a bare ADIOS2 XML."""
    sp = space()
    s = TuningSession(id=1, case=CASE, objective="write", ranks=4, space=sp.values(), seed=0)
    Search(sp, Synthetic(sp, lambda eff: 900.0 if eff.get("mca.io") == "romio321" else 300.0), s,
           Budget(trials=12)).run(guesses(sp))
    w = verdict.conclude(s, sp, CASE, 4)
    assert w.settings == {"mca.io": "romio321"}
    assert w.rendered["info"] == "" and w.rendered["adios2"] == "" and w.untranslated["info"] == ["mca.io"]
    assert "--mca io romio321" in w.rendered["ompi"]
    s.winner = w
    out = io.StringIO()
    tune_report.winner(s, out)
    info = out.getvalue().split("## info")[1].split("## romio")[0]
    assert "{}" not in info and "(no equivalent in this dialect: mca.io)" in info   # main: said by name



@pytest.mark.skipif(not ENGINE, reason="the hdf5.* settings keys come from the engine's listing (make setup)")
def test_an_hdf5_winner_renders_as_c_that_reads_back():
    """tune's hdf5.alignment values are sizes such as 1m: the HDF5 dialect printed
    `H5Pset_alignment(fapl, 1, 1m);`, which is not C and which its own parser could not read back."""
    sp = build(Context(backend="hdf5", strategy="shared", collective=True, ops=("write",), objective="write",
                       ranks=4, xfer=1 << 20, block=16 << 20, caps=CAPS))
    settings = verdict.winner_settings(sp, {**sp.default(), "hdf5.alignment": "1m"})
    text = render(settings, "hdf5")
    assert "H5Pset_alignment(fapl, 1, 1048576);" in text
    back, issues = parse(text, "hdf5")
    assert not issues and back.lib["hdf5"]["alignment"] == "1048576"
