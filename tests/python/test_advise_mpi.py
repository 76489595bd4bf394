"""The MPI findings of `pario advise` (shared files, collective or not, balance, hints) and the
Lustre ones (against `pario stack --json` documents of a Lustre directory, since this machine has
none), each against an MPI program with the defect and a near-miss, profiled with `pario profile`."""
from __future__ import annotations

import json
import shutil

import pytest

from advise_support import advise, build, pario, profile, rules, validate
from profile_support import preload_lib

pytestmark = [pytest.mark.mpi, pytest.mark.e2e,
              pytest.mark.skipif(not (shutil.which("mpicc") and shutil.which("mpirun")),
                                 reason="no MPI (mpicc/mpirun) on PATH")]

CASES = [
    ("indep-small", "coll-small", "independent-writes"),
    ("coll-large", "indep-large", "one-aggregator"),   # OMPIO on one node: rank 0 aggregates for all
    ("serial", "spread", "one-rank-io"),
    ("uneven", "even", "stragglers"),
    ("hints-romio", "hints-ompio", "hints-not-in-effect"),
]
MODES = sorted({m for d, n, _ in CASES for m in (d, n)} | {"ordered", "coll-cb3", "coll-cb2"})

# `lfs getstripe -d` of a directory on ARCHER's /work (the ARCHER seed, ~/shared/seeds) as
# pario stack records it, with the OST count of its /fs3 (48): only the layout differs per test.
def lustre_stack(tmp, stripe_count, ost_count=48):
    from pario.platform.fsinfo import parse_getstripe
    text = f"dir\nstripe_count:   {stripe_count} stripe_size:    1048576 stripe_offset:  -1\n"
    layout = {k: v for k, v in parse_getstripe(text)[0].items() if k != "path"}
    doc = {"path": "/work/x", "fs": {"type": "lustre", "block_size": 4096, "mount_point": "/work"},
           "lustre": {"available": True, "dir_layout": layout, "ost_count": ost_count}}
    path = tmp / f"lustre-c{stripe_count}.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("advise-mpi")
    lib = preload_lib(tmp_path_factory)
    exe = build(tmp, "mpi_patterns", cc="mpicc")
    serial = build(tmp, "patterns")
    out = {m: profile(exe, m, lib, tmp, ranks=4) for m in MODES}
    out["many-files"] = profile(serial, "many-files", lib, tmp)
    out["one-file"] = profile(serial, "one-file", lib, tmp)
    return tmp, out


@pytest.fixture(scope="module")
def advice(logs):
    tmp, paths = logs
    doc = advise([paths[m] for m in MODES], tmp, "--no-calibrate")
    validate(doc)
    return dict(zip(MODES, doc["jobs"]))


@pytest.mark.parametrize("defect,near_miss,rule", CASES, ids=[c[2] for c in CASES])
def test_defect_found_and_near_miss_silent(advice, defect, near_miss, rule):
    assert rule in rules(advice[defect]), f"{rule} not found for {defect}: {rules(advice[defect])}"
    assert rule not in rules(advice[near_miss]), f"{rule} found for the near-miss {near_miss}"


def test_one_stance_per_file(advice):
    """Independent small pieces -> collective; large collective -> buffering off: never both."""
    for mode in MODES:
        r = rules(advice[mode])
        assert not ({"independent-writes", "collective-buffering-writes"} <= r), mode


def test_helper_files_do_not_make_imbalance(advice):
    """Open MPI's shared-file-pointer helpers (*.locktest.N, *.sm) are left out, not advised on
    (Drishti reports them as imbalanced files)."""
    job = advice["ordered"]
    # pario profile folds the MPI runtime's files into one '<MPI runtime files>' record (unless
    # --runtime-files): either way they are named as left out
    ignored = job["ignored_files"]
    assert "<MPI runtime files>" in ignored or (any(p.endswith(".sm") for p in ignored)
                                                 and any(".locktest." in p for p in ignored))
    texts = json.dumps([job[g] for g in ("findings", "not_costed", "minor")])
    assert ".locktest" not in texts and ".sm" not in texts


def test_hints_not_in_effect_say_why(advice):
    f = next(f for g in ("findings", "not_costed") for f in advice["hints-romio"][g]
             if f["rule"] == "hints-not-in-effect")
    assert "romio_cb_write=disable requested" in f["evidence"]["text"]
    assert "ompio ignores" in f["evidence"]["text"]


@pytest.mark.parametrize("mode,stripes,expect", [("coll-large", 1, True), ("coll-large", 4, False)])
def test_lustre_one_stripe(logs, mode, stripes, expect):
    tmp, paths = logs
    doc = advise([paths[mode]], tmp, "--no-calibrate", "--stack", lustre_stack(tmp, stripes))
    job = doc["jobs"][0]
    assert ("lustre-one-stripe" in rules(job)) == expect
    if expect:
        f = next(f for f in job["not_costed"] if f["rule"] == "lustre-one-stripe")
        # 4 writers of a 64 MiB file, 48 OSTs: 4 stripes of the directory's 1 MiB
        assert f["fix"]["command"].startswith("lfs setstripe -c 4 -S 1M ")


@pytest.mark.parametrize("mode,stripes,expect", [("many-files", 4, True), ("many-files", 1, False),
                                                 ("one-file", 4, False)])
def test_lustre_small_files_striped(logs, mode, stripes, expect):
    tmp, paths = logs
    doc = advise([paths[mode]], tmp, "--no-calibrate", "--stack", lustre_stack(tmp, stripes))
    assert ("lustre-small-files-striped" in rules(doc["jobs"][0])) == expect


@pytest.mark.parametrize("mode,expect", [("coll-cb3", True), ("coll-cb2", False)])
def test_aggregators_out_of_step_with_stripes(logs, mode, expect):
    tmp, paths = logs
    doc = advise([paths[mode]], tmp, "--no-calibrate", "--stack", lustre_stack(tmp, 4))
    assert ("aggregators-vs-stripes" in rules(doc["jobs"][0])) == expect


TUNED = [("indep-small", "-a mpiio -t 1024 -b 1024 -s 2000 -n 4 -w"),   # interleaved 1 KiB pieces
         ("coll-large", "-a mpiio -c -t 4194304 -b 16777216 -n 4 -w"),
         ("spread", "-a posix -t 1048576 -b 8388608 -F -n 4 -w")]   # a file per rank


@pytest.mark.parametrize("mode,case", TUNED, ids=[t[0] for t in TUNED])
def test_tune_takes_the_case_from_the_log(logs, mode, case):
    """`pario tune --from-log LOG`: the case of the job's busiest file, said at run time."""
    tmp, paths = logs
    run = pario(["tune", "--from-log", paths[mode], "--dry-run"], None, tmp)
    assert run.returncode == 0, run.stderr
    first = run.stderr.splitlines()[0]
    assert first == f"pario: tuning the case taken from {paths[mode]}: {case}", run.stderr
    assert "the file the job spent most I/O time on" in run.stderr and "pario tune:" in run.stdout + run.stderr


def test_tune_from_a_many_files_log_says_why_not(logs):
    tmp, paths = logs
    run = pario(["tune", "--from-log", paths["many-files"], "--dry-run"], None, tmp)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1 and "spread over" in lines[0] and "pario advise" in lines[0]
