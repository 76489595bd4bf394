"""tune.knobs/tune.space/tune.prior: the default space of a case on a stack, its tree, canonical forms,
the knobs left out and why, and the knowledge-based guesses. Pure: no MPI."""
import pytest

from pario.model.errors import ParioError
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.space import DEFAULT, Context

CAPS = frozenset({"collective", "shared", "view", "hints"})


def ctx(**over):
    base = dict(backend="mpiio", strategy="shared", collective=True, ops=("write", "read"), objective="write",
                ranks=4, xfer=1 << 20, block=16 << 20, caps=CAPS)
    base.update(over)
    return Context(**base)


def dropped(space):
    return {d.key: d.reason for d in space.dropped}


def test_default_space_on_one_host_with_ext4_and_open_mpi():
    sp = build(ctx())
    keys = [k.key for k in sp.knobs]
    assert keys[:3] == ["strategy", "collective", "mca.io"]
    assert {"romio_cb_write", "mca.fcoll", "cb_config_list", "cb_nodes", "cb_buffer_size"} <= set(keys)
    assert "romio_cb_read" not in keys  # the objective is write
    gone = dropped(sp)
    assert "not Lustre (ext4)" in gone["striping_factor"] and "striping_unit" in gone
    assert "per-node" in " ".join(gone)  # one host: per-node is the shared file
    assert "contiguous" in gone["romio_ds_write"]


def test_the_tree_only_sets_a_knob_where_it_acts():
    sp = build(ctx())
    indep = sp.effective({"collective": "false", "mca.io": "romio321", "romio_cb_write": "enable"})
    assert "romio_cb_write" not in indep and "cb_config_list" not in indep
    ompio = sp.effective({"collective": "true", "romio_cb_write": "enable", "mca.fcoll": "dynamic"})
    assert "romio_cb_write" not in ompio and ompio["mca.fcoll"] == "dynamic"
    # ROMIO's automatic mode does not run two-phase for non-interleaved requests: aggregator knobs are inert
    auto = sp.effective({"mca.io": "romio321", "romio_cb_write": DEFAULT, "cb_config_list": "*:2"})
    assert "cb_config_list" not in auto


def test_canonical_forms_merge_what_the_stack_treats_the_same():
    sp = build(ctx())
    base = {"mca.io": "romio321", "romio_cb_write": "enable"}
    # cb_buffer_size at least one call's bytes (1 MiB x 4 ranks) acts like ROMIO's 16 MiB default
    assert sp.canonical({**base, "cb_buffer_size": str(64 << 20)}) == sp.canonical(base)
    assert sp.canonical({**base, "cb_buffer_size": str(1 << 20)}) != sp.canonical(base)
    # *:4 and more aggregators per host than ranks are the same; an explicit default is no setting
    assert sp.canonical({**base, "cb_config_list": "*:4"}) != sp.canonical({**base, "cb_config_list": "*:2"})
    assert sp.canonical({**base, "romio_cb_write": "enable", "cb_config_list": DEFAULT}) == sp.canonical(base)
    grid = sp.grid()
    assert len({sp.canonical(c) for c in grid}) == len(grid)
    assert sp.canonical(sp.default()) in {sp.canonical(c) for c in grid}
    small = build(ctx(xfer=4096, block=1 << 20)).grid()
    assert len(small) < len(grid)  # 4 KiB calls: every cb_buffer_size is one round


def test_narrowed_space_drops_a_hint_this_mpi_ignores_with_the_reason():
    sp = build(ctx(io_fixed="ompio"), only=["romio_cb_write", "cb_nodes"])
    assert [k.key for k in sp.knobs] == ["cb_nodes"]
    gone = dropped(sp)
    assert "ompio ignores" in gone["romio_cb_write"] and "fixed by --io ompio" in gone["mca.io"]


def test_space_values_and_unknown_keys():
    sp = build(ctx(), only=["collective", "mca.io"], values={"romio_cb_pfr": ["enable"]})
    assert sp.knob("romio_cb_pfr").values == (DEFAULT, "enable")
    with pytest.raises(ParioError, match="did you mean cb_nodes"):
        build(ctx(), only=["cb_node"])
    with pytest.raises(ParioError, match="space file"):
        build(ctx(), only=["ind_wr_buffer_size"])


def test_posix_and_null_spaces_are_small():
    posix = build(ctx(backend="posix", collective=False, caps=frozenset({"shared", "odirect"})))
    assert [k.key for k in posix.knobs] == ["strategy", "odirect"]
    null = build(ctx(backend="null", caps=frozenset({"collective", "shared", "nodata"})))
    assert [k.key for k in null.knobs] == ["strategy", "collective"]
    assert len(null.grid()) == 7  # shared, fpp, nfiles:2 x (collective, independent) + shared+agg


