"""`pario tune` in a terminal: the space, one live line per trial, the winner (its gain and interval,
the runs behind it, the knobs that mattered, bench flags and the settings in every dialect), and the
list of sessions. Plain lines, wrapped at 80 columns, so that a log or a job's output reads the same."""
from __future__ import annotations

import sys
import textwrap
from typing import Any, TextIO

from pario.analysis.tune_cache import ceiling_of, flushed, trial_flag
from pario.model.tuning import Dropped, Trial, TuningSession
from pario.model.units import count, human

WIDTH = 80


def _wrap(text: str, indent: str = "  ", first: str | None = None) -> str:
    return textwrap.fill(text, WIDTH, initial_indent=first if first is not None else indent,
                         subsequent_indent=indent + "  ", break_on_hyphens=False, break_long_words=False)


def changed(settings: dict[str, str]) -> str:
    """short() of a trial's settings without the knobs left at their default value (ROMIO's
    `cb_write=default` under io=romio321 is what io=romio321 alone means)."""
    return short({k: v for k, v in settings.items() if v != "default"})


def short(settings: dict[str, str]) -> str:
    """A trial's difference from the default, short enough for one line."""
    parts = []
    for k, v in settings.items():
        name = k.replace("mca.", "").replace("romio_", "")
        if v.isdigit() and int(v) >= 1024:
            v = human(int(v)).replace(" ", "")
        parts.append(f"{name}={v}")
    return " ".join(parts) or "(default)"


def header(session: TuningSession, grid: int, out: TextIO = sys.stdout, columns: bool = True,
           race_cap: int | None = None) -> None:
    case = session.case
    size = f"{human(case.get('xfer', 0))} x {human(case.get('block', 0))}" if case.get("block") else ""
    print(_wrap(f"pario tune: {case.get('name')} ({case.get('backend')}, {count(session.ranks, 'rank')}, {size}), "
                f"objective {session.objective}; {len(session.space)} knobs, {grid} distinct configurations; "
                f"budget {session.budget.get('trials')} trials{_per_trial(session, race_cap)}", "", ""), file=out)
    for knob, values in session.space.items():
        print(_wrap(f"{knob}: {', '.join(short({'': v}).lstrip('=') for v in values)}", "  "), file=out)
    only = (session.context or {}).get("only")
    # with --space, what is out of the default space matters only for the knobs the user named
    dropped([d for d in session.dropped if only is None or d.evidence or d.key.split("=")[0] in only], out)
    ceiling_line(session, out)
    kept = [t for t in session.trials if t.state != "running"]
    if kept:   # --resume: what the session brings along
        reps = sum(len(t.rates) for t in kept)
        inc = f", incumbent #{session.incumbent}" if session.incumbent is not None else ", no incumbent yet"
        # the trials Ctrl-C cut off are not finished ones (the interrupt's own line counted only those)
        cut = sum(1 for t in kept if t.state == "interrupted")
        cut_text = f", {cut} cut off by the interrupt" if cut else ""
        print(_wrap(f"resuming session {session.id}: {len(kept) - cut} finished trial(s) kept{cut_text} "
                    f"({reps} counted repetitions){inc}", "", "  "), file=out)
    if columns:
            print(f"{'#':>3} {'trial':<9}{'MiB/s':>9} {'x dflt':>7} {'best':>5}  settings (vs the default)", file=out)


def _per_trial(session: TuningSession, race_cap: int | None) -> str:
    """What a trial is, next to the budget: a configuration measured, not a repetition."""
    rungs = session.budget.get("rungs") or []
    if not rungs:
        return ""
    most = max(int(race_cap or 0), int(rungs[-1]))
    seconds = session.budget.get("seconds")
    limit = f" or {seconds:.0f} s" if seconds else ""
    return (f"{limit} (a trial is one configuration measured with {rungs[0]} to {most} counted repetitions; "
            "the default's controls and the confirmation are trials too)")


def dropped(items: list[Dropped], out: TextIO = sys.stdout) -> None:
    for d in items:
        where = f" ({d.evidence})" if d.evidence else ""
        print(_wrap(f"not searched: {d.key}: {d.reason}{where}", "  "), file=out)


def trial_line(session: TuningSession, trial: Trial) -> str:
    median = f"{trial.median:9.1f}" if trial.median is not None else f"{'-':>9}"
    # a control is the default itself: its ratio to the default's median reads as nonsense in "x dflt"
    ratio = f"{trial.ratio:6.2f}x" if trial.ratio is not None and trial.state != "control" else f"{'':>7}"
    best = f"#{session.incumbent}" if session.incumbent is not None else "dflt"
    what = {"control": "(default, control)", "confirm": f"(confirm {trial.note}) {changed(trial.settings)}"}.get(
        trial.state, changed(trial.settings))
    if trial.state == "failed":
        what = f"{what}: {trial.note}"
    flag = trial_flag(session, trial)   # bench's flag, first in the settings column: wrapping cannot hide it
    if flag:
        what = f"{flag} {what}"
    head = f"{trial.number:>3} {trial.state:<9}{median} {ratio} {best:>5}  "
    return _hang(head, what)


