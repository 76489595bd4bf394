"""The pieces of pario advise that need no program run: request sizes against a limit in both log
formats (exactly 1 MiB is not small in either), the per-call fit, estimates, ranking (one stance
per file, fixes measured to gain nothing dropped), plans scaled down, malformed logs as one line,
and the terminal report in 80 columns."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from advise_support import ROOT, validate

sys.path.insert(0, str(ROOT / "src"))

from pario.advise import advisor, costs, darshan_log, read_pario  # noqa: E402
from pario.advise.costs import Coalesce, FromLog, Measured, Ratio  # noqa: E402
from pario.advise.facts import FsFacts, StackFacts  # noqa: E402
from pario.advise.job import Bucket, Job, Rec, Sizes, is_mpi_helper  # noqa: E402
from pario.advise.rules.base import Candidate, Ctx, Plan  # noqa: E402
from pario.advise.rules.small import RULES as SMALL  # noqa: E402
from pario.model.errors import ParioError  # noqa: E402
from pario.model.findings import Evidence, Fix  # noqa: E402
from pario.report.terminal.advise import WIDTH, render  # noqa: E402

MIB = 1 << 20


def test_exact_mib_is_not_small_in_either_format():
    # pario: 1 MiB requests are in 1M_4M; Darshan: in 100K_1M (up to and with 1 MiB), placed by
    # its exact ACCESS sizes
    pario = Sizes(exact={MIB: 2000}, buckets=[Bucket(MIB, 4 * MIB - 1, 2000)])
    darshan = Sizes(exact={MIB: 2000}, buckets=[Bucket(102401, MIB, 2000)])
    assert pario.below(MIB) == (0, 0)
    assert darshan.below(MIB) == (0, 0)
    # one byte less is small in both
    assert Sizes(exact={MIB - 8: 5}, buckets=[Bucket(102400, MIB - 1, 5)]).below(MIB) == (5, 0)
    assert Sizes(exact={MIB - 8: 5}, buckets=[Bucket(102401, MIB, 5)]).below(MIB) == (5, 0)
    # sizes the log cannot place are counted apart, never as small
    assert Sizes(exact={}, buckets=[Bucket(102401, MIB, 7)]).below(MIB) == (0, 7)


def test_fit_recovers_the_call_cost_and_bandwidth():
    pts = [(s, 2e-6 + s / 2e9) for s in (512, 8192, MIB, 8 * MIB)]
    line = costs.fit(pts)
    assert line is not None
    assert line.c0 == pytest.approx(2e-6, rel=1e-6) and line.bw == pytest.approx(2e9, rel=1e-6)
    assert line.break_even == pytest.approx(4000, rel=1e-6)
    assert costs.fit([(512, 1e-6)]) is None


def _m(name, time_s, nbytes, lo=None, hi=None, ranks=1):
    return Measured(name=name, op="write", ranks=ranks, bytes=nbytes, calls=1, time_s=time_s, xfer_s=time_s,
                    spread=0.0, reps=3, run_id=7, lo=lo if lo is not None else time_s,
                    hi=hi if hi is not None else time_s)


def test_coalesce_estimate_uses_the_better_pattern_measured_here():
    cost = Coalesce(log_s=2.0, calls=2_000_000, nbytes=1024 * MIB, size=512, target=MIB, module="posix", op="write")
    sec, how = costs.estimate(cost, None, {"after": _m("after", 0.5, 1024 * MIB)})
    assert sec == pytest.approx(1.5)
    assert "calibration run 7" in how and "2,000,000 writes" in how
    assert costs.estimate(cost, None, None)[0] is None   # neither a measurement nor a calibration


def test_ratio_estimate_and_not_costed():
    sec, how = costs.estimate(Ratio(log_s=10.0, what="collective writes"), None,
                              {"before": _m("before", 4.0, MIB), "after": _m("after", 1.0, MIB)})
    assert sec == pytest.approx(7.5) and "0.25x" in how
    assert costs.estimate(Ratio(log_s=10.0, what="x"), None, None)[0] is None


def _cand(rule, seconds=None, stance=None, cost=None):
    return Candidate(rule=rule, title=rule, evidence=Evidence(text="t"), fix=Fix(kind="code", text="f"),
                     cost=cost or FromLog(seconds or 0.0, "log"), stance=stance)


def test_one_stance_per_file_the_costlier_stays():
    a = _cand("independent-writes", 3.0, stance=("/f", "collective"))
    b = _cand("collective-buffering-writes", 1.0, stance=("/f", "independent"))
    r = advisor.rank([a, b], None, None, 100.0, 10.0)
    assert [f.rule for f in r.findings] == ["independent-writes"]
    assert [g["rule"] for g in r.no_gain] == ["collective-buffering-writes"]


def test_fix_not_faster_in_every_repetition_is_inconclusive_and_slower_is_not_advised():
    plan = Plan(ranks=2, before={"backend": "mpiio", "transfer": MIB, "block": 4 * MIB, "ops": ["write"]},
                after={"backend": "mpiio", "transfer": MIB, "block": 4 * MIB, "ops": ["write"]}, log_s=5.0, what="w")
    c = _cand("collective-buffering-writes", cost=Ratio(log_s=5.0, what="w"))
    c.plan = plan

    def measure(after):
        return lambda queries: {q.key: {"before": _m("before", 1.0, MIB, 0.9, 1.1), "after": after} for q in queries}
    # the fix's repetitions overlap the job pattern's: shown, said to be inconclusive
    r = advisor.rank([c], None, measure(_m("after", 0.95, MIB, 0.8, 1.2)), 100.0, 10.0)
    shown = r.findings + r.minor
    assert not r.no_gain and [f.rule for f in shown] == ["collective-buffering-writes"]
    assert "inconclusive here: the fix 0.8-1.2 s against 0.9-1.1 s" in shown[0].estimate
    # overlapping, but slower by the median: no gain to show, checked, not advised
    r = advisor.rank([c], None, measure(_m("after", 1.05, MIB, 0.8, 1.2)), 100.0, 10.0)
    assert not r.findings and not r.minor and "1.05x the time by the median" in r.no_gain[0]["why"]
    # the fix's fastest repetition slower than the job pattern's slowest: checked, not advised
    r = advisor.rank([c], None, measure(_m("after", 1.3, MIB, 1.2, 1.4)), 100.0, 10.0)
    assert not r.findings and not r.minor and r.no_gain[0]["rule"] == "collective-buffering-writes"


def test_minor_findings_are_kept_apart():
    r = advisor.rank([_cand("a", 0.001), _cand("b", 5.0), _cand("c", None, cost=costs.NotCosted("x"))],
                     None, None, 100.0, 10.0)
    assert [f.rule for f in r.findings] == ["b"]
    assert [f.rule for f in r.minor] == ["a"] and [f.rule for f in r.not_costed] == ["c"]


def test_scaled_plans_keep_whole_transfers_on_both_sides():
    before = {"backend": "posix", "transfer": 512, "block": 512 * 3_000_000}
    after = {"backend": "posix", "transfer": MIB, "block": 512 * 3_000_000}
    small = advisor.scaled(before, after, 0.01)
    assert small["block"] % 512 == 0 and small["block"] % MIB == 0 and small["block"] > 0
    seg = advisor.scaled({"segments": 1000, "transfer": 1024, "block": 1024}, {}, 0.1)
    assert seg["segments"] == 100


def test_small_limit_is_the_larger_of_unit_and_break_even():
    rec = Rec(module="posix", path="/d/f", rank=0, writes=10, bytes_written=10 * 3000,
              write_sizes=Sizes(exact={3000: 10}, buckets=[Bucket(1024, 10239, 10)]))
    job = Job(source="x", format="pario", nprocs=1, run_time=1.0, records=[rec])
    stack = StackFacts(files={"/d/f": FsFacts(fs="ext4", unit=4096, unit_source="block")})
    slow = costs.Model(write=costs.Line(c0=10e-6, bw=1e9))   # break-even 10 kB: 3000 B is small
    fast = costs.Model(write=costs.Line(c0=0.1e-6, bw=1e9))  # break-even 100 B: only the unit counts
    assert Ctx(job, stack, slow, 4).small_limit(rec, "write")[0] == 10000
    assert Ctx(job, stack, fast, 4).small_limit(rec, "write")[0] == 4096
    found = [c for rule in SMALL for c in rule(Ctx(job, stack, fast, 4))]
    assert [c.rule for c in found] == ["posix-small-writes"]


def test_mpi_helper_files():
    for p in ("/tmp/ompi.vm.0/pid.1/1/f_cid-0-1.sm", "/scratch/x/out.locktest.3", "/scratch/x/.out.shfp.12",
              "/dev/shm/vader_segment.vm.0.1.0"):
        assert is_mpi_helper(p), p
    for p in ("/scratch/x/out", "/scratch/sm/data", "/scratch/x/out.h5"):
        assert not is_mpi_helper(p), p


@pytest.mark.parametrize("content", ["", "{", '{"format": "other"}',
                                     '{"format": "pario-profile", "version": 1, "kind": "job", "processes": [1]}',
                                     '{"format": "pario-profile", "version": 1, "kind": "job", "processes": '
                                     '[{"process": {"rank": 0}, "modules": {"posix": {"records": [{"c": []}]}}}]}'])
def test_malformed_profile_logs_are_one_line(tmp_path, content):
    log = tmp_path / "bad.log"
    log.write_text(content)
    with pytest.raises(ParioError) as err:
        read_pario.read(str(log))
    assert "\n" not in str(err.value) and str(log) in str(err.value)


def test_cli_bad_input_is_one_line_and_other_logs_are_kept(tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_text("not json")
    env = {"PYTHONPATH": str(ROOT / "src"), "PARIO_DB": str(tmp_path / "r.db"), "PATH": "/usr/bin:/bin"}
    for args in (["advise"], ["advise", str(bad)], ["advise", str(tmp_path / "missing.darshan")],
                 ["advise", "x", "--scale", "0"], ["advise", "x", "--verify", "--no-calibrate"]):
        run = subprocess.run([sys.executable, "-m", "pario", *args], capture_output=True, text=True, env=env)
        assert run.returncode == 2, (args, run.stderr)
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_darshan_missing_says_how_to_get_it(tmp_path, monkeypatch):
    log = tmp_path / "x.darshan"
    log.write_bytes(b"3.41\0\0\0\0")
    monkeypatch.setattr(darshan_log, "available", lambda: False)
    with pytest.raises(ParioError, match=r"pip install 'pario\[darshan\]'"):
        darshan_log.read(str(log))


def _doc(long: str) -> dict:
    f = {"rule": "posix-small-writes", "title": "small posix writes (512 B)",
         "evidence": {"text": "200,000 writes " * 12, "counters": {"POSIX_WRITES": 200000}, "files": [long],
                      "ranks": [0]},
         "fix": {"kind": "buffer", "text": "coalesce " * 20, "command": f"pario buffer --size 1m -- {long} --x",
                 "settings": {}, "rendered": {"romio": "# a comment " * 9 + "\ncb_nodes 4"}},
         "seconds_at_stake": 1.5, "estimate": "the log: " * 20, "confidence": "high",
         "verification": {"before_s": 2.0, "after_s": 0.5, "runs": [3], "note": "n " * 50}, "plot": None}
    job = {"source": long, "format": "pario", "command": long, "nprocs": 4, "run_time": 3.0, "io_time": 2.0,
           "partial": ["cut " * 30], "ignored_files": [long], "stack": {"impl": "romio", "impl_source": "x " * 40,
           "file_systems": [{"fs": "ext4", "unit": 4096, "unit_source": "s " * 30, "files": 1}],
                                                                   "measured_in": None, "measured_why": ""},
           "calibration": None, "findings": [f], "not_costed": [f], "minor": [f],
           "no_gain": [{"rule": "a", "title": "t", "why": "w " * 60}], "notes": ["n " * 60]}
    return {"schema": "pario.advise/1", "jobs": [job, job], "errors": [], "counter_docs": {"POSIX_WRITES": "d " * 50}}


def test_terminal_report_fits_80_columns():
    long = "/scratch/" + "/".join(["a-rather-long-directory-name"] * 6) + "/file.dat"
    doc = _doc(long)
    validate(doc)
    lines = render(doc)
    assert lines and max(len(line) for line in lines) <= WIDTH, [line for line in lines if len(line) > WIDTH]
    assert any(line.strip().startswith("$ pario buffer") for line in lines)
    json.dumps(doc)


def synthetic_log(path, writes=1000, size=512, seconds=0.5):
    """A pario profile log written here by hand: one process, one file, `writes` writes of `size`."""
    names = ["POSIX_OPENS", "POSIX_SIZE_WRITE_100_1K", "POSIX_BYTES_WRITTEN", "POSIX_FILE_ALIGNMENT",
             "POSIX_CONSEC_WRITES", "POSIX_SEQ_WRITES", "POSIX_NPROCS"]
    module = {"counters": names, "kinds": ["count"] * len(names), "ops": ["sum"] * len(names),
              "fcounters": ["POSIX_F_WRITE_TIME"], "fkinds": ["seconds"], "fops": ["sum"],
              "records": [{"id": "00000000000000aa", "path": "/nonexistent-dir/out", "rank": 0,
                           "c": [1, writes, writes * size, 4096, writes - 1, writes - 1, 1], "fc": [seconds],
                           "sizes": [[size, writes]], "sizes_other": 0, "strides": [[size, writes - 1]],
                           "strides_other": 0}]}
    proc = {"format": "pario-profile", "version": 1, "kind": "process",
            "process": {"host": "h", "pid": 1, "rank": -1, "nprocs": 0, "start": 0.0, "end": 1.0,
                        "reason": "exit", "partial": False, "cmdline": ["./app"]},
            "settings": {}, "limits": {"dropped_records": 0, "trace_kept": 0, "trace_dropped": 0,
                                       "trace_capacity": 0},
            "modules": {"posix": module, "stdio": dict(module, records=[]), "mpiio": dict(module, records=[])}}
    path.write_text(json.dumps({"format": "pario-profile", "version": 1, "kind": "job",
                                "job": {"command": ["./app"]}, "processes": [proc]}))
    return path


def test_without_an_engine_the_advice_comes_uncosted(tmp_path):
    log = synthetic_log(tmp_path / "app.log")
    env = {"PYTHONPATH": str(ROOT / "src"), "PARIO_DB": str(tmp_path / "r.db"), "PATH": "/usr/bin:/bin",
           "PARIO_ENGINE": str(tmp_path / "no-engine")}
    run = subprocess.run([sys.executable, "-m", "pario", "advise", str(log), "--verify", "--json"],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    validate(doc)
    job = doc["jobs"][0]
    assert [f["rule"] for f in job["not_costed"]] == ["posix-small-writes"]
    assert any("--verify ran nothing" in n for n in job["notes"])
    cal = subprocess.run([sys.executable, "-m", "pario", "advise", "--calibrate"], capture_output=True, text=True,
                         env=env)
    assert cal.returncode == 3 and "no-engine" in cal.stderr and "Traceback" not in cal.stderr


def test_every_rule_links_to_a_report_plot():
    """Each rule the rule modules can emit names the profile plot of `pario report` that shows
    its evidence (a rule added without one would leave its findings unlinked)."""
    import re

    from pario.advise.plots import plot_for
    from pario.report.html.anchors import profile as anchor

    ids = set()
    for src in (ROOT / "src" / "pario" / "advise" / "rules").glob("*.py"):
        for rule in re.findall(r'rule=f?"([^"]+)"', src.read_text()):
            for module in ("posix", "stdio", "mpiio"):
                for op in ("write", "read"):
                    ids.add(rule.replace("{module}", module).replace("{op}", op))
    assert len(ids) >= 20
    views = ("sizes", "files", "time", "spread", "hints")
    for rule in ids:
        assert plot_for(rule, 2) in {anchor(2, v) for v in views}, rule
    assert plot_for("no-such-rule", 1) is None


def test_tune_case_from_a_log_without_data_or_sizes():
    """`pario tune --from-log`: a log with no file holding data, or without request sizes, is one
    clear error, not a made-up case (the cases taken from real logs: test_advise_mpi.py)."""
    from pario.advise.jobcase import dominant_case

    empty = Job(source="x.log", format="pario", nprocs=1, run_time=1.0,
                records=[Rec(module="posix", path="/d/in", rank=0, opens=3)])
    with pytest.raises(ParioError, match="no file with data"):
        dominant_case(empty)
    blind = Job(source="y.darshan", format="darshan", nprocs=2, run_time=1.0,
                records=[Rec(module="posix", path="/d/out", rank=-1, nprocs=2, bytes_written=1 << 20)])
    with pytest.raises(ParioError, match="does not say how large the writes"):
        dominant_case(blind)
    sized = Job(source="z.log", format="pario", nprocs=2, run_time=1.0,
                records=[Rec(module="posix", path="/d/out", rank=-1, nprocs=2, writes=256, bytes_written=1 << 20,
                             write_time=0.5)])
    taken = dominant_case(sized)
    assert taken.argv() == "-a posix -t 4096 -b 524288 -n 2 -w" and taken.objective == "write"


def test_tune_case_from_a_node_local_file_is_a_file_per_node():
    """One path in each node's /tmp (pario profile over 3 nodes reduces it per node) is 3 files of
    2 ranks each, not one file of 2 ranks holding the 3 nodes' bytes: the case is --strategy
    per-node on 6 ranks, each rank's own bytes per rank."""
    from pario.advise.jobcase import dominant_case

    recs = [Rec(module="posix", path="/tmp/ckpt", rank=-1, nprocs=2, writes=64, bytes_written=64 << 20,
                write_time=0.5, node=f"node{k}", node_ranks=[2 * k - 2, 2 * k - 1]) for k in (1, 2, 3)]
    taken = dominant_case(Job(source="n.log", format="pario", nprocs=6, run_time=2.0, records=recs))
    assert taken.argv() == "-a posix -t 1048576 -b 33554432 --strategy per-node -n 6 -w", taken.argv()
    assert any("each of 3 nodes has its own /tmp/ckpt" in line for line in taken.said), taken.said


