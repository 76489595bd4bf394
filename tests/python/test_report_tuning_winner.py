"""The HTML section of a tuning session says what the winner is even when it changes the case, not a
setting (collective=false, a file strategy): the terminal says it; the page showed an empty table."""
from pario.model.tuning import Trial, TuningSession, Winner
from pario.report.html.page import Table
from pario.report.html.tuning import section


def _session(winner: Winner) -> TuningSession:
    trials = [Trial(number=0, settings={}, state="control", rates=[500.0, 510.0, 490.0], runs=[1]),
              Trial(number=1, settings={"collective": "false"}, state="complete", rates=[900.0, 950.0, 920.0],
                    runs=[2])]
    return TuningSession(id=1, case={"name": "shared-mpiio-coll"}, objective="write", ranks=4,
                         space={"collective": ["true", "false"]}, trials=trials, winner=winner, status="done")


def _settings_table(s: TuningSession) -> Table:
    return next(i for i in section(s).items if isinstance(i, Table) and i.title == "The winner's settings")


def test_a_winner_that_changes_the_case_is_named_in_the_settings_table():
    w = Winner(settings={}, gain=1.8, interval=(1.7, 1.9), method="bootstrap", runs=[2, 1], verdict="faster",
               trial=1, median=920.0, default_median=500.0, case_changes={"collective": "false"},
               bench_flags="pario bench -a mpiio -w -t 1m -b 16m -n 4 --strategy shared")
    rows = [[str(c) for c in r] for r in _settings_table(_session(w)).rows]
    text = " ".join(" ".join(r) for r in rows)
    assert rows and "collective" in text and "false" in text, rows
    assert "not a setting" in text and "pario bench -a mpiio -w" in text, rows


def test_a_winner_of_settings_keeps_its_rows():
    w = Winner(settings={"cb_nodes": "2"}, gain=1.3, interval=(1.2, 1.4), method="bootstrap", runs=[2],
               rendered={"romio": "cb_nodes 2"}, verdict="faster", trial=1)
    rows = [[str(c) for c in r] for r in _settings_table(_session(w)).rows]
    assert rows[0] == ["cb_nodes", "2"] and rows[-1][0] == "as romio", rows


def test_a_candidate_not_faster_is_not_called_the_winner():
    # a confirmation slower than the last control (0.74x, seen on the local Slurm) was shown as "The winner
    # against the default" with "The winner's settings"; the terminal offered them "ready to paste"
    import io

    from pario.report.html.page import Note, Plot
    from pario.report.terminal.tune import winner as print_winner
    command = "pario bench -a mpiio -w -t 1m -b 16m -n 4 --strategy shared --hint cb_nodes=2"
    for verdict, word in (("slower", "SLOWER than the default beyond the noise: keep the default"),
                          ("within noise", "NOT faster beyond the noise (the interval includes 1): keep the default")):
        w = Winner(settings={"cb_nodes": "2"}, gain=0.74, interval=(0.70, 0.80), method="bootstrap", runs=[2],
                   rendered={"romio": "cb_nodes 2"}, verdict=verdict, trial=1, median=370.0, default_median=500.0,
                   bench_flags=command)
        items = section(_session(w)).items
        titles = [i.title for i in items if isinstance(i, (Plot, Table))]
        assert "The best candidate against the default" in titles and "The best candidate's settings" in titles
        assert not [t for t in titles if "winner" in t.lower()], titles
        assert any(isinstance(i, Note) and f"({verdict}): keep the default's settings" in i.text for i in items)
        out = io.StringIO()
        print_winner(_session(w), out)
        text = " ".join(out.getvalue().split())
        assert text.startswith("No winner beyond the noise; the best candidate: trial 1") and word in text, text
        assert "ready to paste" not in text and "not proven faster than the default: keep the default's" in text
        # a command for a winner only: "0.13x ... SLOWER ...: keep the default", then "as one bench command"
        page = " ".join(str(c) for i in items if isinstance(i, Table) for r in i.rows for c in r)
        assert "bench command" not in text and command not in text and command not in page, text
    w = Winner(settings={"cb_nodes": "2"}, gain=1.3, interval=(1.2, 1.4), method="bootstrap", runs=[2],
               rendered={"romio": "cb_nodes 2"}, verdict="faster", trial=1, median=650.0, default_median=500.0,
               bench_flags=command)
    out = io.StringIO()
    print_winner(_session(w), out)
    assert "ready to paste" in out.getvalue() and "The winner's settings" in [
        i.title for i in section(_session(w)).items if isinstance(i, Table)]
    assert command in " ".join(out.getvalue().split())


def test_every_trial_with_rates_is_on_the_trials_plot():
    # the confirmation (state "confirm") that the gain is measured on was missing from "Trials over time"
    from pario.report.html.page import Plot
    s = _session(Winner(settings={}, gain=1.8, interval=(1.7, 1.9), method="bootstrap", runs=[3, 1],
                        verdict="faster", trial=1, case_changes={"collective": "false"}))
    s.trials += [Trial(number=2, settings={}, state="control", rates=[505.0, 500.0, 495.0], runs=[3]),
                 Trial(number=3, settings={"collective": "false"}, state="confirm", rates=[930.0, 910.0, 920.0],
                       runs=[4])]
    plot = next(i for i in section(s).items if isinstance(i, Plot) and i.title == "Trials over time")
    shown = {(x, y) for trace in plot.figure.data if trace.mode == "markers" for x, y in zip(trace.x, trace.y)}
    for t in s.trials:
        assert {(t.number, r) for r in t.rates} <= shown, (t.number, t.state)
    names = [trace.name for trace in plot.figure.data]
    assert "confirm: each repetition" in names and "confirm: median" in names, names
