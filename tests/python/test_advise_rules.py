"""Each finding of `pario advise` against a program with the defect and a near-miss without it,
both profiled with `pario profile` here: the finding appears for the first and not for the second.
Run with --no-calibrate (detection only: what a rule sees; costing is test_advise_e2e.py's)."""
from __future__ import annotations

import pytest

from advise_support import advise, build, profile, rules, validate
from profile_support import preload_lib

pytestmark = [pytest.mark.e2e]

# (program mode with the defect, near-miss mode, the rule)
CASES = [
    ("small-writes", "mib-writes", "posix-small-writes"),     # exactly 1 MiB is not small
    ("small-reads", "mib-reads", "posix-small-reads"),
    ("stdio-flush", "stdio-small", "stdio-small-writes"),   # a stream's buffer joins unflushed lines
    ("misaligned", "mib-writes", "misaligned"),
    ("random", "ordered", "random-writes"),
    ("reread", "read-once", "redundant-reads"),
    ("readback", "write-only", "read-back"),
    ("sync-each", "sync-once", "sync-every-write"),
    ("many-files", "one-file", "many-files"),
    ("reopen", "open-once", "reopen"),
    ("stat-each", "stat-once", "stat-calls"),
]


@pytest.fixture(scope="module")
def advice(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("advise-serial")
    lib = preload_lib(tmp_path_factory)
    exe = build(tmp, "patterns")
    modes = sorted({m for d, n, _ in CASES for m in (d, n)})
    logs = {m: profile(exe, m, lib, tmp) for m in modes}
    doc = advise([logs[m] for m in modes], tmp, "--no-calibrate")
    validate(doc)
    jobs = {m: j for m, j in zip(modes, doc["jobs"])}
    assert [j["source"] for j in doc["jobs"]] == [str(logs[m]) for m in modes]
    return jobs


@pytest.mark.parametrize("defect,near_miss,rule", CASES, ids=[c[2] for c in CASES])
def test_defect_found_and_near_miss_silent(advice, defect, near_miss, rule):
    assert rule in rules(advice[defect]), f"{rule} not found for {defect}: {rules(advice[defect])}"
    assert rule not in rules(advice[near_miss]), f"{rule} found for the near-miss {near_miss}"


def test_near_misses_are_clean(advice):
    """The near-misses do the same work the right way: none of their own rules fires."""
    ours = {rule for _, _, rule in CASES}
    for _, near_miss, _ in CASES:
        assert not rules(advice[near_miss]) & ours - {"read-back"}, (near_miss, rules(advice[near_miss]))


def test_small_writes_fix_is_pario_buffer_with_a_size(advice):
    job = advice["small-writes"]
    f = next(f for f in job["not_costed"] if f["rule"] == "posix-small-writes")
    assert f["fix"]["kind"] == "buffer"
    assert f["fix"]["command"].startswith("pario buffer --size ")
    assert "patterns small-writes" in f["fix"]["command"]   # the job's own command line
    assert "POSIX_WRITES" in f["evidence"]["counters"] and f["evidence"]["files"][0].endswith("/out")
    assert f["seconds_at_stake"] is None and f["estimate"].startswith("not costed")
