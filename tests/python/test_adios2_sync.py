"""-e with ADIOS2: BP5 has no sync call and writes its own files (data at EndStep, metadata at
close), so the engine flushes every file BP5 wrote once it has closed them, inside the timed
phase, the ranks sharing the files out (csrc/backends/adios2.c). strace shows which files the
engine's processes fsync: with -e every file of the .bp directory, once; without it none."""
import re
import shutil

import pytest

from engine_support import ENGINE, HAVE_MPIRUN, layer_built, run_engine, why_not_built

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)"),
              pytest.mark.skipif(not shutil.which("strace"), reason="no strace (scripts/setup.sh --tests installs it)")]


def _fsyncs(tmp_path, fsync, aggregators):
    if not layer_built("adios2"):
        pytest.skip(why_not_built("adios2"))
    case = {"name": "a2", "backend": "adios2", "strategy": "shared", "ops": ["write"], "reps": 1,
            "pattern": "segmented", "xfer": 1 << 16, "block": 1 << 20, "segments": 1, "fsync": fsync,
            "keep": True, "lib": {"NumAggregators": str(aggregators)}}
    strace = ("strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", str(tmp_path / "trace"), "-ff")
    proc, doc = run_engine(tmp_path, [case], wrap=strace)
    assert doc is not None and doc["status"] == "complete", ((doc or {}).get("error"), proc.stderr[-2000:])
    bp = [p for p in tmp_path.iterdir() if p.is_dir()]    # the BP5 output: a directory
    synced = []
    for f in tmp_path.glob("trace.*"):
        synced += re.findall(r"f(?:data)?sync\(\d+<([^>]+)>\) = 0", f.read_text())
    return bp, synced


def test_adios2_with_fsync_flushes_every_file_bp5_wrote_once(tmp_path):
    bp, synced = _fsyncs(tmp_path, True, 2)
    assert len(bp) == 1, list(tmp_path.iterdir())
    files = sorted(str(p) for p in bp[0].iterdir())
    assert any(p.endswith("data.1") for p in files), files          # two aggregators: two subfiles
    assert sorted(p for p in synced if p.startswith(str(bp[0]))) == files, (synced, files)


def test_adios2_without_fsync_flushes_nothing(tmp_path):
    bp, synced = _fsyncs(tmp_path, False, 2)
    assert len(bp) == 1 and not [p for p in synced if p.startswith(str(bp[0]))], synced
