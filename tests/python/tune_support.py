"""The end of a real tuning session checked against the rules that decided it, from what its trials
measured (the rates the session stores). A session against the real engine goes one way or the other
with the machine's speed and noise (the confirmation told apart from the last control at once, or
raced; a winner faster beyond the noise, within it, or none): a test asserts the branch that the
measured rates call for, with the functions pario itself decides with (analysis.noise, tune.racing),
instead of the branch that this machine happened to take."""
from __future__ import annotations

import pytest

from pario.analysis import noise
from pario.tune import racing


def race_went_on_while_undecided(pair: list[list[float]], first: int,
                                 before: tuple[list[float], list[float]] = ([], [])) -> int:
    """The confirmation race (tune.search._settle) over the two rate lists in launch order (the last
    control's and the confirmation's), the first `first` repetitions each from the final round: it
    went on exactly while the pools (`before`: the earlier controls' and confirmations' repetitions,
    pooled with them) were undecided (racing.needs_more_pooled), STEP repetitions each per round
    (CAP is a multiple of STEP), and ended decided or capped. Returns the number of race rounds."""
    assert len(pair[0]) == len(pair[1]) >= first, [len(r) for r in pair]
    rounds = (len(pair[0]) - first) // racing.STEP
    assert first + rounds * racing.STEP == len(pair[0]), [len(r) for r in pair]
    for k in range(rounds + 1):
        seen = first + k * racing.STEP
        more = racing.needs_more_pooled({0: (before[0], pair[0][:seen]), 1: (before[1], pair[1][:seen])})
        if k < rounds:
            assert sorted(more) == [0, 1], f"raced on after {seen} reps each: {pair}"
        else:
            assert more == [], f"the race stopped at {seen} reps each, still undecided: {pair}"
    return rounds


def check_ending(session: dict) -> str:
    """The winner's verdict is the noise test's on the rates behind it (tune.verdict: every control
    against every confirmation, the last pair raced by its rule; without a confirmation, every control
    against the incumbent); the default kept when there is no incumbent. Returns the branch, for the
    test's output."""
    trials = {t["number"]: t for t in session["trials"]}
    controls = [t for t in session["trials"] if t["state"] == "control"]
    w, inc = session["winner"], session["incumbent"]
    if inc is None:
        assert w["trial"] is None and w["verdict"] == "default kept", w
        return "the default kept: no trial was faster beyond the noise"
    confirms = [t for t in session["trials"] if t["state"] == "confirm" and t["note"] == f"#{inc}" and t["rates"]]
    if confirms and controls:
        control, confirm = controls[-1], confirms[-1]
        default, win = [r for t in controls for r in t["rates"]], [r for t in confirms for r in t["rates"]]
        how = "confirmed"
        if session["budget"].get("seconds") is None and (control["number"], confirm["number"]) == tuple(
                t["number"] for t in session["trials"][-2:]):
            # the final round ran rungs[-1] each; a time budget (none here) could end the race sooner
            before = ([r for t in controls[:-1] for r in t["rates"]], [r for t in confirms[:-1] for r in t["rates"]])
            rounds = race_went_on_while_undecided([control["rates"], confirm["rates"]],
                                                  session["budget"]["rungs"][-1], before)
            how = f"confirmed after {rounds} confirmation race round(s)"
    else:
        default, win = [r for t in controls for r in t["rates"]], trials[inc]["rates"]
        how = "not confirmed"
    cmp = noise.compare(default, win)
    assert w["trial"] == inc and w["verdict"] == cmp.verdict, (w, cmp)
    assert w["gain"] == pytest.approx(cmp.ratio or 0.0) and w["median"] == pytest.approx(noise.median(win))
    return f"trial {inc} {how}, {cmp.verdict} ({cmp.ratio:.2f}x)"


def winner_title(session: dict) -> str:
    """The first words of `pario tune`'s winner paragraph for this session's verdict, spaces removed."""
    w = session["winner"]
    if w["trial"] is None:
        return "Winner:thedefaultconfiguration(nothingwasfasterbeyondthenoise)"
    if w["verdict"] == "faster":
        return f"Winner:trial{w['trial']}:"
    return f"Nowinnerbeyondthenoise;thebestcandidate:trial{w['trial']}:"