def race_round(entrants: list[Trial]) -> str:
    """One round of a race: each contender with its counted repetitions and median so far."""
    parts = [f"#{t.number} {t.median or 0:.0f}{' MiB/s' if i == 0 else ''} ({len(t.rates)} reps)"
             for i, t in enumerate(entrants)]
    return _hang("      race: ", " vs ".join(parts))


def race_outcome(winner: Trial, others: list[Trial], how: str) -> str:
    """How a race ended: who won and how (beyond the noise, a tie at the cap, the budget)."""
    against = ", ".join(f"#{t.number} {t.median or 0:.0f} ({len(t.rates)})" for t in others)
    return _hang("      race: ", f"#{winner.number} wins ({how}): {winner.median or 0:.0f} MiB/s "
                 f"({len(winner.rates)} reps)" + (f" against {against}" if against else ""))


def race_note(text: str) -> str:
    return _hang("      race: ", text)


def incumbent_line(session: TuningSession, trial: Trial | None) -> str:
    """The incumbent changed: which trial, and by how much it beat the one before."""
    if trial is None:
        return _hang("      best: ", "the default again")
    why = trial.note[len("new incumbent: "):] if trial.note.startswith("new incumbent: ") else ""
    rate = f"{trial.median or 0:.1f} MiB/s" + (f", {trial.ratio:.2f}x the default" if trial.ratio else "")
    return _hang("      best: ", f"#{trial.number} is the new incumbent ({rate})" + (f": {why}" if why else ""))


def spent_lines(session: TuningSession) -> list[str]:
    """What the session spent: trials (the budget's unit) and the counted repetitions behind them, and
    the trials --resume did not take up (the terminal and the HTML page say the same)."""
    trials = session.counted()   # as the budget counts them: an interrupted trial once
    reps = sum(len(t.rates) for t in session.trials)   # every repetition run, an unused one's too
    launches = sum(len(t.runs) for t in session.trials)
    budget = session.budget.get("trials")
    seconds = session.budget.get("seconds")
    # with --time the clock is a budget too (alone, the trial count is only the bound it sets)
    of = (f" of the {budget} or {seconds:.0f} s budgeted (whichever came first; " if budget and seconds else
          f" of the {budget} budgeted (" if budget else " (")
    runs = f", over {launches} launches (stored runs)" if launches else ""
    out = [f"Spent {trials} trials{of}configurations measured, the default's controls and the confirmation "
           f"included) and {reps} counted repetitions in all{runs}."]
    # what --resume did not take up: the trial numbers skip it, the count leaves it out
    return out + [f"trial {t.number}: {t.note}" for t in session.trials if t.state == "interrupted"]


def ceiling_line(session: TuningSession, out: TextIO = sys.stdout) -> None:
    """The device ceiling the session's figures are judged by, when it has one: above the trials of a
    session probed here; after them for a session whose jobs probed it inside their allocation
    (tune --submit said nothing of it)."""
    ceiling = ceiling_of(session)
    if ceiling is None or not ceiling.get(f"{session.objective}_mib"):
        return
    streams = int(ceiling.get("streams") or 1)
    jobs = "allocation" in str(ceiling.get("source"))
    where = "O_DIRECT probe inside the job's allocation" if jobs else "O_DIRECT probe"
    print(_wrap(f"device ceiling ({session.objective}, {where}, "
                f"{streams} stream{'s' if streams != 1 else ''}): {ceiling[f'{session.objective}_mib']:.0f} MiB/s; "
                + ("the winner and the default are judged against it (a median above it: page cache, not the file "
                   "system)" if jobs else
                   "a trial whose median is above it is marked cache? (page cache, not the file system)")
                + ("; these writes are flushed inside the timed phase (-e), so none is" if flushed(session)
                   else ""), "", "  "), file=out)


def spent(session: TuningSession, out: TextIO = sys.stdout) -> None:
    lines = spent_lines(session)
    print(_wrap(lines[0], "", ""), file=out)
    for line in lines[1:]:
        print(_wrap(line, "  "), file=out)


def _hang(head: str, text: str) -> str:
    """`text` after `head`, wrapped at spaces under its own first column ("settings", "summary"):
    a setting such as cb_config_list=*:2 is never cut ("cb_config_l..." was)."""
    return textwrap.fill(text, WIDTH, initial_indent=head, subsequent_indent=" " * len(head),
                         break_on_hyphens=False, break_long_words=False) or head.rstrip()


