"""tune.search: the session loop against a synthetic evaluator (no MPI): the knowledge-based guesses
first, each configuration measured once, short runs first, an incumbent only beyond the noise,
controls and the confirmation, a knob dropped when a run shows it was not applied, resume."""
import io
import random
import re

from pario.model.tuning import Trial, TuningSession
from pario.report.terminal import tune as tune_report
from pario.settings import DIALECTS, parse, render
from pario.settings.check import findings
from pario.settings.equivalence import view
from pario.settings.knobs import HINT_TO_MCA
from pario.tune import verdict
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.search import Budget, Search
from pario.tune.space import Context
from pario.tune.trials import Measured

CAPS = frozenset({"collective", "shared", "view", "hints"})
CASE = {"name": "t", "backend": "mpiio", "strategy": "shared", "pattern": "segmented", "ops": ["write"],
        "collective": True, "xfer": 1 << 20, "block": 16 << 20, "segments": 1}


def space():
    return build(Context(backend="mpiio", strategy="shared", collective=True, ops=("write",), objective="write",
                         ranks=4, xfer=1 << 20, block=16 << 20, caps=CAPS))


class Synthetic:
    """Rates from a rule over the effective configuration, with +-spread noise; records every launch."""

    def __init__(self, sp, rate, spread=0.05, seed=1, checks=None, stop_after=None):
        self.sp, self.rate, self.spread, self.rng = sp, rate, spread, random.Random(seed)
        self.checks, self.stop_after, self.launches = checks, stop_after, []

    def run(self, config, reps, role):
        if self.stop_after is not None and len(self.launches) >= self.stop_after:
            raise KeyboardInterrupt
        eff = self.sp.effective(config)
        self.launches.append((self.sp.canonical(config), reps, role))
        base = self.rate(eff)
        rates = [base * (1 + self.spread * (2 * self.rng.random() - 1)) for _ in range(reps)]
        return Measured(rates, run_id=len(self.launches), checks=self.checks(eff) if self.checks else [])


def best_is_romio_independent(eff):
    if eff.get("collective", "false") == "false":
        return 1000.0 if eff.get("mca.io") == "romio321" and eff["strategy"] == "shared" else 600.0
    return 300.0 if eff.get("mca.fcoll", "default") == "default" else 200.0


def session(sp, seed=0):
    return TuningSession(id=1, case=CASE, objective="write", ranks=4, space=sp.values(), seed=seed)


def test_finds_the_best_proves_it_and_spends_the_budget_honestly():
    sp = space()
    ev = Synthetic(sp, best_is_romio_independent)
    s = session(sp)
    Search(sp, ev, s, Budget(trials=20)).run(guesses(sp))
    assert len(s.trials) <= 20 and s.status == "done"
    states = [t.state for t in s.trials]
    assert states[0] == "control" and states[-2:] == ["control", "confirm"]
    assert states.count("control") >= 3  # the start, every 8 trials, the end
    # every configuration measured once (controls and the confirmation re-run the default and the winner)
    # (more repetitions of a trial go to the same trial record: racing, the rungs)
    keys = [k for k, _, role in ev.launches if role == "trial"]
    measured = [sp.canonical({**sp.default(), **t.settings}) for t in s.trials if t.state not in ("control", "confirm")]
    assert len(set(measured)) == len(measured) and set(keys) == set(measured)
    # the knowledge-based guesses ran first, in order
    assert [t.settings for t in s.trials[1:3]] == [{"collective": "false"}, {"collective": "false",
                                                                             "mca.io": "romio321"}]
    assert any(t.state == "pruned" and len(t.rates) == 1 for t in s.trials)  # short runs first
    w = verdict.conclude(s, sp, CASE, 4)
    assert w.verdict == "faster" and w.case_changes == {"collective": "false"}
    assert w.settings == {"mca.io": "romio321"} and 3.0 < w.interval[0] <= w.gain <= w.interval[1] < 3.7
    assert "--io romio321" in w.bench_flags and " -c " not in w.bench_flags and "-w" in w.bench_flags
    assert set(w.runs) >= set(s.trials[s.incumbent].runs)
    # a dialect that cannot say a setting names it apart from its pasteable lines
    assert "ompi" not in w.untranslated and w.untranslated["romio"] == ["mca.io"]
    w.settings = {"mca.io": "romio321", "romio_cb_write": "disable"}
    w.rendered = {"ompi": "--mca io romio321\n", "romio": "romio_cb_write disable\n"}
    w.untranslated = {"ompi": ["romio_cb_write"], "romio": ["mca.io"]}
    s.winner = w
    out = io.StringIO()
    tune_report.winner(s, out)
    ompi, romio = out.getvalue().split("## ompi")[1].split("## romio")
    assert "--mca io romio321" in ompi and "(no equivalent in this dialect: romio_cb_write)" in ompi
    assert "romio_cb_write disable" in romio and "(no equivalent in this dialect: mca.io)" in romio
    # the runs behind the gain are the winner's and the default's: said apart (they were one list)
    mine = [r for r in w.runs if r not in {r for t in s.trials if t.state == "control" for r in t.runs}]
    theirs = [r for r in w.runs if r not in mine]
    flat = " ".join(out.getvalue().split())
    assert f"runs behind it: {', '.join(map(str, mine))}; the default's: {', '.join(map(str, theirs))}" in flat, flat


