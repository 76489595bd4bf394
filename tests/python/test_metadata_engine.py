"""The metadata workload (mdtest-like) in the engine alone: create, stat, open_close,
read_small and remove phases on 1, 2 and 4 ranks, shared tree and tree per rank. The counts of
created and removed files match exactly and nothing is left behind."""
import pytest

from engine_support import ENGINE, HAVE_MPIRUN, run_engine

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

ALL = ["create", "stat", "open_close", "read_small", "remove"]


def md(name, **kw):
    c = {"name": name, "workload": "metadata", "files_per_dir": 13, "file_size": 3901, "ops": ALL, "reps": 1}
    c.update(kw)
    return c


def leaves(c):
    return c.get("branching", 1) ** c.get("depth", 0)


def files_per_rep(c, n):
    return leaves(c) * c["files_per_dir"] * (1 if c.get("shared_dir", True) else n)


def dirs_per_rep(c, n):
    tree = sum(c.get("branching", 1) ** lv for lv in range(c.get("depth", 0) + 1))
    return tree if c.get("shared_dir", True) else 1 + n * tree


CASES = [
    md("shared-flat"),
    md("shared-tree", depth=2, branching=3, files_per_dir=5, reps=2),
    md("per-rank", shared_dir=False, depth=1, branching=2, files_per_dir=7, file_size=0),
    md("stat-only", ops=["stat", "read_small"], files_per_dir=3, file_size=300 * 1024),  # untimed create/remove
    md("create-remove", ops=["create", "remove"], shared_dir=False, files_per_dir=40, file_size=1),
]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_counts_match_and_nothing_left(tmp_path, n):
    proc, doc = run_engine(tmp_path, CASES, n=n, prefix="pario.md")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert doc["status"] == "complete"
    for c, r in zip(CASES, doc["cases"]):
        per_rep = files_per_rep(c, n)
        m = r["metadata"]
        assert m["files_per_rep"] == per_rep and r["files"] == per_rep
        assert m["dirs_per_rep"] == dirs_per_rep(c, n)
        assert m["created"] == m["removed"] == per_rep * c["reps"], (c["name"], m)
        assert m["left_behind"] == 0
        assert [p["op"] for p in r["phases"]] == c["ops"] * c["reps"]
        for p in r["phases"]:
            assert p["ops"] == per_rep, (c["name"], p["op"])  # every file, once per phase
            assert p["iops"] > 0 and len(p["ranks"]["xfer"]) == n
            if p["op"] == "create":
                assert p["bytes"] == per_rep * c["file_size"]
            if p["op"] == "read_small":
                assert p["bytes"] == p["verify"]["checked_bytes"] == per_rep * c["file_size"]
                assert p["verify"]["errors"] == 0
        assert r["spec"]["workload"] == "metadata"
    # nothing but the engine's own two documents
    assert {p.name for p in tmp_path.iterdir()} == {"spec.json", "result.json"}


@pytest.mark.parametrize("shared", [True, False])
def test_failure_keeps_what_is_not_ours(tmp_path, shared):
    """The tree's root already exists as a file (not pario's): the case fails with one line,
    and that file is neither removed nor changed."""
    squatter = tmp_path / "pario.md.0.md"
    squatter.write_text("not pario's")
    proc, doc = run_engine(tmp_path, [md("x", shared_dir=shared)], n=2, prefix="pario.md")
    assert proc.returncode == 1
    assert doc["status"] == "failed" and "pario.md.0.md" in doc["error"]["message"]
    assert "\n" not in doc["error"]["message"]
    assert squatter.read_text() == "not pario's"
    assert {p.name for p in tmp_path.iterdir()} == {"spec.json", "result.json", squatter.name}


@pytest.mark.parametrize("extra,message", [
    ({"files_per_dir": 0}, "files_per_dir >= 1"),
    ({"ops": ["stat", "create"]}, "metadata ops must be in the order create, stat, open_close, read_small, remove"),
    ({"ops": ["write"]}, "ops must be a list of create, stat, open_close, read_small, remove"),
    ({"backend": "mpiio"}, "backend must be posix"),
    ({"keep": True}, "takes no keep"),
    ({"depth": 9}, "depth 0..8"),
])
def test_bad_metadata_spec(tmp_path, extra, message):
    proc, doc = run_engine(tmp_path, [md("bad", **extra)], n=1, prefix="pario.md")
    assert proc.returncode == 2
    assert message in doc["error"]["message"], doc["error"]["message"]
    assert {p.name for p in tmp_path.iterdir()} == {"spec.json", "result.json"}
