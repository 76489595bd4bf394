"""pario tune and the page cache: synthetic sessions (tune.search against test_tune_search's Synthetic
evaluator) judged against a device ceiling kept in the session's context, by bench's rule
(analysis.summary.ceiling_check): the trial lines marked cache?, the line by the winner's verdict with
what to do, nothing when the ceiling is above the figures, "not judged" once without a ceiling, the
JSON document valid, the HTML section and the listed headline saying it too."""
import io
import json
import re
from pathlib import Path

import jsonschema

from pario.analysis import tune_cache
from pario.analysis.summary import ceiling_check
from pario.cli.tune_progress import LiveLog
from pario.model.tuning import Trial, TuningSession, Winner
from pario.report.html.page import Note, Plot
from pario.report.html.tuning import section
from pario.report.terminal import tune as show
from pario.tune import verdict
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.probe import session_ceiling
from pario.tune.search import Budget, Search
from pario.tune.space import Context
from test_tune_search import CASE, Synthetic, best_is_romio_independent, session, space

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "tune.schema.json").read_text())
LINE = re.compile(r"^\s*(\d+) ([a-z]+)\s+([\d.]+) ")   # a trial's line: number, state, the median printed
PROBED = {"write_mib": 500.0, "read_mib": 400.0, "streams": 4, "source": "probe"}


def tuned(ceiling, sp=None, rate=best_is_romio_independent, case=CASE, objective="write", **context):
    """A whole synthetic session (default 300 MiB/s, the best 1000): its live log, the winner's lines."""
    sp = sp or space()
    s = TuningSession(id=1, case=case, objective=objective, ranks=4, space=sp.values(), seed=0)
    s.context = {"space": sp.ctx.to_dict(), "ceiling": ceiling, **context}
    live = io.StringIO()
    log = LiveLog(s, live)
    show.header(s, len(sp.grid()), out=live)
    Search(sp, Synthetic(sp, rate), s, Budget(trials=12), listener=log, on_race=log.race).run(guesses(sp))
    s.winner = verdict.conclude(s, sp, case, 4)
    out = io.StringIO()
    show.winner(s, out)
    doc = json.loads(json.dumps({"schema": "pario.tune/1", "session": s.to_dict()}))   # as --json prints it
    jsonschema.validate(doc, SCHEMA)
    return s, live.getvalue().splitlines(), out.getvalue()


def marked(lines, limit):
    """Each trial line: whether it says cache? and whether its printed median is above the limit."""
    found = [(("cache?" in line), float(m.group(3)) > limit) for line in lines if (m := LINE.match(line))]
    assert found and all(len(line) <= 80 for line in lines), max(lines, key=len)
    return found


def test_a_winner_above_the_ceiling_says_page_cache_by_its_verdict_and_what_to_do():
    s, live, text = tuned(dict(PROBED))
    assert s.winner.verdict == "faster" and s.winner.median > 500 > s.winner.default_median
    assert s.winner.cache["judged"] and s.winner.cache["above"] == ["winner"]
    assert s.winner.cache["ceiling_mib"] == 500.0 and s.winner.cache["streams"] == 4
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("cache?:"))
    assert "faster than the default beyond the noise" in " ".join(lines[at - 3:at])   # right by the verdict
    said = " ".join(line.strip() for line in lines[at:at + 6])
    assert f"the winner's {s.winner.median:.0f} MiB/s is above the device ceiling (write 500 MiB/s" in said
    assert "4 streams" in said and "probably page cache, not the file system" in said
    assert "tune with -e (fsync inside the timed phase)" in said and "--odirect" not in said   # mpiio: no O_DIRECT
    assert "the default's" not in said.split("probably")[0]   # the default (300) is below: not named
    flags = marked(live, 500.0)
    assert flags == [(above, above) for _, above in flags] and (True, True) in flags and (False, False) in flags
    assert any("device ceiling (write, O_DIRECT probe, 4 streams): 500 MiB/s" in line for line in live)
    assert all(len(line) <= 80 for line in lines)
    assert "cache?: above the device ceiling" in verdict.summary_line(s)


def test_both_above_name_both_and_a_ceiling_above_everything_says_nothing():
    _, _, text = tuned({**PROBED, "write_mib": 200.0})
    flat = " ".join(text.split())
    assert re.search(r"the winner's \d+ MiB/s and the default's \d+ MiB/s are above the device ceiling", flat)
    s, live, text = tuned({**PROBED, "write_mib": 5000.0})
    assert s.winner.cache == {"judged": True, "ceiling_mib": 5000.0, "streams": 4, "source": "probe",
                              "above": [], "line": ""}
    assert "cache?" not in text and "page cache" not in text
    assert not any("cache?" in line for line in live if LINE.match(line))
    assert "cache?" not in verdict.summary_line(s)


