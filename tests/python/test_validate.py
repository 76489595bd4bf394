"""Every impossible or inconsistent case is rejected with one line saying what and how to fix it."""
import pytest

from pario.model.errors import ParioError
from pario.plan import cases as spec
from pario.plan import validate


def case(**opts):
    return spec.build_case(opts)


def reject(c, ranks=4, match=None):
    with pytest.raises(ParioError) as err:
        validate.check_all([c], ranks)
    msg = str(err.value)
    assert err.value.exit_code == 2 and "\n" not in msg
    if match:
        assert match in msg, msg
    return msg


def test_valid_cases_pass():
    for c in (case(), case(backend="mpiio", collective=True, view=True, segments=3),
              case(backend="mpiio", strategy="nfiles:4"), case(strategy="serial"),
              case(pattern="random", transfer="4k", block="64k"),
              case(odirect=True, transfer="4k", block="1m"),
              case(backend="mpiio", pattern="subarray", dims="8x8x8", collective=True),
              case(backend="mpiio", hints={"cb_nodes": "2"})):
        validate.check_all([c], 4)


def test_transfer_and_block():
    reject(case(transfer="3m", block="4m"), match="does not divide block size 4m")
    reject(case(transfer=12, block=24), match="not a multiple of 8 bytes")


def test_collective_and_view_need_mpiio():
    reject(case(collective=True), match="add -a mpiio or drop -c")
    reject(case(view=True), match="--view")


def test_nfiles_needs_ranks():
    msg = reject(case(strategy="nfiles:8"), ranks=4)
    assert "nfiles:8" in msg and "4" in msg


def test_one_writer_per_file():
    reject(case(backend="mpiio", strategy="serial", collective=True), match="serial has one writer")
    reject(case(backend="mpiio", aggregate=True, view=True), match="--aggregate has one writer")


def test_view_with_random():
    reject(case(backend="mpiio", view=True, pattern="random"), match="random")


def test_odirect_alignment_names_the_size_and_nearest():
    reject(case(odirect=True, transfer=4000, block=8000), match="transfer size 4000 is not; nearest valid -t 4k")
    reject(case(odirect=True, transfer=2048, block="1m"), match="nearest valid -t 4k")
    reject(case(odirect=True, transfer="8k", block="8k", backend="mpiio"), match="direct_write")
    reject(case(odirect=True, pattern="subarray", dims="4x4x100"), match="last dimension a multiple of 512")


def test_subarray_needs_dims():
    reject(case(pattern="subarray"), match="--dims")
    reject(case(backend="mpiio", pattern="subarray", dims="4x4x4", transfer=384, view=True), match="does not divide")


def test_read_shift():
    validate.check_all([case(reorder="host"), case(reorder=3)], 4)
    reject(case(reorder=-2), match="-Q N with N >= 0")


def test_ops_reps_ranks():
    reject(case(ops=[]), match="-w (write)")
    reject(case(reps=0), match="at least 1")
    reject(case(), ranks=0, match="ranks")


def test_unknown_backend_lists_known():
    msg = reject(case(backend="mpio"))
    assert "did you mean mpiio" in msg and "posix, mpiio, null" in msg


def test_backend_not_built_says_how():
    listing = {"backends": [{"name": "posix", "built": True},
                            {"name": "mpiio", "built": False, "missing": "install libopenmpi-dev and rebuild"}]}
    validate.check_backends([case()], listing)
    with pytest.raises(ParioError, match="backend mpiio is not built: install libopenmpi-dev"):
        validate.check_backends([case(backend="mpiio")], listing)


def test_hints():
    reject(case(hints={"cb_nodes": "2"}), match="MPI-IO hints apply to mpiio, hdf5, pnetcdf or netcdf4")
    reject(case(backend="mpiio", hints=["romio_cb_writ=enable"]), match="did you mean romio_cb_write")
    reject(case(backend="mpiio", hints={"cb_nodes": "many"}), match="integer")


def test_config_cases_are_named():
    c = spec.build_case({"collective": True, "name": "x"}, "job.toml case 2")
    with pytest.raises(ParioError, match=r"^job.toml case 2 \('x'\): collective"):
        validate.check_all([c], 2)


def test_capabilities_from_the_engine():
    listing = {"backends": [{"name": "null", "built": True, "caps": ["collective", "shared", "nodata"]},
                            {"name": "posix", "built": True, "caps": ["shared", "odirect"]}]}
    validate.check_backends([case(backend="null", ops=["write", "read"])], listing)
    with pytest.raises(ParioError, match="nothing to verify"):
        validate.check_backends([case(backend="null", ops=["write", "verify"])], listing)


def test_library_options_from_the_engine_listing_win_over_the_table():
    """When the engine's --list describes a backend's options ({"name", "type", "min", "max",
    "choices", "default", "help"}), validation reads them instead of settings.knobs."""
    row = {"name": "hdf5", "built": True, "caps": ["collective", "shared", "view", "hints"],
           "options": [{"name": "chunk_opt", "type": "choice", "choices": ["default", "one"], "default": "default",
                        "help": "H5Pset_dxpl_mpio_chunk_opt"},
                       {"name": "coll_metadata", "type": "bool", "default": True, "help": "collective metadata"}]}
    listing = {"backends": [row]}
    ok = case(backend="hdf5", lib={"chunk_opt": "ONE", "coll_metadata": "false"})
    validate.check_backends([ok], listing)
    assert ok["lib"] == {"chunk_opt": "one", "coll_metadata": "false"}
    with pytest.raises(ParioError, match="chunk_opt is one of default, one"):
        validate.check_backends([case(backend="hdf5", lib={"chunk_opt": "multi"})], listing)  # the table has multi
    with pytest.raises(ParioError, match="hdf5 takes: chunk_opt, coll_metadata"):
        validate.check_backends([case(backend="hdf5", lib={"alignment": "1m"})], listing)
    # an engine that only names its keys keeps the table's description of each
    names_only = {"backends": [{**{k: v for k, v in row.items() if k != "options"},
                                "lib_keys": ["chunk_opt", "alignment"]}]}
    with pytest.raises(ParioError, match="chunk_opt is one of default, one, multi"):
        validate.check_backends([case(backend="hdf5", lib={"chunk_opt": "two"})], names_only)
