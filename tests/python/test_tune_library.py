"""tune.knobs: the library layers' knobs (HDF5, PnetCDF, netCDF-4, ADIOS2) of a case, as a newcomer
tunes a job-file case that sets some of them itself. Pure: no MPI."""
from pario.tune.knobs import build, context
from pario.tune.prior import guesses
from pario.tune.space import DEFAULT, Context

CAPS = frozenset({"collective", "shared", "view", "hints"})


def ctx(**over):
    base = dict(backend="pnetcdf", strategy="shared", collective=True, ops=("write",), objective="write",
                ranks=2, xfer=1 << 20, block=4 << 20, caps=CAPS)
    base.update(over)
    return Context(**base)


def test_a_case_that_sets_a_library_knob_has_it_as_its_default_not_as_a_candidate():
    # examples/layers.toml's pnetcdf-iput (lib = {mode = "iput"}): the space offered "default, iput, bput"
    # and the first guess was pnetcdf.mode=iput, the default re-run under another name
    sp = build(ctx(lib={"mode": "iput"}))
    assert sp.knob("pnetcdf.mode").values == ("iput", "blocking", "bput")
    default = sp.canonical(sp.default())
    assert all(sp.canonical(g) != default for g, _ in guesses(sp))
    assert len(sp.grid()) == len({sp.canonical(c) for c in sp.grid()})
    h5 = build(ctx(backend="hdf5", lib={"alignment": "1048576", "chunk": "block"}))
    assert h5.knob("hdf5.alignment").values == ("1048576", "4m")    # 1m is the case's own alignment
    assert h5.knob("hdf5.chunk").values == ("block", "none")
    plain = build(ctx())
    assert plain.knob("pnetcdf.mode").values == (DEFAULT, "iput", "bput")


def test_a_library_knob_with_nothing_else_to_try_is_left_out_with_the_reason():
    sp = build(ctx(backend="adios2", collective=False, ranks=1, caps=frozenset({"shared"}),
                   lib={"NumAggregators": "1"}))
    assert sp.knob("adios2.NumAggregators") is None
    assert "the case sets 1" in {d.key: d.reason for d in sp.dropped}["adios2.NumAggregators"]


def test_the_case_library_settings_reach_the_context_and_round_trip():
    case = {"backend": "pnetcdf", "strategy": "shared", "collective": True, "ops": ["write"], "xfer": 1 << 20,
            "block": 4 << 20, "lib": {"mode": "bput", "var_align": "1m"}}
    c = context(case, 2, {"mpi": {"flavour": "openmpi", "mpiio": "ompio"}}, sorted(CAPS), "write", None)
    assert c.lib == {"mode": "bput", "var_align": "1m"}
    assert Context.from_dict(c.to_dict()) == c
    assert Context.from_dict({k: v for k, v in c.to_dict().items() if k != "lib"}).lib == {}  # older sessions


def test_no_guess_gives_a_library_reason_the_case_already_follows():
    # pnetcdf-iput's first guess became "io=romio321: non-blocking puts aggregate requests (CSC seed)"
    for sp in (build(ctx(lib={"mode": "iput"})),
               build(ctx(backend="adios2", collective=False, caps=frozenset({"shared"}), lib={"NumAggregators": "2"})),
               build(ctx(backend="hdf5", fs="lustre", osts=4, lib={"alignment": "1m"}))):
        whys = [why for _, why in guesses(sp)]
        assert not [w for w in whys if "non-blocking puts" in w or "BP5 aggregators" in w or "align objects" in w], whys
    assert "non-blocking puts" in guesses(build(ctx()))[0][1]


def test_space_file_library_values_are_checked_before_anything_runs():
    # `[space] "pnetcdf.mode" = ["xput"]` started a session whose trial failed ('not runnable'), exit 0
    import pytest

    from pario.model.errors import ParioError
    for backend, key, value, words in (("pnetcdf", "pnetcdf.mode", "xput", "must be one of"),
                                       ("hdf5", "hdf5.alignment", "0", "out of range")):
        with pytest.raises(ParioError, match=words) as err:
            build(ctx(backend=backend), None, {key: [value]})
        assert key in str(err.value) and "\n" not in str(err.value)
    assert build(ctx(backend="hdf5"), None, {"hdf5.alignment": ["64k"]}).knob("hdf5.alignment").values == \
        (DEFAULT, "64k")


def test_resuming_an_exhausted_session_says_so_once():
    # adios2 (3 configurations) resumed with more trials three times showed
    # "note: every configuration of the space was measured" four times
    from pario.model.tuning import TuningSession
    from pario.tune.search import Budget, Search
    from test_tune_search import Synthetic
    sp = build(ctx(backend="adios2", collective=False, caps=frozenset({"shared"})))
    s = TuningSession(id=1, case={"name": "shared-adios2"}, objective="write", ranks=2, space=sp.values())
    for trials in (12, 16, 20):
        s = TuningSession.from_dict(s.to_dict())
        Search(sp, Synthetic(sp, lambda eff: 900.0 if eff.get("adios2.NumAggregators") == "2" else 400.0), s,
               Budget(trials=trials)).run(guesses(sp))
    assert s.notes.count("every configuration of the space was measured") == 1, s.notes


def test_netcdf4_has_its_storage_knob():
    # the netCDF-4 layer had no knob of its own: `--space netcdf4.chunk` was "not a knob of this case"
    sp = build(ctx(backend="netcdf4"))
    assert sp.knob("netcdf4.chunk").values == (DEFAULT, "block")
    assert sp.settings_of({**sp.default(), "netcdf4.chunk": "block"}).lib == {"netcdf4": {"chunk": "block"}}
    assert build(ctx(backend="netcdf4"), ["netcdf4.chunk"]).values() == {"netcdf4.chunk": [DEFAULT, "block"]}


def test_a_library_setting_outside_the_default_space_can_be_searched():
    # `--space hdf5.coll_metadata` and a space file's hdf5.sieve_buf_size were "not a knob of this case"
    import pytest

    from pario.model.errors import ParioError
    h5 = ctx(backend="hdf5")
    assert build(h5, ["hdf5.coll_metadata"]).knob("hdf5.coll_metadata").values == (DEFAULT, "false")
    assert build(h5, None, {"hdf5.sieve_buf_size": ["1m"]}).knob("hdf5.sieve_buf_size").values == (DEFAULT, "1m")
    with pytest.raises(ParioError, match="space file"):
        build(h5, ["hdf5.sieve_buf_size"])        # a size: the values to try are the user's
    with pytest.raises(ParioError, match="is not a size"):
        build(h5, None, {"hdf5.sieve_buf_size": ["lots"]})
    with pytest.raises(ParioError, match="a setting of the hdf5 layer; this case runs -a pnetcdf"):
        build(ctx(), ["hdf5.coll_metadata"])      # another layer's setting: it said "not a knob of this case"
