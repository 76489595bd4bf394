"""Real programs write the same bytes with and without the buffer: cp, dd, tar, sort -o, gzip,
Python writing files and logs, an HDF5 program, an MPI program writing a file per process. Each
buffered run is also checked to have gone through the buffer (its stats), so a test cannot pass
because the buffer was not there."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buffer_support import buffer_env, build, lib_path, run, stats


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return lib_path(tmp_path_factory)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """Input files: text lines (sortable, compressible) and a binary file."""
    d = tmp_path_factory.mktemp("src")
    with open(d / "lines.txt", "w") as fh:
        for k in range(60000):
            fh.write(f"{(k * 7919) % 100003:06d} line {k} " + "x" * (k % 50) + "\n")
    (d / "blob.bin").write_bytes(os.urandom(3 << 20))
    (d / "tree").mkdir()
    for k in range(30):
        (d / "tree" / f"f{k}.txt").write_text(f"file {k}\n" * (k * 100 + 1))
    return d


def both(lib, tmp_path: Path, make_argv, outputs, env_extra=None, min_calls=2):
    """Run make_argv(outdir) plain and buffered; the outputs must be byte-identical and the
    buffered run must have coalesced calls."""
    got = {}
    for kind in ("plain", "buffered"):
        out = tmp_path / kind
        out.mkdir()
        env = buffer_env(lib, stats_dir=tmp_path / "stats", size="1m") if kind == "buffered" else None
        if env_extra:
            env = dict(env or os.environ, **env_extra)
        proc = run(make_argv(out), env=env, cwd=out)
        assert proc.returncode == 0, proc.stderr.decode()
        got[kind] = {name: (out / name).read_bytes() for name in outputs}
    for name in outputs:
        assert got["buffered"][name] == got["plain"][name], f"{name} differs"
    files = [f for doc in stats(tmp_path / "stats") for f in doc["files"]]
    assert any(f["calls"] >= min_calls and f["flushes"] < f["calls"] for f in files), files
    return got


def test_dd(lib, tmp_path, source):
    both(lib, tmp_path, lambda o: ["dd", f"if={source / 'blob.bin'}", f"of={o / 'out'}", "bs=512", "status=none"],
         ["out"])


def test_cp(lib, tmp_path, source):
    """cp copies inside the kernel (copy_file_range): the buffer flushes around it; identical bytes.
    A second copy through a pipe makes cp write() in pieces that the buffer coalesces."""
    def argv(o):
        return ["sh", "-c", f"cp {source / 'blob.bin'} {o / 'out'} && cat {source / 'lines.txt'} | cp /dev/stdin "
                            f"{o / 'out2'}"]
    both(lib, tmp_path, argv, ["out", "out2"])


def test_tar_create_and_extract(lib, tmp_path, source):
    def argv(o):
        return ["sh", "-c", f"tar -cf {o / 'a.tar'} --sort=name --mtime=@0 --owner=0 --group=0 -C {source} tree "
                            f"&& mkdir -p {o / 'x'} && tar -xf {o / 'a.tar'} -C {o / 'x'} && cat {o}/x/tree/* > "
                            f"{o / 'joined'}"]
    both(lib, tmp_path, argv, ["a.tar", "joined"])


def test_sort_o(lib, tmp_path, source):
    both(lib, tmp_path, lambda o: ["sort", "-o", str(o / "sorted"), str(source / "lines.txt")], ["sorted"])


def test_gzip(lib, tmp_path, source):
    """gzip opens its output itself (a shell's `> file` would hand it a descriptor pario never saw
    opened: written through, and so not a test of the buffer)."""
    both(lib, tmp_path, lambda o: ["sh", "-c", f"cp {source / 'lines.txt'} {source / 'blob.bin'} . && "
                                               "gzip -n lines.txt && gzip -n -1 blob.bin"],
         ["lines.txt.gz", "blob.bin.gz"])


PY_WRITER = r"""
import logging, sys
logging.basicConfig(filename="app.log", format="%(levelname)s %(message)s", level=logging.INFO)
with open("data.txt", "w") as fh:
    for k in range(20000):
        print(k, "x" * (k % 30), file=fh, flush=(k % 7 == 0))
with open("raw.bin", "wb", buffering=0) as fh:
    for k in range(5000):
        fh.write(k.to_bytes(4, "little") * 8)
        if k % 1000 == 0:
            fh.seek(0, 1); fh.tell()
for k in range(3000):
    logging.info("record %d", k)
"""


def test_python_files_and_logs(lib, tmp_path):
    both(lib, tmp_path, lambda o: [sys.executable, "-c", PY_WRITER], ["data.txt", "raw.bin", "app.log"])


def test_hdf5_program(lib, tmp_path):
    if not shutil.which("pkg-config") or subprocess.run(["pkg-config", "--exists", "hdf5-openmpi"]).returncode:
        pytest.skip("pkg-config hdf5-openmpi not found")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "hdf5-openmpi"], capture_output=True,
                           text=True).stdout.split()
    exe = tmp_path / "h5small"
    subprocess.run(["mpicc", "-O2", "-o", str(exe), str(Path(__file__).parents[1] / "buffer" / "h5small.c"),
                    *flags], check=True)
    both(lib, tmp_path, lambda o: [exe, o / "rows.h5", 2000], ["rows.h5"], min_calls=10)


@pytest.mark.mpi
def test_mpi_file_per_process(lib, tmp_path):
    if not shutil.which("mpicc") or not shutil.which("mpirun"):
        pytest.skip("mpicc/mpirun not found")
    exe = build(tmp_path, "mpi_fpp", cc="mpicc")
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []

    def argv(o):
        return ["mpirun", "-n", "4", "--oversubscribe", *root, "-x", "LD_PRELOAD", "-x", "PARIO_BUFFER",
                "-x", "PARIO_BUFFER_SIZE", "-x", "PARIO_BUFFER_STATS", "-x", "PARIO_PROFILE_DISABLE", exe, o, 20000]
    names = [f"{kind}.{r}" for kind in ("out", "log") for r in range(4)]
    both(lib, tmp_path, argv, names, env_extra=None)
    assert {doc["process"]["rank"] for doc in stats(tmp_path / "stats")} >= {0, 1, 2, 3}