def test_without_a_ceiling_it_says_once_that_it_could_not_be_judged():
    s, live, text = tuned({"source": "skipped (--no-probe)"})
    assert not s.winner.cache["judged"] and s.winner.cache["above"] == []
    assert "cache?" not in "\n".join(live) and "device ceiling" not in "\n".join(live)
    flat = " ".join(text.split())
    assert flat.count("not judged") == 1 and "no device ceiling (skipped (--no-probe))" in flat


def test_the_html_section_carries_the_line():
    s, _, _ = tuned(dict(PROBED))
    notes = [i for i in section(s).items if isinstance(i, Note)]
    assert [n.text for n in notes if n.text.startswith("cache?:")] == [s.winner.cache["line"]]
    assert next(n for n in notes if n.text.startswith("cache?:")).level == "warn"
    trials = next(i for i in section(s).items if isinstance(i, Plot) and i.title == "Trials over time")
    assert [shape.y0 for shape in trials.figure.layout.shapes] == [500.0] and "device ceiling" in trials.caption
    s.context["ceiling"] = {"source": "skipped (--no-probe)"}
    trials = next(i for i in section(s).items if isinstance(i, Plot) and i.title == "Trials over time")
    assert not trials.figure.layout.shapes and "ceiling" not in trials.caption


def test_reads_are_told_the_size_that_outgrows_twice_ram():
    sp = build(Context(backend="mpiio", strategy="shared", collective=True, ops=("read",), objective="read",
                       ranks=4, xfer=1 << 20, block=16 << 20, caps=frozenset({"collective", "shared", "hints"})))
    case = {**CASE, "ops": ["read"]}
    s, _, text = tuned(dict(PROBED), sp=sp, case=case, objective="read", mem_total=8 << 30)
    flat = " ".join(text.split()).split("cache?:")[1].split("runs behind it")[0]   # the line, whole
    assert "(read 400 MiB/s" in flat and " -e " not in flat
    # 4 ranks on one node: 4 x -b must exceed 2 x 8 GiB, in whole GiB: 5g
    assert "tune with a block size over twice RAM per node (-b 5g or more: 4 ranks x -b > 2 x 8 GiB)" in flat


def test_a_posix_case_is_told_odirect_and_odirect_trials_are_not_page_cache():
    s = TuningSession(id=1, case={**CASE, "backend": "posix"}, objective="write", ranks=1,
                      space={"odirect": ["false", "true"]}, context={"ceiling": dict(PROBED)})
    w = Winner(settings={}, gain=2.0, interval=(1.5, 2.5), method="m", verdict="faster", trial=None,
               median=900.0, default_median=900.0)
    line = tune_cache.judge(s, w)["line"]
    assert "tune with -e (fsync inside the timed phase), or with --odirect (O_DIRECT, no page cache)" in line
    assert "so the comparison may not hold" in line   # the default kept: there is no gain to doubt
    assert tune_cache.trial_flag(s, Trial(1, {"odirect": "true"}, "complete", [900.0], 900.0)) == ""
    assert tune_cache.trial_flag(s, Trial(2, {"odirect": "false"}, "complete", [900.0], 900.0)) == "cache?"


def test_the_null_backend_is_neither_cache_nor_file_system():
    s = TuningSession(id=1, case={**CASE, "backend": "null"}, objective="write", ranks=1, space={},
                      context={"ceiling": dict(PROBED)})
    w = Winner(settings={}, gain=1.0, interval=(1.0, 1.0), method="m", median=9e4, default_median=9e4)
    assert tune_cache.judge(s, w)["line"] == "" and not tune_cache.judge(s, w)["judged"]


def test_the_rule_is_benchs():
    assert ceiling_check("write", [100.0, 600.0], PROBED)["kind"] == "cache?"
    assert ceiling_check("write", [100.0, 400.0], PROBED) is None
    assert ceiling_check("write", [600.0], {"source": "skipped"}) is None
    assert ceiling_check("write", [600.0], PROBED, odirect=True)["kind"] == "direct"
    assert ceiling_check("read", [600.0], PROBED, resident_max=0.01)["kind"] == "device"
    assert ceiling_check("read", [600.0], PROBED, resident_max=0.5)["kind"] == "cached"