def _mib(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def winner_lines(session: TuningSession) -> list[tuple[str, str]]:
    """The session's end in words, as (indent, text): the notes, the winner or the default kept with its
    gain, interval and verdict, the runs behind them, the trials as good, the knobs that mattered. The
    terminal wraps them; the HTML page shows them as they are (report/html/tuning.py)."""
    w = session.winner
    out = [("", f"note: {note}") for note in session.notes]
    if w is None:
        return out + [("", "no winner: the session did not finish")]
    op = session.objective
    if w.trial is None and not w.runs:   # the default never ran: nothing to keep, nothing to compare with
        return out + [("", "No winner: the default configuration failed, so nothing can be compared with it (the "
                           "trials above say why)" if any(t.rates for t in session.trials) else
                           "No winner: nothing was measured (every launch failed; the trials above say why)")]
    if w.trial is None:
        out.append(("", f"Winner: the default configuration (nothing was faster beyond the noise); {op} "
                        f"{_mib(w.default_median)} MiB/s over {len(w.runs)} control run(s): {_ids(w.runs)}"))
        if (w.cache or {}).get("line"):
            out.append(("  ", w.cache["line"]))
        return out
    changes = " ".join(f"{k}={v}" for k, v in w.case_changes.items())
    what = " ".join(x for x in (changed(w.settings) if w.settings else "", changes) if x)
    title = "Winner" if w.proven else "No winner beyond the noise; the best candidate"
    out.append(("", f"{title}: trial {w.trial}: {what}"))
    verdict = {"faster": "faster than the default beyond the noise",
               "within noise": "NOT faster beyond the noise (the interval includes 1): keep the default",
               "slower": "SLOWER than the default beyond the noise: keep the default",
               "too few samples": "too few samples for an interval"}.get(w.verdict, w.verdict)
    out.append(("  ", f"{op} {_mib(w.median)} MiB/s against the default's {_mib(w.default_median)} MiB/s: "
                      f"{w.gain:.2f}x [{w.interval[0]:.2f}-{w.interval[1]:.2f}], {verdict} (95% {w.method})"))
    if (w.cache or {}).get("line"):   # right by the verdict: "faster" is true of what was measured, maybe memory
        out.append(("  ", w.cache["line"]))
    controls = {r for t in session.trials if t.state == "control" for r in t.runs}
    mine, theirs = [r for r in w.runs if r not in controls], [r for r in w.runs if r in controls]
    out.append(("  ", f"runs behind it: {_ids(mine)}; the default's: {_ids(theirs)} (`pario results show ID`)"))
    for a in w.alike:   # what the repetitions could not rank: the user may prefer the simpler one
        out.append(("  ", f"as good within the noise: trial {a['trial']}: {changed(a['settings'])} "
                          f"({_mib(a['median'])} MiB/s, {a['reps']} repetitions)"))
    if session.importance:
        ranked = sorted(session.importance.items(), key=lambda kv: -kv[1])
        out.append(("  ", "knobs that mattered: " + ", ".join(f"{k} {v:.2f}" for k, v in ranked)
                          + f" ({session.importance_method})"))
    elif session.importance_method:
        out.append(("  ", f"knobs that mattered: {session.importance_method}"))
    return out


def winner(session: TuningSession, out: TextIO = sys.stdout) -> None:
    print(file=out)
    for indent, line in winner_lines(session):
        print(_wrap(line, indent) if indent else _wrap(line, "", ""), file=out)
    w = session.winner
    if w is None or w.trial is None:
        return
    changes = " ".join(f"{k}={v}" for k, v in w.case_changes.items())
    if w.bench_flags and w.proven:   # a command for a winner only: the candidate's would be a step back
        print("  as one bench command:", file=out)
        print(_wrap(w.bench_flags, "    "), file=out)
    if w.case_changes:
        print(_wrap("the case itself changes (" + changes + "): that is the program's own I/O calls or files, "
                    "not a setting", "  "), file=out)
    if w.rendered:
        print("  the settings in every dialect, ready to paste:" if w.proven else
              "  its settings in every dialect (not proven faster than the default: keep the default's):",
              file=out)
        for dialect, text in w.rendered.items():
            print(f"  ## {dialect}", file=out)
            # verdict.conclude leaves a dialect that can say none of the settings empty (no {} or skeleton)
            missing = w.untranslated.get(dialect) or []
            for line in text.rstrip("\n").splitlines():
                print(f"    {line}", file=out)
            if missing:   # said apart: the lines above stay pasteable
                print(_wrap(f"(no equivalent in this dialect: {', '.join(missing)})", "    "), file=out)
            elif not text.strip():
                print("    (nothing of these settings in this dialect)", file=out)


def _ids(runs: list[int]) -> str:
    return ", ".join(str(r) for r in runs) or "none stored"


def sessions(rows: list[dict[str, Any]], out: TextIO = sys.stdout) -> None:
    if not rows:
        print("no tuning sessions stored yet; `pario tune -a mpiio -c -n 4 -w` starts one", file=out)
        return
    print(f"{'id':>4}  {'updated':<20} {'status':<12} summary", file=out)
    for r in rows:
        print(_hang(f"{r['id']:>4}  {r['updated']:<20} {r['status']:<12} ", r["headline"]), file=out)
