"""The end of a session: the winner's gain over the default with its interval (analysis.noise), the
runs behind it, how it differs from the case as given, and its settings in every dialect."""
from __future__ import annotations

from typing import Any

from pario.analysis import noise, tune_cache
from pario.model.case import Case
from pario.model.tuning import TuningSession, Winner
from pario.plan.cases import DEFAULT_REPS
from pario.plan.command import bench_command
from pario.settings import DIALECTS, Settings, render
from pario.settings.dialects import untranslated
from pario.tune.space import DEFAULT, Config, Space
from pario.tune.trials import apply

RACED = 3    # repetitions a trial needs to be named as good as the winner (a pruned one has 1)
ALIKE = 3    # at most this many named


def winner_settings(space: Space, config: Config) -> Settings:
    """The settings of a configuration, with the MPI-IO layer as the MCA parameter `io`."""
    settings = space.settings_of(config)
    io = space.effective(config).get("mca.io", DEFAULT)
    if io != DEFAULT:
        settings.mca["io"] = io
    return settings


def dialects(space: Space) -> list[str]:
    """The dialects a winner is rendered in: all of them, but Open MPI's (--mca flags, OMPI_MCA_
    variables) only under Open MPI: under MPICH, Cray MPICH or Intel MPI they would be read by
    nothing (ROMIO takes its hints from MPI_Info, ROMIO_HINTS or MPICH_MPIIO_HINTS)."""
    if space.ctx.flavour in ("openmpi", "unknown"):
        return list(DIALECTS)
    return [d for d in DIALECTS if not d.startswith("ompi")]


def case_changes(space: Space, config: Config) -> dict[str, str]:
    """What the winner changes in the case itself (not settings): strategy, calls, O_DIRECT."""
    ctx, eff = space.ctx, space.effective(config)
    out = {}
    if space.strategy(eff) != ctx.strategy:
        out["strategy"] = space.strategy(eff)
    if space.collective(eff) != ctx.collective:
        out["collective"] = str(space.collective(eff)).lower()
    if "odirect" in eff and (eff["odirect"] == "true") != ctx.odirect:
        out["odirect"] = eff["odirect"]
    return out


def bench_flags(space: Space, base: Case, config: Config, ranks: int, nodes: int | None = None) -> str:
    """The winner as one `pario bench` command: the case the trials ran with the configuration
    applied (tune.trials.apply), rendered by plan.command, so every flag of the case is in it;
    nodes: the trials' --nodes (the session's), not the hosts the space was searched for (inside a
    Slurm allocation those are its nodes, where the trials ran without --nodes)."""
    case, io, mca = apply(space, base, config, base.get("reps", DEFAULT_REPS))
    return bench_command(case, ranks, io, mca, nodes=nodes)


def conclude(session: TuningSession, space: Space, base: Case, ranks: int) -> Winner:
    """The recommendation: the incumbent, or the default when nothing beat it beyond the noise; judged
    against the device ceiling (page cache or file system: Winner.cache)."""
    # a resumed session is concluded again: the notes of its last conclusion go first
    session.notes = [n for n in session.notes if not n.startswith(_OWN_NOTES)]
    w = _conclude(session, space, base, ranks)
    w.cache = tune_cache.judge(session, w)
    return w