def test_a_flat_landscape_names_no_winner():
    sp = space()
    s = session(sp)
    Search(sp, Synthetic(sp, lambda eff: 500.0, spread=0.3, seed=3), s, Budget(trials=16)).run(guesses(sp))
    w = verdict.conclude(s, sp, CASE, 4)
    assert w.verdict != "faster"


def test_a_knob_the_run_shows_not_applied_is_dropped():
    sp = space()

    def checks(eff):
        if "cb_nodes" in eff and eff["cb_nodes"] != "default":
            return [{"key": "cb_nodes", "status": "not applied", "requested": eff["cb_nodes"], "effective": "1",
                     "reason": "ompio did not report accepting it"}]
        return []

    s = session(sp)
    ev = Synthetic(sp, lambda eff: 400.0 + 100 * (eff.get("cb_nodes") == "2"), checks=checks)
    seeded = [({**sp.default(), "cb_nodes": "2"}, "test")]
    Search(sp, ev, s, Budget(trials=14)).run(seeded)
    gone = [d for d in s.dropped if d.key == "cb_nodes"]
    assert gone and gone[0].evidence.startswith("run ") and "ompio did not report" in gone[0].reason
    assert "cb_nodes" not in s.space
    first = next(t.number for t in s.trials if "cb_nodes" in t.settings)
    assert all("cb_nodes" not in t.settings for t in s.trials[first + 1:] if t.state != "confirm")


def test_resume_keeps_the_finished_trials_and_goes_on():
    sp = space()
    s = session(sp)
    ev = Synthetic(sp, best_is_romio_independent, stop_after=5)
    try:
        Search(sp, ev, s, Budget(trials=18)).run(guesses(sp))
        raise AssertionError("the evaluator should have interrupted the search")
    except KeyboardInterrupt:
        pass
    stored = TuningSession.from_dict(s.to_dict())
    kept = [(t.number, t.state, t.rates) for t in stored.trials if t.state in ("control", "complete", "pruned")]
    screened = {t.number: t.rates for t in stored.trials if t.state == "screened"}
    assert len(kept) + len(screened) >= 3
    sp2 = space()
    ev2 = Synthetic(sp2, best_is_romio_independent, seed=2)
    Search(sp2, ev2, stored, Budget(trials=18)).run(guesses(sp2))
    assert [(t.number, t.state, t.rates) for t in stored.trials if t.number in {n for n, _, _ in kept}] == kept
    for n, rates in screened.items():   # a screened guess is taken up with its repetition, not run again
        assert stored.trials[n].rates[: len(rates)] == rates and stored.trials[n].state in ("complete", "pruned")
    assert stored.status == "done" and len(stored.trials) <= 18
    done = {sp.canonical({**sp.default(), **t.settings}) for t in stored.trials[: len(kept)] if t.state == "complete"}
    again = [k for k, reps, role in ev2.launches if role == "trial" and reps == 1]
    assert not done & set(again)  # nothing measured before was measured again
    assert stored.trials[stored.incumbent].settings == {"collective": "false", "mca.io": "romio321"}