def test_tune_case_from_a_log_of_odd_sized_calls_is_a_case_the_engine_runs():
    """Darshan's noposix.darshan (9,076-byte reads) gave `-t 9076`, which the engine refuses (its data
    pattern is 8-byte words): the case is tuned with the nearest multiple of 8 below, and says so."""
    from pario.advise.jobcase import dominant_case

    odd = Job(source="n.darshan", format="darshan", nprocs=2, run_time=1.0,
              records=[Rec(module="stdio", path="/d/in", rank=-1, nprocs=2, reads=390, bytes_read=390 * 9076,
                           read_time=0.5)])
    taken = dominant_case(odd)
    assert taken.flags["transfer"] == "9072" and int(taken.flags["block"]) % 9072 == 0, taken.flags
    assert any("9,076-byte" in line and "9,072" in line for line in taken.said), taken.said


def test_a_buffer_fix_is_proven_by_the_program_only_where_it_can_run_again(tmp_path):
    """rerun.plan: the program as the log recorded it, or the reason it cannot run here (then
    --verify falls back to pario bench's replay of the pattern and says so)."""
    from pario.advise import rerun
    from pario.model.findings import Finding

    fix = Finding(rule="posix-small-writes", title="t", evidence=Evidence(text=""),
                  fix=Fix(kind="buffer", text="", command="pario buffer --size 512k -- /bin/true"))
    serial = Job(source="x", format="pario", nprocs=1, run_time=0.5, argv=["/bin/true"], cwd=str(tmp_path),
                 launcher="direct")
    prog = rerun.plan(fix, serial, budget_s=60)
    assert prog.argv == ["/bin/true"] and prog.size == 512 << 10 and prog.pairs == rerun.MAX_PAIRS
    assert rerun.plan(fix, serial, budget_s=3).pairs == 3              # 3 runs each way fit, not 5
    cases = [
        (Job(source="x", format="darshan", nprocs=1, run_time=1, command="/bin/true"), "Darshan log keeps"),
        (Job(source="x", format="pario", nprocs=4, run_time=1, argv=["/bin/true"], launcher="mpirun"),
         "an MPI program (4 ranks)"),
        (Job(source="x", format="pario", nprocs=1, run_time=1, argv=[str(tmp_path / "gone")]),
         "is not an executable file here"),
        (Job(source="x", format="pario", nprocs=1, run_time=1, argv=["no-such-program-here"]), "not on PATH"),
        (Job(source="x", format="pario", nprocs=1, run_time=1, argv=["/bin/true"], cwd=str(tmp_path / "nodir")),
         "is not here"),
        (Job(source="x", format="pario", nprocs=1, run_time=30, argv=["/bin/true"]), "over --budget 60 s"),
    ]
    for job, why in cases:
        with pytest.raises(ParioError, match=re.escape(why)):
            rerun.plan(fix, job, budget_s=60)
