"""The winner's dialects, and pario tune under MPICH (so Cray MPICH, Intel MPI): the space is
ROMIO's hints, Open MPI's MCA knobs are said to be out and why, and the winner renders in the
dialects MPICH reads, never Open MPI's; a dialect that can say none of a winner's settings shows
nothing rather than a skeleton."""
import pytest

from pario.model.errors import ParioError
from pario.tune.knobs import build
from pario.tune.space import Context
from test_tune_search import CAPS


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