def test_the_winner_renders_in_every_dialect_and_passes_settings_check():
    sp = space()
    config = {**sp.default(), "mca.io": "romio321", "romio_cb_write": "enable", "cb_config_list": "*:2",
              "cb_buffer_size": str(1 << 20)}
    settings = verdict.winner_settings(sp, config)
    assert settings.hints == {"romio_cb_write": "enable", "cb_config_list": "*:2", "cb_buffer_size": "1048576"}
    assert settings.mca == {"io": "romio321"}
    stack = view(impl="romio", fs="ext4", ranks=4, hosts=1)
    for dialect in DIALECTS:
        text = render(settings, dialect)
        if not text.strip():
            continue
        back, issues = parse(text, dialect)
        assert not [i for i in issues if i.level == "error"], dialect
        for key, value in back.hints.items():
            assert settings.hints[key] == value, dialect
        as_mca = {**settings.mca, **{HINT_TO_MCA[k]: v for k, v in settings.hints.items() if k in HINT_TO_MCA}}
        for key, value in back.mca.items():
            assert as_mca[key] == value, dialect
        assert not [f for f in findings(text, stack) if f["level"] == "error"], dialect
    assert "cb_config_list *:2" in render(settings, "romio")
    assert "--mca io romio321" in render(settings, "ompi")


def test_the_winner_names_the_trials_the_noise_cannot_tell_from_it():
    # two configurations at the same rate (independent I/O under either MPI-IO layer), the rest far
    # below: whichever wins, the other is named "as good within the noise"; a far slower one is not
    sp = space()

    def twins(eff):
        return 1000.0 if eff.get("collective", "false") == "false" and eff["strategy"] == "shared" else 300.0
    s = session(sp)
    Search(sp, Synthetic(sp, twins, spread=0.2, seed=5), s, Budget(trials=20)).run(guesses(sp))
    w = verdict.conclude(s, sp, CASE, 4)
    assert w.verdict == "faster"
    named = {a["trial"] for a in w.alike}
    inc = next(t for t in s.trials if t.number == w.trial)
    twin = [t for t in s.trials if t.state == "complete" and t.number != w.trial
            and t.settings.get("collective") == "false" and "strategy" not in t.settings]
    assert twin and {t.number for t in twin} <= named
    slow = {t.number for t in s.trials if t.state == "complete" and (t.median or 0) < 500}
    assert not named & slow and all(a["reps"] >= 3 for a in w.alike)
    assert inc.number not in named
    out = io.StringIO()
    s.winner = w
    tune_report.winner(s, out)
    assert f"as good within the noise: trial {twin[0].number}:" in out.getvalue()


def test_no_two_controls_in_a_row():
    # a periodic control due just before the final one is left to the final one (the same moment
    # measured twice spends a trial of the budget for nothing)
    sp = space()
    for trials in range(12, 31):
        s = session(sp, seed=trials)
        Search(sp, Synthetic(sp, best_is_romio_independent, spread=0.2, seed=trials), s,
               Budget(trials=trials)).run(guesses(sp))
        states = [t.state for t in s.trials]
        assert not any(a == b == "control" for a, b in zip(states, states[1:])), (trials, states)
        assert states.count("control") >= 2 and len(states) <= trials


def test_the_incumbent_line_says_what_it_beat():
    sp = space()
    s = TuningSession(id=1, case=CASE, objective="write", ranks=4, space=sp.values(), seed=0)
    Search(sp, Synthetic(sp, lambda eff: 900.0 if eff.get("mca.io") == "romio321" else 300.0), s,
           Budget(trials=12)).run(guesses(sp))
    notes = [t.note for t in s.trials if t.note.startswith("new incumbent")]
    assert notes and notes[0].endswith("over the default") and "the last one" not in " ".join(notes)


