"""Applying a Lustre layout before the engine runs. There is no Lustre here: off Lustre pario must
say so; on Lustre the mechanism is `lfs setstripe` on the engine's file names, checked with a
stand-in `lfs` that records its arguments and answers getstripe with an output from the seeds,
and the engine's posix and mpiio opens must keep the pre-created file (same inode: a layout set at
creation survives O_TRUNC / MPI_MODE_CREATE)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pario.platform import layout as layout_apply

DATA = Path(__file__).parent / "data" / "stack"
CASE = {"name": "c", "backend": "posix", "strategy": "fpp", "pattern": "segmented", "xfer": 65536,
        "block": 65536, "ops": ["write"], "reps": 1, "hints": {"striping_factor": "4", "striping_unit": "1048576"}}


def test_off_lustre_says_so(tmp_path):
    recs = layout_apply.prepare([CASE, {**CASE, "hints": {}}], str(tmp_path), "pario.x", 2, "ext4")
    assert list(recs) == [0]
    assert recs[0]["applied"] is False and recs[0]["reason"] == "not Lustre (ext4): layout not applied"
    assert recs[0]["command"] == "lfs setstripe -c 4 -S 1M FILE"
    assert not list(tmp_path.iterdir())


@pytest.fixture
def fake_lfs(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "lfs.log"
    script = bin_dir / "lfs"
    script.write_text(f"""#!/bin/sh
echo "$@" >> {log}
if [ "$1" = setstripe ]; then
  for last; do :; done
  [ -e "$last" ] && {{ echo "error: stripe already set" >&2; exit 17; }}
  : > "$last"
elif [ "$1" = getstripe ]; then
  cat {DATA / 'archer-getstripe-dir.txt'} | tail -n +3
fi
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_on_lustre_files_are_created_with_the_layout(tmp_path, fake_lfs):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    recs = layout_apply.prepare([CASE, {**CASE, "strategy": "shared", "backend": "mpiio"},
                                 {**CASE, "backend": "hdf5"}], str(scratch), "pario.x", 3, "lustre")
    calls = fake_lfs.read_text().splitlines()
    sets = [c for c in calls if c.startswith("setstripe")]
    assert sets == [f"setstripe -c 4 -S 1M {scratch}/pario.x.0.{i}" for i in range(3)] + \
        [f"setstripe -c 4 -S 1M {scratch}/pario.x.1.0"]
    assert recs[0]["applied"] and recs[0]["files"] == 3 and recs[0]["means"] == "lfs getstripe"
    assert recs[0]["effective"]["stripe_count"] == 4 and recs[0]["effective"]["osts"] == [15, 7, 23, 40]
    assert layout_apply.compare(recs[0]) == []
    # What took effect is compared with what was asked (the stand-in always answers 4 stripes).
    eight = layout_apply.prepare([{**CASE, "hints": {"striping_factor": "8"}}], str(scratch), "pario.y", 1, "lustre")
    assert layout_apply.compare(eight[0]) == ["stripe_count 8 (is 4)"]
    assert not recs[2]["applied"] and "names these files at run time" in recs[2]["reason"]
    # IOR's -u (DIR/<rank>/) and -E (a file that may be there): nothing created, and why
    for key in ("unique_dir", "use_existing"):
        (rec,) = layout_apply.prepare([{**CASE, key: True}], str(scratch), "pario.z", 2, "lustre").values()
        assert not rec["applied"] and "-u puts the files in DIR/<rank>/" in rec["reason"]
    assert not list(scratch.glob("pario.z*"))
    # A second run on the same names fails loudly, like lfs does on an existing file.
    again = layout_apply.prepare([CASE], str(scratch), "pario.x", 3, "lustre")
    assert not again[0]["applied"] and "failed" in again[0]["reason"]


ENGINE = os.environ.get("PARIO_ENGINE")


@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and shutil.which("mpirun")), reason="needs PARIO_ENGINE and mpirun")
@pytest.mark.parametrize("backend", ["posix", "mpiio"])
def test_engine_opens_keep_the_precreated_file(tmp_path, backend):
    path = tmp_path / "pario.k.0.0"
    path.write_bytes(b"")
    inode = path.stat().st_ino
    spec = {"schema": "pario.spec/1", "run_id": "k", "dir": str(tmp_path), "prefix": "pario.k",
            "cases": [{**CASE, "backend": backend, "strategy": "shared", "hints": {}, "keep": True}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    argv = ["mpirun", "-n", "2", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    out = subprocess.run(argv + [ENGINE, str(tmp_path / "spec.json"), str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert path.stat().st_ino == inode and path.stat().st_size == 2 * 65536