_OWN_NOTES = ("the gain pools every control", "the gain is the confirmation", "the winner was not confirmed",
              "the default ran ", "no configuration was faster", "no configuration beat")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _conclude(session: TuningSession, space: Space, base: Case, ranks: int) -> Winner:
    controls = [t for t in session.trials if t.state == "control"]
    inc = next((t for t in session.trials if t.number == session.incumbent), None)
    default_rates = [r for t in controls for r in t.rates]
    if inc is None:
        best = max((t for t in session.trials if t.state == "complete" and t.median), key=lambda t: t.median or 0,
                   default=None)
        cmp = noise.compare(default_rates, best.rates if best else [])
        w = Winner(settings={}, gain=1.0, interval=(cmp.low or 0.0, cmp.high or 0.0), method=noise.METHOD,
                   runs=[r for t in controls for r in t.runs], verdict="default kept", trial=None,
                   median=noise.median(default_rates), default_median=noise.median(default_rates))
        figure = f"{cmp.ratio or 0:.2f}x [{cmp.low or 0:.2f}-{cmp.high or 0:.2f}]"
        if best is not None and cmp.verdict == "faster":   # "not faster ... (faster)" contradicted itself
            session.notes.append(f"no configuration beat the default beyond the noise when it was judged (against "
                                 f"the controls run until then); over every control the best, trial {best.number},"
                                 f" measures {figure} now, never re-run beside a control: `pario tune --resume "
                                 f"{session.id} --trials N` goes on")
        elif best is not None:
            session.notes.append(f"no configuration was faster than the default beyond the noise; the best, trial "
                                 f"{best.number}, measured {figure} ({cmp.verdict})")
        return w
    # The gain: every control of the default pooled against every confirmation of the winner (tune.search
    # re-runs it beside the last control, raced until told apart or capped). One pair alone headlined 4.09x
    # [2.19-5.92] beside a picking trial's 1.53x [1.06-1.88]; a default that sped up 9.76x between controls
    # turned 10.51x into 0.13x: pooled, a moved default widens the interval instead of picking a side. The
    # repetitions that picked the winner are left out (it won because they ran high); without a
    # confirmation (the budget ended first) they are all there is, and the note says so.
    confirms = [t for t in session.trials if t.state == "confirm" and t.note == f"#{inc.number}" and t.rates]
    default_runs = [r for t in controls for r in t.runs]
    if confirms and controls:
        win_rates = [r for t in confirms for r in t.rates]
        runs = inc.runs + [r for t in confirms for r in t.runs]   # the runs that picked it, too
        pair = noise.compare(controls[-1].rates, confirms[-1].rates)
        session.notes.append(
            f"the gain pools every control of the default ({_count(len(controls), 'trial')}, "
            f"{_count(len(default_rates), 'rep')}) against every confirmation of trial {inc.number} "
            f"({_count(len(confirms), 'trial')}, {_count(len(win_rates), 'rep')}); the last confirmation "
            f"(trial {confirms[-1].number}) beside the last control (trial {controls[-1].number}) measured "
            f"{pair.ratio or 0:.2f}x [{pair.low or 0:.2f}-{pair.high or 0:.2f}]")
    else:
        win_rates, runs = inc.rates, inc.runs
        session.notes.append("the winner was not confirmed beside a control (the budget ended first): the gain "
                             "uses the repetitions that picked it, which overstate it")
    if len(controls) >= 2:
        drift = noise.compare(controls[0].rates, controls[-1].rates)
        if drift.verdict in ("faster", "slower"):
            session.notes.append(f"the default ran {drift.ratio:.2f}x [{drift.low:.2f}-{drift.high:.2f}] as fast in "
                                 "the last control as in the first, beyond the noise: its speed moved during the "
                                 "session (the file system's load or the node's), so ratios measured at different "
                                 "times in it are not comparable; the gain pools every control")
    cmp = noise.compare(default_rates, win_rates)
    config = {**space.default(), **inc.settings}
    alike = [{"trial": t.number, "median": t.median, "reps": len(t.rates), "settings": dict(t.settings)}
             for t in sorted(session.trials, key=lambda t: -(t.median or 0))
             if t.state == "complete" and t.number != inc.number and len(t.rates) >= RACED
             and noise.compare(inc.rates, t.rates).verdict == "within noise"]
    settings = winner_settings(space, config)
    trial_nodes = (session.context or {}).get("nodes")   # what tune's --nodes gave every trial (trials.py)
    rendered = {d: render(settings, d) for d in dialects(space)} if not settings.empty() else {}
    missing = {d: untranslated(settings, d) for d in rendered}
    keys = {k for k, _ in settings.pairs()}
    for d in rendered:
        if keys <= set(missing[d]):   # a skeleton that says none of them (an empty {}, a bare XML)
            rendered[d] = ""   # "(nothing of these settings in this dialect)"; missing still names them
    return Winner(settings=dict(settings.pairs()), gain=float(cmp.ratio or 0.0),
                  interval=(float(cmp.low or 0.0), float(cmp.high or 0.0)), method=noise.METHOD,
                  runs=runs + default_runs, rendered=rendered, verdict=cmp.verdict, trial=inc.number,
                  median=noise.median(win_rates), default_median=noise.median(default_rates),
                  case_changes=case_changes(space, config),
                  bench_flags=bench_flags(space, base, config, ranks, trial_nodes),
                  untranslated={d: keys for d, keys in missing.items() if keys}, alike=alike[:ALIKE])


def summary_line(session: TuningSession) -> str:
    """One line for `pario tune --list` and the store's headline."""
    w = session.winner
    # trials as the budget counts them (controls and the confirmation included, an interrupted trial once:
    # TuningSession.counted), so that the list says what the session's end said ("Spent 30 trials of the
    # 30 budgeted")
    done = session.counted()
    mpi = ((session.context or {}).get("space") or {}).get("flavour")   # the same case differs by MPI
    head = f"{session.case.get('name', '?')} {session.objective}{f' ({mpi})' if mpi else ''}, {done} trials"
    if w is None:
        return f"{head}, {session.status}"
    cache = f"; {tune_cache.tag(session)}: above the device ceiling" if (w.cache or {}).get("above") else ""
    if w.trial is None:
        return f"{head}: default kept (nothing faster beyond the noise{cache})"
    return f"{head}: {w.gain:.2f}x [{w.interval[0]:.2f}-{w.interval[1]:.2f}] over the default ({w.verdict}{cache})"


def describe(config: dict[str, Any]) -> str:
    """A configuration's difference from the default, short: 'collective=false mca.io=romio321'."""
    return " ".join(f"{k}={v}" for k, v in config.items()) or "(default)"
