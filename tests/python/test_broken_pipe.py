"""`pario ... | head`: when the reader of pario's output goes away, pario ends quietly with SIGPIPE's
exit status (128 + 13), as a command that the signal stopped would: no traceback on stderr."""
import os
import subprocess
import sys

import pytest

from engine_support import ENGINE, ROOT

COMMANDS = [
    ["tune", "-a", "posix", "-t", "1m", "-b", "4m", "-n", "2", "-w", "--dry-run"],
    ["settings", "render", "--set", "romio_cb_write=disable"],
]


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: w[0])
def test_a_closed_pipe_ends_quietly(words, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src"), "PARIO_SCRATCH": str(tmp_path),
           "PARIO_DB": str(tmp_path / "runs.db"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    if ENGINE:
        env["PARIO_ENGINE"] = ENGINE
    p = subprocess.Popen([sys.executable, "-m", "pario", *words], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp_path, env=env)
    p.stdout.close()   # the reader is gone before pario writes its first line
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
