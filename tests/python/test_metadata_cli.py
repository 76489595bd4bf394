"""The metadata workload through `pario bench` end to end: exact created/removed counts on 1, 2
and 4 ranks, shared tree and tree per rank, nothing left behind; the examples at reduced size;
the tables of `pario bench` and `pario results show`; bad input; cleanup of the run's own
directories after an interrupted run, and never of anything else."""
import os
import signal
import subprocess
import sys
import time

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, ROOT, SRC, assert_rejected, bench_json, ours, pario, write_job

pytestmark = pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")
ALL = ["create", "stat", "open_close", "read_small", "remove"]


def expected_files(files_per_dir, depth=0, branching=1, per_rank=False, ranks=1):
    return branching ** depth * files_per_dir * (ranks if per_rank else 1)


CASES = [
    {"name": "flat", "files_per_dir": 23, "file_size": "3k"},
    {"name": "tree", "files_per_dir": 5, "depth": 2, "branching": 3, "file_size": 100},
    {"name": "per-rank", "files_per_dir": 7, "depth": 1, "branching": 2, "per_rank_dirs": True},
    {"name": "create-remove", "files_per_dir": 11, "ops": ["create", "remove"], "per_rank_dirs": True},
]


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_counts_are_exact_and_nothing_is_left(tmp_path, ranks):
    job = write_job(tmp_path / "md.toml", CASES, {"workload": "metadata", "reps": 2, "ops": ALL})
    scratch = tmp_path / "scratch"
    run, doc = bench_json(["--config", str(job), "-n", str(ranks), "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert doc["status"] == "complete"
    rows = {r["name"]: r for r in doc["summary"]}
    for c in CASES:
        per_rep = expected_files(c["files_per_dir"], c.get("depth", 0), c.get("branching", 1),
                                 c.get("per_rank_dirs", False), ranks)
        md = rows[c["name"]]["metadata"]
        assert rows[c["name"]]["workload"] == "metadata"
        assert md["files_per_rep"] == per_rep
        assert md["created"] == md["removed"] == 2 * per_rep, (c["name"], md)
        assert md["left_behind"] == 0
        assert list(md["phases"]) == c.get("ops", ALL)
        for op, ph in md["phases"].items():
            assert ph["n"] == 2 and ph["files"] == per_rep and ph["files_per_s"]["median"] > 0, (c["name"], op)
        if "read_small" in md["phases"]:
            size = {"3k": 3072}.get(c.get("file_size"), c.get("file_size", 0))
            assert rows[c["name"]]["verify"]["checked_bytes"] == 2 * per_rep * size
            assert rows[c["name"]]["verify"]["errors"] == 0
    spec = {c["name"]: c["spec"] for c in doc["result"]["cases"]}
    assert spec["per-rank"]["shared_dir"] is False and spec["flat"]["shared_dir"] is True
    assert not {"keep", "lib", "hints", "strategy", "pattern", "xfer"} & set(spec["flat"])
    assert not ours(scratch), "the metadata workload left something behind"


@pytest.mark.e2e
@pytest.mark.mpi
def test_flags_table_and_results_show(tmp_path):
    scratch = tmp_path / "scratch"
    run = pario(["--metadata", "--files-per-dir", "40", "--file-size", "2k", "--depth", "1", "--branching", "2",
                 "--md-ops", "remove,create,read_small", "-i", "3", "-n", "2", "--dir", str(scratch), "--no-probe"],
                tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "metadata workload: files per second" in out or "files/s" in out
    for op in ("create", "read_small", "remove"):
        assert f" {op} " in out, out
    assert " stat " not in out and "open_close" not in out  # --md-ops chose three phases, in engine order
    assert "created 240, removed 240" in out and "verified 480 KiB" in out, out
    assert not ours(scratch)
    show = pario(["show", "last"], tmp_path, command="results")
    assert show.returncode == 0, show.stderr
    assert "created 240, removed 240" in show.stdout and "md-shared-40f-d1b2-2k" in show.stdout
    listing = pario([], tmp_path, command="results")
    assert "files/s" in listing.stdout


@pytest.mark.e2e
@pytest.mark.mpi
def test_examples_at_reduced_size(tmp_path):
    scratch = tmp_path / "scratch"
    # flags win over the job file: the ARCHER tree at 3 x 12 files of 300 KiB instead of 20 x 1800
    run, doc = bench_json(["--config", str(ROOT / "examples" / "metadata-archer.toml"), "-n", "2", "-i", "1",
                           "--files-per-dir", "12", "--branching", "3", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    md = doc["summary"][0]["metadata"]
    assert md["depth"] == 1 and md["file_size"] == 300 * 1024 and md["files_per_rep"] == 36
    assert list(md["phases"]) == ["create", "read_small", "remove"] and md["created"] == md["removed"] == 36
    assert doc["summary"][0]["verify"]["checked_bytes"] == 36 * 300 * 1024
    run, doc = bench_json(["--config", str(ROOT / "examples" / "metadata-lrz-dir-size.toml"), "-n", "2", "-i", "1",
                           "--files-per-dir", "9", "--dir", str(scratch)], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert [r["name"] for r in doc["summary"]] == ["dir-500", "dir-1000", "dir-2000", "dir-5000"]
    assert all(r["metadata"]["created"] == r["metadata"]["removed"] == 9 for r in doc["summary"])
    assert not ours(scratch)


@pytest.mark.e2e
@pytest.mark.mpi
def test_the_lrz_example_as_written(tmp_path):
    """Its sizes are small enough to run as they are: 500 to 5000 empty files in one directory."""
    run, doc = bench_json(["--config", str(ROOT / "examples" / "metadata-lrz-dir-size.toml"), "-n", "2", "-i", "1",
                           "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert [r["metadata"]["created"] for r in doc["summary"]] == [500, 1000, 2000, 5000]


REJECT = [
    (["--metadata", "--depth", "9"], "argument --depth: '9' is out of range; give a value from 0 to 8"),
    (["--metadata", "--branching", "65"], "argument --branching: '65' is out of range; give a value from 1 to 64"),
    (["--metadata", "--branching", "0"], "argument --branching: '0' is out of range"),
    (["--metadata", "--files-per-dir", "0"], "argument --files-per-dir: '0' is out of range"),
    (["--metadata", "--depth", "8", "--branching", "64"], "over 2^30"),
    (["--metadata", "--file-size", "2g"], "give a value from 0 to 1073741824"),
    (["--metadata", "--file-size", "lots"], "is not a size"),
    (["--metadata", "-a", "mpiio"], "runs POSIX calls"),
    (["--metadata", "-k"], "'keep' does not apply to the metadata workload"),
    (["--metadata", "--lib", "mode=iput"], "'lib' does not apply"),
    (["--metadata", "--hint", "cb_nodes=2"], "'hints' does not apply"),
    (["--metadata", "-t", "1m"], "'transfer' does not apply"),
    (["--metadata", "-w"], "'-w/-r/-W' does not apply"),
    (["--metadata", "--md-ops", "create,stats"], "did you mean stat?"),
    (["--files-per-dir", "3"], "applies to the metadata workload only"),
    (["--per-rank-dirs"], "applies to the metadata workload only"),
]


@pytest.mark.e2e
@pytest.mark.parametrize("args,match", REJECT, ids=[" ".join(a) for a, _ in REJECT])
def test_bad_metadata_input_is_one_line(tmp_path, args, match):
    assert_rejected(args, match, tmp_path)


def test_cleanup_removes_only_this_runs_directories(tmp_path):
    sys.path.insert(0, str(SRC))
    from pario.platform.scratch import Scratch
    s = Scratch(str(tmp_path), run_id="R1")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("x")
    tree = tmp_path / "pario.R1.0.md" / "d0"
    tree.mkdir(parents=True)
    (tree / "f.0").write_text("a")
    os.symlink(outside, tree / "link")               # rmtree must unlink it, not descend
    bp5 = tmp_path / "pario.R1.1.0"
    bp5.mkdir()
    (bp5 / "data.0").write_text("b")
    (tmp_path / "pario.R1.2.0").write_text("c")      # a plain file of the run
    os.symlink(outside, tmp_path / "pario.R1.3.0")   # not made by pario: left alone
    (tmp_path / "pario.R1.other").mkdir()            # not a case directory: left alone
    (tmp_path / "pario.R2.0.md").mkdir()             # another run: left alone
    assert s.cleanup() == 3
    assert sorted(os.listdir(tmp_path)) == ["outside", "pario.R1.3.0", "pario.R1.other", "pario.R2.0.md"]
    assert (outside / "precious").read_text() == "x"


@pytest.mark.e2e
@pytest.mark.mpi
def test_interrupted_metadata_run_removes_its_tree(tmp_path):
    """Ctrl-C while the tree exists: the run's DIR/PREFIX.0.md goes, the user's files stay."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "users-file").write_text("keep me")
    env = dict(os.environ, PYTHONPATH=str(SRC), PARIO_DB=str(tmp_path / "runs.db"), PARIO_ENGINE=ENGINE,
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "pario", "bench", "--metadata", "--files-per-dir", "4000",
                             "--depth", "1", "--branching", "8", "-i", "50", "-n", "2", "--dir", str(scratch),
                             "--no-probe", "--json"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not [e for e in ours(scratch) if e.endswith(".md")]:
            time.sleep(0.05)
        assert [e for e in ours(scratch) if e.endswith(".md")], "the metadata tree never appeared"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert ours(scratch) == ["users-file"]


@pytest.mark.e2e
@pytest.mark.mpi
def test_a_rank_that_dies_between_metadata_phases_is_named_where_it_was(tmp_path):
    """The metadata phases write the per-rank status files too: a rank that dies after phases
    completed is last seen in its phase, not 'stuck before the first phase'."""
    scratch = tmp_path / "scratch"
    run, doc = bench_json(["--metadata", "--files-per-dir", "20", "-i", "1", "--md-ops", "create,stat,remove",
                           "-n", "2", "--dir", str(scratch)], tmp_path, extra_env={"PARIO_FAULT": "die:1:1"})
    assert run.returncode == 1, run.stderr[-2000:]
    last = run.stderr.strip().splitlines()[-1]
    assert "before the first phase" not in last and "stat rep 0" in last, last
    assert doc["status"] == "partial" and [p["op"] for p in doc["result"]["cases"][0]["phases"]] == ["create"]
    assert not ours(scratch)