def test_a_resume_without_a_probe_keeps_the_measured_ceiling(tmp_path):
    s = session(space())
    s.context = {"ceiling": dict(PROBED), "mem_total": 1 << 30}
    got = session_ceiling(s, "/nonexistent/engine", str(tmp_path), skip=True)
    assert got == {"source": "skipped (--no-probe)"} and s.context["ceiling"] == PROBED
    fresh = session(space())
    fresh.context = {}
    session_ceiling(fresh, "/nonexistent/engine", str(tmp_path), skip=True)
    assert fresh.context["ceiling"] == {"source": "skipped (--no-probe)"} and fresh.context["mem_total"] >= 0


def test_writes_flushed_in_the_timed_phase_are_not_blamed_on_the_page_cache():
    """Measured here (-e, 2 ranks x 16 MiB, loaded machine): a winner at 2110 MiB/s against a 2-stream
    probe of 2050 MiB/s. Bench's rule flags it; the line must not call it page cache nor advise -e."""
    s = TuningSession(id=1, case={**CASE, "fsync": True}, objective="write", ranks=2, space={},
                      context={"ceiling": {**PROBED, "write_mib": 2050.0, "streams": 2}})
    w = Winner(settings={}, gain=1.23, interval=(1.18, 1.26), method="m", verdict="faster", trial=None,
               median=2110.0, default_median=2110.0)   # the default kept: it alone is judged
    line = tune_cache.judge(s, w)["line"]
    assert line.startswith("ceiling?: the default's 2110 MiB/s is above the device ceiling (write 2050 MiB/s")
    assert "although fsync is inside the timed phase" in line and "probably page cache" not in line
    assert "tune with -e" not in line
    trial = Trial(3, {"collective": "false"}, "complete", [2110.0] * 3, 2110.0)
    assert tune_cache.trial_flag(s, trial) == ""   # nor is a trial's line flagged
    s.case = dict(CASE)
    assert tune_cache.trial_flag(s, trial) == "cache?"
    s.case = {**CASE, "fsync": True}
    s.winner = w
    w.cache = tune_cache.judge(s, w)
    assert verdict.summary_line(s).endswith("; ceiling?: above the device ceiling)")   # --list says the same
    out = io.StringIO()
    show.header(s, 6, out)   # the live log's header does not promise cache? marks these trials cannot get
    assert "flushed inside the timed phase (-e), so none is" in " ".join(out.getvalue().split())


def test_no_probe_is_named_as_the_cure_only_when_it_was_given():
    """A `--submit` session said 'run without --no-probe' though --no-probe was never given."""
    for source, cure in (("skipped (--no-probe)", True), ("none: the trials ran as Slurm jobs, on their own nodes",
                                                          False)):
        s, live, text = tuned({"source": source})
        assert ("run without --no-probe" in " ".join(text.split())) == cure, text


def test_a_submitted_session_is_judged_against_the_probe_its_jobs_ran(tmp_path):
    """`tune --submit` probes the device inside each job's allocation (the trials' stored runs keep it):
    the session adopts it and judges its figures against it, instead of 'not judged'."""
    from pario.cli.tune_submit import adopt_ceiling
    from pario.store import Store

    store = Store(str(tmp_path / "runs.db"))
    ids = [store.add_run(kind="tune", command="pario bench", spec={}, env={"ceiling": ceiling}, result={"cases": []},
                         status="complete", headline="")
           for ceiling in ({"source": "skipped (--no-probe)"}, {**PROBED, "source": "cached probe"})]
    s, _, _ = tuned({"source": "none: the trials ran as Slurm jobs, on their own nodes"})
    s.trials[0].runs, s.trials[1].runs = [ids[0]], [ids[1]]
    adopt_ceiling(s, store)
    assert s.context["ceiling"]["write_mib"] == PROBED["write_mib"]
    assert s.context["ceiling"]["source"] == f"probed inside the job's allocation (run {ids[1]})"
    w = verdict.conclude(s, space(), CASE, 4)
    assert w.cache["judged"] and w.cache["ceiling_mib"] == PROBED["write_mib"], w.cache
    # and the terminal says what it was judged against: the header had no ceiling yet (tune --submit
    # printed nothing of it)
    out = io.StringIO()
    show.ceiling_line(s, out)
    said = " ".join(out.getvalue().split())
    assert said.startswith("device ceiling (write, O_DIRECT probe inside the job's allocation, ") and \
        f"{PROBED['write_mib']:.0f} MiB/s; the winner and the default are judged against it" in said, said