def test_the_listed_headline_counts_trials_as_the_budget_does_and_names_the_mpi():
    """`pario tune --list` said '25 trials' of a session whose end said 'Spent 30 trials of the 30
    budgeted' (controls and the confirmation left out), and did not tell an MPICH session from an
    Open MPI one of the same case."""
    sp = space()
    s = session(sp)
    s.context = {"space": {"flavour": "mpich"}}
    Search(sp, Synthetic(sp, best_is_romio_independent), s, Budget(trials=14)).run(guesses(sp))
    s.winner = verdict.conclude(s, sp, CASE, 4)
    line = verdict.summary_line(s)
    assert line.startswith(f"t write (mpich), {len(s.trials)} trials: ") and len(s.trials) == 14, line


def test_a_session_where_every_launch_failed_names_no_default_as_winner():
    """It said 'Winner: the default configuration (nothing was faster beyond the noise); write 0.0
    MiB/s over 0 control run(s)' when every launch had failed (an engine of another MPI)."""
    sp = space()
    s = session(sp)

    class Failing(Synthetic):
        def run(self, config, reps, role):
            return Measured([], status="failed", message="the engine ran as 4 separate MPI jobs")

    Search(sp, Failing(sp, lambda eff: 1.0), s, Budget(trials=6)).run(guesses(sp))
    s.winner = verdict.conclude(s, sp, CASE, 4)
    out = io.StringIO()
    tune_report.winner(s, out)
    assert "Winner" not in out.getvalue() and "nothing was measured" in out.getvalue(), out.getvalue()


def test_a_dialect_that_can_say_none_of_the_settings_prints_no_empty_skeleton():
    sp = space()
    s = session(sp)
    Search(sp, Synthetic(sp, best_is_romio_independent), s, Budget(trials=20)).run(guesses(sp))
    s.winner = verdict.conclude(s, sp, CASE, 4)
    assert s.winner.settings == {"mca.io": "romio321"} and "info" in s.winner.rendered
    out = io.StringIO()
    tune_report.winner(s, out)
    info = out.getvalue().split("## info")[1].split("## ")[0]
    assert "{}" not in info and "(no equivalent in this dialect: mca.io)" in info
    adios2 = out.getvalue().split("## adios2")[1].split("## ")[0]
    assert "<adios-config>" not in adios2
    assert "--mca io romio321" in out.getvalue().split("## ompi")[1]


def test_a_default_that_fails_stops_the_search():
    # every other configuration runs, the default does not: no trial can be compared with it, so the
    # session stops after the first round instead of spending its budget, and says why
    sp = space()
    s = session(sp)

    class DefaultFails(Synthetic):
        def run(self, config, reps, role):
            if self.sp.canonical(config) == self.sp.canonical(self.sp.default()):
                self.launches.append(("default", reps, role))
                return Measured([], status="failed", message="collective write: no space left on device")
            return super().run(config, reps, role)

    ev = DefaultFails(sp, best_is_romio_independent)
    Search(sp, ev, s, Budget(trials=20)).run(guesses(sp))
    assert s.trials[0].state == "failed" and not any(t.state == "control" for t in s.trials)
    assert len(s.trials) < 20 and not any(t.state == "confirm" for t in s.trials)
    assert any("the default configuration failed (collective write: no space left" in n for n in s.notes)
    s.winner = verdict.conclude(s, sp, CASE, 4)
    out = io.StringIO()
    tune_report.winner(s, out)
    assert "No winner: the default configuration failed" in out.getvalue(), out.getvalue()


