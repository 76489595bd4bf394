"""`pario tune`'s live log (cli/tune_progress.LiveLog, the listener and race listener `pario tune`
prints with) driven by the real search against the recorded 1 MiB grid (tune/replay.GridReplay): a trial's line once,
one line per race round and its outcome, a line when the incumbent changes, 80 columns. The old
listener reprinted a trial whenever its median changed: every race round reprinted both lines."""
import io
import json
import random
import re
from pathlib import Path

from pario.cli.tune_progress import LiveLog
from pario.model.tuning import TuningSession
from pario.tune import racing
from pario.tune.knobs import build
from pario.tune.prior import guesses
from pario.tune.replay import GridReplay
from pario.tune.search import Budget, Search
from pario.tune.space import Context
from pario.tune.trials import Measured

GRID = Path(__file__).resolve().parents[2] / "benchmarks" / "tune" / "grid-1m.json"
HEAD = re.compile(r"^\s*(\d+) (control|screened|complete|pruned|failed|confirm|interrupted)\b")
ENTRY = re.compile(r"#(\d+) (\d+)(?: MiB/s)? \((\d+)(?: reps)?\)")


def replayed(seed: int, objective: str = "write", trials: int = 30):
    doc = json.loads(GRID.read_text())
    space = build(Context.from_dict({**doc["context"], "objective": objective}))
    session = TuningSession(id=1, case=doc["case"], objective=objective, ranks=doc["ranks"],
                            space=space.values(), seed=seed)
    out = io.StringIO()
    log = LiveLog(session, out)
    Search(space, GridReplay(doc, space, seed=seed), session, Budget(trials=trials),
           listener=log, on_race=log.race).run(guesses(space))
    return session, out.getvalue().splitlines()


def check_log(session: TuningSession, lines: list[str]) -> list[str]:
    """The invariants of any log; returns its race lines."""
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    heads = [int(m.group(1)) for m in map(HEAD.match, lines) if m]
    assert sorted(heads) == sorted(set(heads)), "a trial's line printed twice"
    assert set(heads) == {t.number for t in session.trials}, "a trial without its line"
    logical: list[str] = []   # a wrapped line's continuation (12 or more spaces) joined to it
    for line in lines:
        if line.startswith(" " * 12) and logical:
            logical[-1] += " " + line.strip()
        else:
            logical.append(line)
    races = [line for line in logical if line.lstrip().startswith("race:")]
    # a trial's repetitions grow after its line only in races, and every race launch is in a round
    # line: the last repetitions a race line shows for a trial are the trial's final count
    last: dict[int, int] = {}
    for line in races:
        for number, _median, reps in ENTRY.findall(line):
            last[int(number)] = int(reps)
    for number, reps in last.items():
        assert reps == len(session.trials[number].rates), (number, reps, lines)
    best = [line for line in logical if line.lstrip().startswith("best:")]
    changes = {int(m) for line in best for m in re.findall(r"#(\d+) is the new incumbent", line)}
    assert session.incumbent is None or session.incumbent in changes
    return races


def test_replayed_sessions_log_each_trial_once_and_their_races_by_round():
    raced = 0
    for seed, objective in [(0, "write"), (7, "write"), (2, "read"), (5, "read")]:
        session, lines = replayed(seed, objective)
        races = check_log(session, lines)
        rounds = [line for line in races if " vs " in line]
        outcomes = [line for line in races if " wins (" in line]
        raced += bool(rounds)
        # every round was the one racing.needs_more predicts (the search's rule), none shown as stopped
        assert not any("stopped before" in line for line in races), races
        if rounds:
            assert outcomes and all(re.search(r"wins \((beyond the noise|tie at the cap|the budget)", o)
                                    for o in outcomes)
        # the round lines are few: one per round, not two per launch as before
        assert len(rounds) <= sum(max(0, len(t.rates) - 3) for t in session.trials) // racing.STEP
    assert raced >= 1, "no seed raced: the test shows nothing"


class Even:
    """Two independent configurations at the same rate (+-30%): they race to the cap."""

    def __init__(self, sp, seed):
        self.sp, self.rng = sp, random.Random(seed)

    def run(self, config, reps, role):
        eff = self.sp.effective(config)
        base = 1000.0 if eff.get("collective") == "false" else 300.0
        return Measured([base * (1 + 0.3 * (2 * self.rng.random() - 1)) for _ in range(reps)])


def test_a_tie_at_the_cap_is_said_to_be_one():
    sp = build(Context(backend="mpiio", strategy="shared", collective=True, ops=("write",), objective="write",
                       ranks=4, xfer=1 << 20, block=16 << 20, caps=frozenset({"collective", "shared", "view",
                                                                              "hints"})))
    s = TuningSession(id=1, case={}, objective="write", ranks=4, space=sp.values(), seed=0)
    out = io.StringIO()
    log = LiveLog(s, out)
    Search(sp, Even(sp, 0), s, Budget(trials=8), listener=log, on_race=log.race).run(
        [({**sp.default(), "collective": "false"}, "g1"),
         ({**sp.default(), "collective": "false", "mca.io": "romio321"}, "g2")])
    lines = out.getvalue().splitlines()
    races = check_log(s, lines)
    assert races[0].split()[:2] == ["race:", "#1"] or races[0].split()[:2] == ["race:", "#2"]
    assert any("(15 reps)" in line for line in races)
    assert any("wins (tie at the cap: higher median)" in line for line in races), lines


def test_a_race_the_time_budget_stops_says_so():
    """Only --time stops a race between rounds (a trial budget counts trials, and a race adds none):
    the outcome names the leader on its median, not beyond the noise."""
    import itertools

    sp = build(Context(backend="mpiio", strategy="shared", collective=True, ops=("write",), objective="write",
                       ranks=4, xfer=1 << 20, block=16 << 20, caps=frozenset({"collective", "shared", "view",
                                                                              "hints"})))
    s = TuningSession(id=1, case={}, objective="write", ranks=4, space=sp.values(), seed=0)
    out = io.StringIO()
    tick = itertools.count()   # one second per clock reading: the budget runs out after the first round
    log = LiveLog(s, out)
    Search(sp, Even(sp, 0), s, Budget(trials=30, seconds=12), listener=log, on_race=log.race,
           clock=lambda: float(next(tick))).run(
        [({**sp.default(), "collective": "false"}, "g1"),
         ({**sp.default(), "collective": "false", "mca.io": "romio321"}, "g2")])
    lines = out.getvalue().splitlines()
    races = check_log(s, lines)
    assert [line for line in races if " vs " in line] and all("(15 reps)" not in line for line in races)
    assert any("wins (the budget is spent: on the higher median, not beyond the noise)" in line
               for line in races), lines
