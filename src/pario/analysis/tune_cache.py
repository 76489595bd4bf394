"""Whether a tuning session's figures are page cache rather than the file system: each trial's median,
the winner's and the default's against the O_DIRECT device ceiling the session probed (kept in its
context as "ceiling"), by the rule bench's tables use (summary.ceiling_check), and what to do about it.
Pure: the session record in, flags and a plain judgement out.

Why: a small written case lands in the page cache (write-back) unless fsync is inside the timed phase;
a tuner then tunes memory copies, and a gain it proves beyond the noise may not hold on the file
system or at scale."""
from __future__ import annotations

from typing import Any

from pario.analysis.summary import ceiling_check
from pario.model.tuning import Trial, TuningSession, Winner
from pario.model.units import GIB, MIB, exact, human


def _nodata(session: TuningSession) -> bool:
    """The null backend moves no data: its rates are neither page cache nor the file system."""
    caps = ((session.context or {}).get("space") or {}).get("caps") or []
    return "nodata" in caps or session.case.get("backend") == "null"


def ceiling_of(session: TuningSession) -> dict[str, Any] | None:
    """The device ceiling the session measured, or None (--no-probe, a failed probe, an old session,
    the null backend)."""
    if _nodata(session):
        return None
    ceiling = (session.context or {}).get("ceiling")
    if isinstance(ceiling, dict) and (ceiling.get("write_mib") or ceiling.get("read_mib")):
        return ceiling
    return None


def _odirect(session: TuningSession, settings: dict[str, str]) -> bool:
    """O_DIRECT in effect for a configuration: its own odirect knob, else the case as given."""
    value = settings.get("odirect")
    return bool(session.case.get("odirect")) if value is None else value == "true"


ABOVE = ("cache?", "flushed")   # the kinds the winner's line speaks of (O_DIRECT above the probe: not a concern)


def _kind(session: TuningSession, median: float | None, settings: dict[str, str]) -> str | None:
    if median is None:
        return None
    check = ceiling_check(session.objective, [median], ceiling_of(session), odirect=_odirect(session, settings),
                          fsync=flushed(session))
    return check["kind"] if check else None


def flushed(session: TuningSession) -> bool:
    """Writes flushed inside the timed phase (-e): a rate above the ceiling is not write-back (the tag
    is then "ceiling?", not "cache?")."""
    return session.objective == "write" and bool(session.case.get("fsync"))


def tag(session: TuningSession) -> str:
    return "ceiling?" if flushed(session) else "cache?"


def trial_flag(session: TuningSession, trial: Trial) -> str:
    """"cache?" when the trial's median is above the ceiling by bench's rule, else "" (O_DIRECT, or a
    write flushed inside the timed phase, -e: not the page cache)."""
    return "cache?" if _kind(session, trial.median, trial.settings) == "cache?" else ""


def judge(session: TuningSession, winner: Winner) -> dict[str, Any]:
    """The winner's and the default's medians against the ceiling, for the record (Winner.cache):
    {"judged", "ceiling_mib", "streams", "source", "above": ["winner", "default"], "line"}; "line" is
    what a reader is told ("" when judged and nothing is above)."""
    op = session.objective
    if _nodata(session):   # nothing to tell: no line
        return {"judged": False, "ceiling_mib": None, "streams": None, "source": "the null backend moves no data",
                "above": [], "line": ""}
    ceiling = ceiling_of(session)
    if ceiling is None or not ceiling.get(f"{op}_mib"):
        source = str(((session.context or {}).get("ceiling") or {}).get("source") or "not stored with this session")
        # the cure for what kept the probe out: --no-probe's is to leave it out (and only then)
        cure = ("; run without --no-probe to have the figures checked against the O_DIRECT probe"
                if "--no-probe" in source else "")
        return {"judged": False, "ceiling_mib": None, "streams": None, "source": source, "above": [],
                "line": f"page cache or file system: not judged, no device ceiling ({source}){cure}"}
    limit = float(ceiling[f"{op}_mib"])
    streams = int(ceiling.get("streams") or 1)
    trial = next((t for t in session.trials if t.number == winner.trial), None)
    figures = []   # (who, median) of those above
    if winner.trial is not None and _kind(session, winner.median, trial.settings if trial else {}) in ABOVE:
        figures.append(("winner", winner.median or 0.0))
    if _kind(session, winner.default_median, {}) in ABOVE:
        figures.append(("default", winner.default_median or 0.0))
    out: dict[str, Any] = {"judged": True, "ceiling_mib": limit, "streams": streams,
                           "source": str(ceiling.get("source") or "probe"), "above": [w for w, _ in figures],
                           "line": ""}
    if figures:
        said = " and ".join(f"the {who}'s {rate:.0f} MiB/s" for who, rate in figures)
        verb = "are" if len(figures) > 1 else "is"
        above = (f"{tag(session)}: {said} {verb} above the device ceiling ({op} "
                 f"{limit:.0f} MiB/s, O_DIRECT probe, {streams} stream{'s' if streams != 1 else ''})")
        what = "the gain" if winner.trial is not None else "the comparison"   # the default kept: no gain
        if flushed(session):   # write-back is inside the timing: not page cache
            out["line"] = (f"{above} although fsync is inside the timed phase (-e): not the page cache's "
                           "write-back, so the probe was probably low (a loaded machine) or the device caches "
                           f"writes; {what} may not hold on the real file system or at scale.")
        else:
            out["line"] = (f"{above}: probably page cache, not the file system, so {what} may not hold on the "
                           f"real file system or at scale; {_remedy(session)}.")
    return out


def _remedy(session: TuningSession) -> str:
    """What to tune with instead, for the objective and what the backend can do."""
    case, ctx = session.case, (session.context or {}).get("space") or {}
    odirect = "odirect" in (session.space or {}) or "odirect" in (ctx.get("caps") or [])
    ways = []
    if session.objective == "write" and not case.get("fsync"):
        ways.append("with -e (fsync inside the timed phase)")
    if odirect and not case.get("odirect"):
        ways.append("with --odirect (O_DIRECT, no page cache)")
    if session.objective == "read":
        mem = int((session.context or {}).get("mem_total") or 0)
        per_node = max(1, -(-session.ranks // max(1, int(ctx.get("hosts") or 1))))
        if mem:
            xfer = int(case.get("xfer") or 0)
            step = GIB if xfer and GIB % xfer == 0 else (xfer or MIB)   # a whole number of transfers
            block = (2 * mem // per_node // step + 1) * step
            ways.append(f"with a block size over twice RAM per node (-b {exact(block)} or more: {per_node} "
                        f"rank{'s' if per_node != 1 else ''} x -b > 2 x {human(mem)})")
        else:
            ways.append("with a block size over twice RAM per node (ranks per node x -b > 2 x RAM)")
    return "to measure the file system, tune " + ", or ".join(ways)
