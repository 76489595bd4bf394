"""Real programs produce byte-identical output files and stdout with and without the profiler,
and the profiler records their I/O."""
from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from profile_support import files, preload_lib

PY_SCRIPT = r'''
import hashlib, os, struct, sys
out = sys.argv[1]
with open(out, "wb") as fh:
    for k in range(2000):
        fh.write(struct.pack("<qd", k, k * 0.5))
with open(out, "rb") as fh:
    data = fh.read()
os.replace(out, out + ".final")
print(hashlib.sha256(data).hexdigest(), len(data))
'''

HDF5_PROG = r'''
#include <hdf5.h>
int main(int argc, char **argv) {
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = {4096};
  hid_t sp = H5Screate_simple(1, dims, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0); /* no modification times: two runs give the same bytes */
  hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int buf[4096];
  for (int k = 0; k < 4096; k++) buf[k] = k * 3;
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(d); H5Sclose(sp); H5Fclose(f);
  return 0;
}
'''


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    rnd = random.Random(5)
    (d / "blob.bin").write_bytes(bytes(rnd.getrandbits(8) for _ in range(3_000_000)))
    (d / "lines.txt").write_text("".join(f"{rnd.randrange(10**9):09d} line\n" for _ in range(50_000)))
    tree = d / "tree"
    tree.mkdir()
    for k in range(20):
        (tree / f"f{k:02d}.dat").write_bytes(bytes(rnd.getrandbits(8) for _ in range(5000 + k * 999)))
    (d / "script.py").write_text(PY_SCRIPT)
    return d


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


CASES = {
    "cp": (["cp", "{in}/blob.bin", "{out}/copy.bin"], ["copy.bin"]),
    "dd": (["dd", "if={in}/blob.bin", "of={out}/dd.bin", "bs=7777", "status=none"], ["dd.bin"]),
    "sort": (["sort", "-o", "{out}/sorted.txt", "{in}/lines.txt"], ["sorted.txt"]),
    "sort-stdout": (["sort", "-r", "{in}/lines.txt"], []),
    "tar": (["tar", "--sort=name", "--mtime=@0", "--owner=0", "--group=0", "-cf", "{out}/t.tar", "-C", "{in}", "tree"],
            ["t.tar"]),
    "python": ([sys.executable, "{in}/script.py", "{out}/py.bin"], ["py.bin.final"]),
}


def _run(argv, out: Path, inp: Path, env):
    out.mkdir()
    cmd = [a.format(**{"in": inp, "out": out}) for a in argv]
    return subprocess.run(cmd, capture_output=True, env=env, timeout=120)


@pytest.mark.parametrize("name", list(CASES))
def test_identical_with_and_without(lib, inputs, tmp_path, name):
    argv, outputs = CASES[name]
    if not shutil.which(argv[0]):
        pytest.skip(f"{argv[0]} not installed")
    plain = _run(argv, tmp_path / "plain", inputs, dict(os.environ))
    logs = tmp_path / "log"
    prof = _run(argv, tmp_path / "prof", inputs, dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(logs)))
    assert plain.returncode == prof.returncode == 0, prof.stderr.decode()
    assert plain.stdout == prof.stdout
    assert prof.stderr == plain.stderr  # the profiler says nothing when nothing is wrong
    for o in outputs:
        assert _digest(tmp_path / "plain" / o) == _digest(tmp_path / "prof" / o)
    assert (sorted(p.name for p in (tmp_path / "plain").iterdir())
            == sorted(p.name for p in (tmp_path / "prof").iterdir()))
    # and the I/O was seen: the main input was read in full
    view = files(logs)
    src = {"cp": "blob.bin", "dd": "blob.bin", "sort": "lines.txt", "sort-stdout": "lines.txt", "python": "script.py"}
    if name in src:
        size = (inputs / src[name]).stat().st_size
        rows = [f for (m, p), f in view.items() if p == str(inputs / src[name])]
        # cp copies in the kernel (copy_file_range, posix), sort reads through stdio
        assert sum(f["bytes_read"] for f in rows) >= size
    if name == "tar":
        rows = [f for (m, p), f in view.items() if p.startswith(str(inputs / "tree")) and f["module"] == "posix"]
        assert sum(f["bytes_read"] for f in rows) == sum(p.stat().st_size for p in (inputs / "tree").iterdir())


def test_hdf5_program(lib, tmp_path):
    h5cc = shutil.which("h5cc") or shutil.which("h5pcc")
    if not h5cc:
        pytest.skip("HDF5 is not installed (no h5cc): apt-get install libhdf5-dev to run this test")
    src = tmp_path / "h5w.c"
    src.write_text(HDF5_PROG)
    exe = tmp_path / "h5w"
    subprocess.run([h5cc, "-o", str(exe), str(src)], check=True, cwd=tmp_path)   # h5cc leaves h5w.o where it runs
    plain = _run([str(exe), "{out}/x.h5"], tmp_path / "plain", tmp_path, dict(os.environ))
    logs = tmp_path / "log"
    prof = _run([str(exe), "{out}/x.h5"], tmp_path / "prof", tmp_path,
                dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=str(logs)))
    assert plain.returncode == prof.returncode == 0
    assert _digest(tmp_path / "plain" / "x.h5") == _digest(tmp_path / "prof" / "x.h5")
    row = files(logs)[("posix", str(tmp_path / "prof" / "x.h5"))]
    assert row["bytes_written"] >= 4096 * 4
