"""The device ceiling a tuning session judges its figures by: the O_DIRECT probe of the scratch
directory with the session's ranks per host as streams (as `pario bench` probes for its runs), kept
in the session's context so that --resume, `pario tune --list` and `pario report` see what it was."""
from __future__ import annotations

from typing import Any

from pario.model.tuning import TuningSession
from pario.platform.ceiling import device_ceiling, streams_per_host
from pario.platform.host import meminfo


def session_ceiling(session: TuningSession, engine: str, directory: str, skip: bool) -> dict[str, Any]:
    """The ceiling for this launch's trials (cached per directory and streams by platform.ceiling). A
    measured ceiling the session kept stays its judge when this launch has none (--resume --no-probe)."""
    ceiling = device_ceiling(engine, directory, skip=skip, streams=streams_per_host(session.ranks))
    kept = session.context.get("ceiling") or {}
    if ceiling.get("write_mib") or not kept.get("write_mib"):
        session.context["ceiling"] = ceiling
    if not session.context.get("mem_total"):   # twice RAM per node: the read size the page cache cannot hold
        session.context["mem_total"] = meminfo()["mem_total"]
    return ceiling
