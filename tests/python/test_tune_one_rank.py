"""`pario tune` of a job that ran 1 rank: `--from-log` of a serial program's log searched shared, fpp
and shared+agg, one file three ways. It now says there is nothing to tune at 1 rank and names the fix
(`pario buffer`), and a 1-rank case given by flags has no strategy knob (the reason is listed)."""
import os

from cli_support import pario
from pario.tune.knobs import build
from pario.tune.space import Context
from profile_support import preload_lib
from test_tune_search import CAPS


def test_a_one_rank_log_has_nothing_to_tune_and_names_pario_buffer(tmp_path, tmp_path_factory):
    lib = preload_lib(tmp_path_factory)
    log = tmp_path / "serial.log"
    made = pario(["-o", str(log), "--", "dd", "if=/dev/zero", f"of={tmp_path / 'out'}", "bs=4k", "count=64"],
                 tmp_path, extra_env={"PARIO_PRELOAD": lib}, command="profile")
    assert made.returncode == 0 and os.path.isfile(log), made.stderr
    run = pario(["--from-log", str(log), "--dry-run"], tmp_path, command="tune")
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "ran 1 rank" in lines[0] and "nothing to tune" in lines[0] and "pario buffer" in lines[0], lines
    assert "-n N" in lines[0]
    given = pario(["--from-log", str(log), "-n", "2", "--dry-run"], tmp_path, command="tune")
    assert given.returncode == 0, given.stderr   # -n given: the case at 2 ranks


def test_one_rank_has_no_strategy_knob():
    sp = build(Context(backend="mpiio", strategy="shared", collective=False, ops=("write",), objective="write",
                       ranks=1, xfer=1 << 20, block=16 << 20, caps=CAPS))
    assert "strategy" not in [k.key for k in sp.knobs]
    assert any(d.key == "strategy" and "1 rank" in d.reason for d in sp.dropped)
