"""The advise corpus (benchmarks/advise/corpus) and its scorer: every case's truth is well formed
and its logs recorded; the scorer's matching of findings to truths works on hand-made advice, and
score.py scores two tiny logs end to end (not the whole corpus: that is a benchmark)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "advise"
sys.path.insert(0, str(BENCH))

from corpus_score import Claim, drishti_claims, from_dict, pario_claims, score_log, totals  # noqa: E402
from corpus_truth import CORPUS, _case, classes_of, load_cases, mapping, problems  # noqa: E402

CASES = load_cases()


def test_the_corpus_has_forty_logs_and_more():
    assert sum(len(c.logs) for c in CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_truth_is_valid(case):
    assert problems(case) == []


def test_a_bad_truth_is_named():
    raw = {"what": "", "run": {"program": "tests/advise/nothing.c", "args": "x", "logs": ["strace"]},
           "defects": [{"kind": "slow", "what": "w", "right": ["magic"], "visible": ["darshan"]}],
           "wrong_fixes": {"classes": ["buffer"]}, "colour": 1}
    got = problems(_case(CORPUS / "made-up", raw), recorded=False)
    for part in ("unknown key 'colour'", "'what'", "not a file", "args must be", "logs must be",
                 "kind is not one", "fix class 'magic'", "visible names a log", "needs 'why'"):
        assert any(part in p for p in got), (part, got)


def test_fix_classes_come_from_settings_commands_and_words():
    m = mapping()
    assert classes_of({"kind": "buffer", "text": "join them", "command": "pario buffer --size 1m -- ./a"},
                      m) == ["buffer"]
    assert "hdf5-align" in classes_of({"kind": "code", "text": "x", "settings": {"hdf5.alignment": "4096"}}, m)
    assert "pnetcdf-align" in classes_of({"kind": "code", "text": "set nc_var_align_size=1048576"}, m)
    assert classes_of({"kind": "code", "text": "nothing recognisable"}, m) == []


TRUTH = {"what": "small writes, and a stat before each", "run": {"program": "tests/advise/patterns.c",
                                                                  "args": ["small-writes", "{dir}"]},
         "defects": [{"kind": "small-writes", "what": "20,000 writes of 512 B", "right": ["buffer"],
                      "wrong": ["collective"]},
                     {"kind": "stat-calls", "what": "a stat before each write", "visible": ["pario"],
                      "right": ["stat-once"]}],
         "tolerated": {"kinds": ["misaligned"], "why": "the same calls"},
         "wrong_fixes": {"classes": ["rebalance"], "why": "one process"}}


def finding(rule, seconds, **fix):
    return {"rule": rule, "seconds_at_stake": seconds, "fix": dict({"kind": "code", "text": ""}, **fix)}


def test_matching_on_hand_made_advice(tmp_path):
    m = mapping()
    case = _case(tmp_path / "two-defects", TRUTH)
    job = {"findings": [finding("posix-small-writes", 0.5, kind="buffer", command="pario buffer -- ./p"),
                        finding("misaligned", 0.4, text="call H5Pset_alignment"),
                        finding("stragglers", 0.2, text="give every rank the same amount of data")],
           "not_costed": [finding("independent-writes", None, text="use MPI_File_write_at_all")],
           "minor": [], "no_gain": [{"rule": "stat-calls"}]}
    claims, unmapped = pario_claims(job, m)
    s = score_log(case, "pario", "pario", claims, job_s=1.0, unmapped=unmapped)
    verdicts = {c.id: (c.verdict, c.fix) for c in s.claims}
    assert verdicts == {"posix-small-writes": ("true", "right"), "misaligned": ("tolerated", ""),
                        "stragglers": ("false", "wrong"), "independent-writes": ("false", "")}
    assert s.visible == ["small-writes", "stat-calls"] and s.found == ["small-writes"]   # no_gain is not shown
    assert s.at_stake_s == pytest.approx(1.1) and s.over_time
    t = totals([s])
    assert (t.true, t.false, t.tolerated, t.right, t.wrong) == (1, 2, 1, 1, 1)
    assert t.precision == pytest.approx(1 / 3) and t.recall == pytest.approx(0.5)
    # the Darshan log cannot show the stat calls: they are not counted against it
    d = score_log(case, "darshan", "drishti", drishti_claims(["M01", "P06", "P12"], m)[0], job_s=None)
    assert d.visible == ["small-writes"] and d.found == ["small-writes"]
    assert [(c.id, c.verdict) for c in d.claims] == [("M01", "false"), ("P06", "true")]   # P12 is an OK note
    # Drishti's collective-call advice is printed only when the log has the MPI-IO module
    assert d.claims[1].fixes == ["bigger-requests", "mpiio"]
    with_mpiio = drishti_claims(["P06"], m, {"POSIX", "MPI-IO"})[0][0]
    assert with_mpiio.fixes == ["bigger-requests", "collective"]


def test_a_log_passes_only_when_everything_on_it_is_right(tmp_path):
    m = mapping()
    case = _case(tmp_path / "c", TRUTH)
    right = {"findings": [finding("posix-small-writes", 0.5, kind="buffer", command="pario buffer -- ./p")]}
    darshan = score_log(case, "darshan", "pario", pario_claims(right, m)[0], job_s=1.0)
    assert darshan.passed   # the stat calls are not visible in a Darshan log
    pario_log = score_log(case, "pario", "pario", pario_claims(right, m)[0], job_s=1.0)
    assert not pario_log.passed   # ... and are in pario's
    over = score_log(case, "darshan", "pario", pario_claims(right, m)[0], job_s=0.4)
    assert over.over_time and not over.passed
    again = from_dict(json.loads(json.dumps(darshan.to_dict())))
    assert again.passed and [c.verdict for c in again.claims] == ["true"]


def test_a_rule_the_mapping_lacks_counts_false_and_is_named(tmp_path):
    case = _case(tmp_path / "c", TRUTH)
    claims, unmapped = pario_claims({"findings": [finding("brand-new-rule", 0.1)]}, mapping())
    s = score_log(case, "pario", "pario", claims, job_s=1.0, unmapped=unmapped)
    assert [c.verdict for c in s.claims] == ["false"] and "brand-new-rule" in s.notes[0]
    assert isinstance(Claim("x", "findings", [], []).kinds, list)


def test_score_runs_pario_advise_on_two_tiny_logs(tmp_path):
    """score.py end to end on two real, small pario logs with hand-written truths."""
    if not list((ROOT / ".venv" / "lib").glob("python*/site-packages/pario/bin/pario-engine")):
        pytest.skip("no engine under .venv: run make setup")
    base = tmp_path / "corpus"
    base.mkdir()
    shutil.copy(CORPUS / "mapping.toml", base)
    for name, src, truth in (
            ("small", "small-writes", 'what = "20,000 writes of 512 B"\n[run]\nprogram = "tests/advise/patterns.c"\n'
             'args = ["small-writes", "{dir}", "20000"]\nlogs = ["pario"]\n[[defects]]\nkind = "small-writes"\n'
             'what = "20,000 writes of 512 B"\nright = ["buffer", "bigger-requests"]\n'),
            ("clean", "mib-writes", 'what = "64 writes of 1 MiB"\n[run]\nprogram = "tests/advise/patterns.c"\n'
             'args = ["mib-writes", "{dir}", "64"]\nlogs = ["pario"]\n')):
        (base / name).mkdir()
        (base / name / "truth.toml").write_text(truth)
        shutil.copy(CORPUS / src / "pario.log", base / name / "pario.log")
        (base / name / "run.json").write_text(json.dumps({"logs": {"pario": {"log": "pario.log"}}}))
    out = tmp_path / "results"
    run = subprocess.run([sys.executable, str(BENCH / "score.py"), "--tool", "pario", "--corpus", str(base),
                          "--out", str(out), "--advise-arg=--no-calibrate"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    doc = json.loads(next(out.glob("score-*.json")).read_text())
    logs = {s["case"]: s for s in doc["logs"]}
    assert set(logs) == {"small", "clean"} and not any(s["error"] for s in logs.values())
    assert logs["small"]["visible"] == ["small-writes"]
    assert logs["small"]["job_s"] > 0 and logs["clean"]["job_s"] > 0
    summary = doc["summary"]["pario"]["all logs"]
    assert summary["logs"] == 2 and summary["visible"] == 1
    assert "precision" in run.stdout and "recall" in run.stdout
