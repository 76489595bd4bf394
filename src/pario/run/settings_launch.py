"""The settings in effect, measured around the timed run: a launch of its own before it that opens
each case's file once, untimed, with the MPI told to print the settings it took, and afterwards
the measured settings written into each case of the result beside what was requested."""
from __future__ import annotations

import tempfile
from typing import Any

from pario.model.case import Case
from pario.model.errors import ParioError
from pario.model.events import RunObserver
from pario.model.result import EnvDoc, ResultDoc
from pario.platform import layout
from pario.platform.mpi import MPI
from pario.run import forward, launchers, watchdog
from pario.settings import ceph_layout, effective, view

SETTINGS_TIMEOUT = 120.0  # seconds without progress: one open and close per case


def read_settings(*, mpi: MPI, io: str | None, launcher: str, ranks: int, engine: str, spec_path: str,
                  cases: list[Case], collector: effective.OutputCollector, forwarded: dict[str, str],
                  observer: RunObserver, pidfile: str | None = None) -> None:
    """Before the timed run (settings.effective reads the lines the MPI prints). When it fails, the
    timed run still runs and reports the problem; the effective settings are then unknown."""
    display = forward.settings_env(mpi, io, cases)
    if not display:
        return
    env = {**display, **forwarded}
    argv = launchers.command(mpi, ranks, [engine, "--settings", spec_path], io=io, env=env, launcher=launcher)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err:
        try:
            outcome = watchdog.run(argv, env=launchers.launch_env(mpi, io, launcher, env),
                                   timeout=SETTINGS_TIMEOUT, status_dir=None, ranks=ranks, cases=cases,
                                   observer=observer.quiet(), sink=collector, stderr=err, pidfile=pidfile)
        except ParioError as exc:
            observer.note(f"the settings in effect were not read: {exc}")
            return
        if outcome.returncode or outcome.watchdog:
            err.seek(0)
            last = [line.strip() for line in err if line.strip()][-1:] or [outcome.watchdog or "no message"]
            observer.note(f"the settings in effect were not read ({last[0]}); the timed run follows")


def measured(result: ResultDoc, collector: effective.OutputCollector, layouts: dict[int, dict[str, Any]],
             env: EnvDoc, mpi: MPI, ranks: int) -> None:
    """Put the effective settings, the means used and the per-setting check into each case."""
    stack = env.get("stack") or {}
    hosts = len((result.get("mpi") or {}).get("hosts") or []) or 1
    impl = (stack.get("mpi") or {}).get("mpiio") or ("ompio" if mpi.flavour == "openmpi" else "romio")
    stack_view = view(stack, impl=impl, fs=env.get("fs_name"), ranks=ranks, hosts=hosts)
    effective.annotate(result, collector.reports(), mpi.flavour, stack_view, env.get("settings_from_env") or (),
                       (stack.get("mpi") or {}).get("ompio_params"))
    for case in result.get("cases") or []:
        rec = layouts.get(case.get("index"))
        if rec is not None:
            if rec.get("top_xattr") and (case.get("fs_layout") or {}).get("value"):  # read back by the engine
                rec = {**rec, "effective": ceph_layout.parse_layout(case["fs_layout"]["value"])}
            case["layout"] = {**rec, "mismatch": layout.compare(rec)}