def test_trial_lines_leave_out_default_values_and_controls_have_no_ratio():
    sp = space()
    s = session(sp)
    Search(sp, Synthetic(sp, best_is_romio_independent), s, Budget(trials=20)).run(guesses(sp))
    lines = {t.number: tune_report.trial_line(s, t) for t in s.trials}
    assert all("=default" not in line for line in lines.values()), lines
    controls = [t for t in s.trials if t.state == "control"]
    assert any(t.ratio is not None for t in controls)   # a later control has a ratio: it is not shown
    assert all(not re.search(r"\d\.\d\dx", lines[t.number]) for t in controls), lines


def test_the_header_of_a_resumed_session_says_what_it_keeps_and_names_only_the_knobs_asked():
    sp = space()
    s = session(sp)
    Search(sp, Synthetic(sp, best_is_romio_independent), s, Budget(trials=8)).run(guesses(sp))
    s.context = {"only": ["mca.io", "collective"]}
    s.dropped = list(sp.dropped)
    out = io.StringIO()
    tune_report.header(s, len(sp.grid()), out)
    text = out.getvalue()
    reps = sum(len(t.rates) for t in s.trials)
    assert f"resuming session 1: {len(s.trials)} finished trial(s) kept ({reps} counted repetitions)" in text, text
    assert "not searched: strategy" not in text and "romio_ds" not in text, text
    fresh = session(sp)
    fresh.dropped = list(sp.dropped)
    out = io.StringIO()
    tune_report.header(fresh, len(sp.grid()), out)
    assert "resuming" not in out.getvalue() and "not searched: strategy=per-node" in out.getvalue()


def test_the_resume_header_tells_finished_trials_from_those_the_interrupt_cut_off():
    """Ctrl-C during a guess batch said 'keeps 1 finished trial(s)', then --resume said '5 trial(s) kept
    (0 counted repetitions)': the 4 guesses the interrupt cut off counted as kept."""
    sp = space()
    s = session(sp)
    s.trials = [Trial(0, {}, "control", rates=[500.0, 510.0, 505.0], role="control"),
                Trial(1, {"collective": "false"}, "interrupted", rates=[900.0], role="guess"),
                Trial(2, {"mca.io": "romio321"}, "interrupted", rates=[], role="guess")]
    out = io.StringIO()
    tune_report.header(s, len(sp.grid()), out)
    text = " ".join(out.getvalue().split())
    assert "resuming session 1: 1 finished trial(s) kept, 2 cut off by the interrupt (4 counted repetitions)" \
        in text, text


def test_the_end_line_of_a_time_budget_names_the_time():
    """`--time 2m` alone ended with 'Spent 38 trials of the 179 budgeted': 179 is only the bound that
    --time alone sets (twice the grid), the budget was the time."""
    sp = space()
    s = session(sp)
    s.trials = [Trial(0, {}, "control", rates=[500.0, 510.0, 505.0], role="control")]
    s.budget = Budget(trials=179, seconds=120.0).to_dict()
    out = io.StringIO()
    tune_report.spent(s, out)
    text = " ".join(out.getvalue().split())
    assert text.startswith("Spent 1 trials of the 179 or 120 s budgeted (whichever came first;"), text
    s.budget = Budget(trials=30).to_dict()
    out = io.StringIO()
    tune_report.spent(s, out)
    assert out.getvalue().startswith("Spent 1 trials of the 30 budgeted (configurations"), out.getvalue()


def test_the_end_names_a_trial_resume_left_out_of_the_count():
    """A TPE proposal cut off before its first repetition ended is left (not counted) by --resume: the
    live log jumped from trial 10 to 12 and nothing said what became of 11."""
    sp = space()
    s = session(sp)
    s.trials = [Trial(0, {}, "control", rates=[500.0, 510.0, 505.0], role="control"),
                Trial(1, {"collective": "false"}, "interrupted", role="proposal",
                      note="interrupted: not used (a proposal interrupted before its first repetition ended; TPE "
                           "proposes anew); not counted in the budget")]
    s.budget = Budget(trials=8).to_dict()
    out = io.StringIO()
    tune_report.spent(s, out)
    text = " ".join(out.getvalue().split())
    assert "trial 1: interrupted: not used (a proposal interrupted before its first repetition ended" in text, text
