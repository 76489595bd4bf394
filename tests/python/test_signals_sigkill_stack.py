"""SIGKILL of `pario stack` during its MPI probe: the probe's 1 MiB file (PATH/pario.stack-*) is in
the user's directory, so nothing of it may stay, whoever dies:

- "group": a SIGKILL of pario's process group (a shell's job, `kill -9 -PGID`). The probe's mpirun
  was in that group and died with pario, before the engine removed its file; nothing else knew of
  the file. Now the launch runs in a session of its own, as every other launch, and the engine's
  orphan guard ends it and removes the file.
- "everything": pario, its mpirun and the rank all killed at once: the sentinel alone remains, and
  removes the file (through `pario-engine --orphaned`).

The rank hangs in its write (PARIO_FAULT) with the file made, so the kill comes while it exists.
The user's own file beside it stays. Polled with a generous deadline; no timing is asserted."""
import os
import signal
import subprocess
import sys
import time

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, SRC
from test_signals_e2e import assert_gone, processes_of, session_of
from test_signals_sigkill_early import sentinels_of

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]


def entries(root):
    out = []
    for top, dirs, files in os.walk(root):
        out += [os.path.join(top, n) for n in dirs + files]
    return sorted(out)


@pytest.mark.parametrize("who", ["group", "everything"])
def test_sigkill_during_the_stack_probe_leaves_no_probe_file(tmp_path, who):
    tmpdir, target = tmp_path / "tmp", tmp_path / "target"
    tmpdir.mkdir()
    target.mkdir()
    (target / "keep.me").write_text("user data")
    # 1 rank: no shared-memory transport, no OMPIO shared file pointer (its named semaphore); a
    # launch killed outright would leave them in /dev/shm, which is not what this test is about
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_ENGINE=ENGINE, XDG_CACHE_HOME=str(tmp_path / "cache"),
               TMPDIR=str(tmpdir), PARIO_FAULT="hang:0", OMPI_MCA_btl="self", OMPI_MCA_sharedfp="^sm")
    with open(tmp_path / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "pario", "stack", str(target), "--json"], env=env,
                                stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list(target.glob("pario.stack-*")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert list(target.glob("pario.stack-*")), \
            f"the probe never made its file (exit {proc.poll()}): {(tmp_path / 'stderr.txt').read_text()[-600:]}"
        if who == "group":   # pario leads its own group (start_new_session): the group is the job
            os.killpg(proc.pid, signal.SIGKILL)
        else:   # pario's session, and the launcher and rank (their command lines name the spec in tmpdir)
            for pid in set(session_of(proc.pid)) | {pid for pid, _ in processes_of(tmp_path)}:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        assert proc.wait(timeout=60) == -signal.SIGKILL
        assert_gone(lambda: {
            "processes of the probe are": processes_of(tmp_path),
            "files of the probe are, in the directory probed,": sorted(
                str(p) for p in target.iterdir() if p.name != "keep.me"),
            "files in $TMPDIR are": entries(tmpdir),
            "the probe's sentinels are": sentinels_of(tmpdir)}, 90)
        assert (target / "keep.me").read_text() == "user data"
    finally:   # the hung rank, if the fix does not hold
        for pid, _ in processes_of(tmp_path):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