def test_guesses_follow_the_access_pattern_and_are_never_the_default():
    sp = build(ctx())
    first, why = guesses(sp)[0]
    assert first["collective"] == "false" and "LRZ" in why
    assert sp.canonical(sp.default()) not in {sp.canonical(c) for c, _ in guesses(sp)}
    # interleaved requests (a subarray view): collective buffering first
    inter = build(ctx(pattern="subarray", view=True))
    first, why = guesses(inter)[0]
    # (under OMPIO "collective buffering on" is the default itself, so the first guess is ROMIO's)
    assert first["collective"] == "true" and first["romio_cb_write"] == "enable" and "interleaved" in why
    # small requests on a parallel file system: a file per process first (a lock per request), then
    # the shared file with collective buffering on
    lustre = build(ctx(xfer=4096, fs="lustre", osts=8))
    gs = [c for c, _ in guesses(lustre)]
    assert gs[0]["strategy"] == "fpp" and gs[0]["striping_unit"] == str(1 << 20)
    shared = next(c for c in gs if c["strategy"] == "shared" and c["mca.io"] == "romio321")
    assert shared["collective"] == "true" and shared["romio_cb_write"] == "enable"


def test_guesses_decide_the_layout_first_and_try_both_layers():
    small = build(ctx(xfer=4096, block=1 << 20))
    layouts = [small.strategy(c) for c, _ in guesses(small)]
    assert layouts[0] == "fpp" and "shared" in layouts
    assert layouts == sorted(layouts, key=layouts.index)   # one batch per layout, in order
    large = build(ctx())
    gs = [c for c, _ in guesses(large)]
    layouts = [large.strategy(c) for c in gs]
    assert layouts[0] == "shared" and layouts.index("nfiles:2") < layouts.index("fpp")
    assert layouts == sorted(layouts, key=layouts.index)
    for strategy in set(layouts):   # every layout under both MPI-IO layers
        assert {c["mca.io"] for c in gs if large.strategy(c) == strategy} == {"default", "romio321"}
    # a case already written file per process has no layout to try
    fpp = build(ctx(strategy="fpp"))
    assert {fpp.strategy(c) for c, _ in guesses(fpp)} == {"fpp"}


def test_context_round_trips():
    c = ctx(fs="lustre", osts=4)
    assert Context.from_dict(c.to_dict()) == c


def test_posix_guesses_give_no_mpi_io_reasons():
    """POSIX has no call mode: its layout guesses said 'independent I/O, no two-phase exchange (LRZ
    seed)', which is about MPI-IO, not about what they change."""
    posix = build(ctx(backend="posix", collective=False, caps=frozenset({"shared", "odirect"})))
    got = guesses(posix)
    assert [c["strategy"] for c, _ in got] == ["nfiles:2", "fpp"]
    assert not [w for _, w in got if "two-phase" in w or "independent" in w or w.endswith("; ")], got


def test_a_knob_named_twice_in_the_space_is_searched_once():
    # `--space mca.io,mca.io` ended in a KeyError traceback while walking the tree
    sp = build(ctx(), only=["mca.io", "collective", "mca.io"], values={"collective": ["false"]})
    assert [k.key for k in sp.knobs] == ["collective", "mca.io"]
    assert len(sp.grid()) == 4


def test_space_file_values_are_checked_as_the_mpi_reads_them():
    # cb_buffer_size = ["16mb"] ended in a ValueError traceback; "Enable" (ROMIO ignores it) and "abc"
    # were searched as values
    for key, bad in (("cb_buffer_size", "16mb"), ("romio_cb_write", "Enable"), ("cb_nodes", "abc")):
        with pytest.raises(ParioError, match=f"space: {key}"):
            build(ctx(), values={key: [bad]})
    assert build(ctx(), values={"cb_nodes": ["2"]}).knob("cb_nodes").values == (DEFAULT, "2")


def test_a_hint_for_the_other_direction_is_left_out_as_such():
    # `--space romio_cb_read` on a write session was searched under romio321 (a knob that cannot change
    # a write), or left out as "ompio ignores ROMIO hint", which is true but not why
    sp = build(ctx(), only=["mca.io", "romio_cb_read", "ind_rd_buffer_size"], values={"ind_rd_buffer_size": ["1m"]})
    assert [k.key for k in sp.knobs] == ["mca.io"]
    gone = dropped(sp)
    assert gone["romio_cb_read"].startswith("a hint for reads; this session tunes the writes")
    assert "--objective read" in gone["ind_rd_buffer_size"]
    reads = build(ctx(objective="read"), only=["romio_cb_write", "collective"])
    assert "tunes the reads" in dropped(reads)["romio_cb_write"]
    # the guess that only changes the layer says so (it was "io=romio321: ; under romio321")
    assert [why for _, why in guesses(sp)] == ["the other MPI-IO layer, romio321"]
