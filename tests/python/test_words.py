"""Counted nouns and named places, as a reader pastes them: "1 rank", not "1 ranks"; "1 directory";
the program's stdout is not "on an unknown file system"; a long path in a header is never cut."""
import re

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, pario
from pario.model.units import count
from pario.report import advice_text
from pario.report.terminal import advise as advise_view


@pytest.mark.parametrize("n,word,said", [(1, "rank", "1 rank"), (2, "rank", "2 ranks"), (1, "directory", "1 directory"),
                                         (3, "directory", "3 directories"), (0, "file", "0 files"),
                                         (12000, "write", "12,000 writes"), ("?", "rank", "? ranks"),
                                         (1, "process", "1 process"), (2, "process", "2 processes")])
def test_count(n, word, said):
    assert count(n, word) == said


def _job(**stack):
    return {"source": "/very/long/" + "/".join(["d" * 30] * 4) + "/app.darshan", "format": "darshan", "nprocs": 1,
            "run_time": 1.0, "io_time": 0.1, "stack": {"file_systems": [stack]}, "findings": [], "not_costed": [],
            "minor": [], "no_gain": [], "notes": []}


def test_stdout_is_not_on_an_unknown_file_system():
    job = _job(fs=None, files=1, paths=["<STDOUT>"], unit=None)
    said = " ".join(advice_text.header(job))
    assert "unknown file system" not in said and "not on a file system: the program's standard streams" in said
    job = _job(fs=None, files=2, paths=["/gpfs/x", "/gpfs/y"], unit=None)
    assert "2 files on a file system the log does not name (/gpfs/x, /gpfs/y)" in advice_text.header(job)
    lines = advise_view.job_lines(job, {})
    assert max(map(len, lines)) <= 80 and "".join(ln.strip() for ln in lines[:3]).startswith(
        "pario advise:" + job["source"]), lines   # broken after a '/' only ('examp' + 'les' was cut)
    assert all(ln.rstrip().endswith("/") for ln in lines[1:2]) and lines[2].strip().endswith("app.darshan"), lines


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")
def test_one_rank_is_one_rank(tmp_path):
    run = pario(["-a", "posix", "-w", "-r", "-t", "64k", "-b", "256k", "-n", "1", "-i", "1", "--no-probe"], tmp_path)
    md = pario(["--metadata", "--files-per-dir", "4", "-n", "1", "-i", "1", "--no-probe"], tmp_path)
    assert run.returncode == md.returncode == 0, run.stderr + md.stderr
    text = run.stdout + run.stderr + md.stdout + md.stderr
    wrong = re.findall(r"\b1 (?:ranks|directories|files|cases|processes|repetitions)\b", text)
    assert not wrong, wrong
    assert "1 rank" in text and "1 directory" in text
