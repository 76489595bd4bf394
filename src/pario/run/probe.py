"""`pario stack`'s MPI probe: the engine once on a 1 MiB collective MPI-IO write in the directory,
with the MPI told to print the hints it took, read by settings.effective."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from typing import Any

from pario.model.errors import ParioError
from pario.platform.mpi import detect, find_mpirun
from pario.platform.scratch import Scratch
from pario.run import session
from pario.run.bench import guard
from pario.run.launchers import command
from pario.run.launchers import nodes as placement
from pario.run.sentinel import Sentinel
from pario.run.watchdog import PROGRESS, write_pidfile
from pario.settings import effective


def probe(engine: str, mpirun: str | None, path: str, io: str | None) -> dict[str, Any]:
    """Run the engine once on a 1 MiB collective MPI-IO write in path (1 rank) and report the MPI
    library and the hints in effect for a new file there, by the best means this MPI offers."""
    mpi = detect(find_mpirun(mpirun))
    watcher = Sentinel()  # its own directory: removed by the sentinel if pario is killed (SIGKILL)
    # in `path` when the rank may run on another node (inside an allocation, with a hostfile): that
    # node reads the spec and writes the result, and its /tmp is not this one's
    tmp = watcher.start(parent=os.path.abspath(path) if placement.elsewhere(mpi, "mpirun", None) else None)
    prefix = f"pario.stack-{os.getpid()}-{int(time.time())}"
    # its file in path, DIR/PREFIX.0.*: the engine removes it at its end; a launch cut short (the
    # launcher killed with pario, as a kill of pario's process group does) leaves it to these
    probe_files = Scratch(os.path.abspath(path))
    probe_files.prefix = prefix
    probe_files.before = set(probe_files.leftovers())  # never another's
    spec = {"schema": "pario.spec/1", "run_id": prefix, "dir": probe_files.dir, "prefix": prefix,
            "cases": [{"name": "stack-probe", "backend": "mpiio", "strategy": "shared", "pattern": "segmented",
                       "xfer": 1 << 20, "block": 1 << 20, "ops": ["write"], "reps": 1, "collective": True}],
            # the engine's orphan guard, as a run's: pario killed, the rank ends the launch and removes
            # the file, the spec and this directory (never path itself: the probe did not make it)
            "guard": guard(tmp, probe_files)}
    spec_path, result_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "result.json")
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh)
    env = {"ROMIO_PRINT_HINTS": "1", "MPICH_MPIIO_HINTS_DISPLAY": "1"}
    argv = command(mpi, 1, [engine, spec_path, result_path], io=io, env=env)
    # the sentinel: the probe's file too, after the launch (or `pario-engine --orphaned` for it)
    watcher.tell(scratch=probe_files.dir, prefix=prefix, rmdir=False,
                 launch={"engine": engine, "spec": spec_path, "result": result_path})
    try:
        out = _launch(argv, {**os.environ, **env}, os.path.join(tmp, "launcher"))
        watcher.tell(launch=None)
        with open(result_path, encoding="utf-8") as fh:
            result = json.load(fh)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"ok": False, "reason": f"the probe run failed ({exc})"}
    finally:
        probe_files.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
        watcher.close()
    collector = effective.OutputCollector(prefix)
    for line in out.stdout.splitlines():
        if line.startswith(PROGRESS):
            try:
                collector.event(json.loads(line[len(PROGRESS):]))
            except ValueError:
                pass
        else:
            collector.line(line)
    case = (result.get("cases") or [{}])[0]
    if result.get("status") != "complete":
        return {"ok": False, "reason": (result.get("error") or {}).get("message") or out.stderr.strip()[-300:]}
    reports = collector.reports().get(0, {})
    impl = "ompio" if mpi.flavour == "openmpi" and not (io or "").startswith("romio") else None
    means, hints = effective.best(case.get("hints") or {}, reports, mpi.flavour, impl)
    library = (result.get("mpi") or {}).get("library") or ""
    return {"ok": True, "io": io, "library": " ".join(library.splitlines()[0].split()) if library else None,
            "standard": (result.get("mpi") or {}).get("standard"), "means": means, "hints": hints,
            "romio_driver": hints.get("romio_filesystem_type")}


def _launch(argv: list[str], env: dict[str, str], pidfile: str) -> subprocess.CompletedProcess:
    """The launcher in a session of its own, as run.watchdog starts every launch: a kill of pario's
    process group leaves it to the engine's orphan guard, which ends it and removes its files."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)
    write_pidfile(pidfile, proc.pid)
    try:
        out, err = proc.communicate(timeout=120)
    except BaseException:  # the timeout, Ctrl-C: the launch is ended with pario's run
        session.terminate(proc)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def probes(engine: str, mpirun: str | None, path: str, io: str | None, mpi: dict[str, Any]) -> list[dict[str, Any]]:
    """The probes of `pario stack` (platform.stack.collect's `probe`): the default MPI-IO, and under
    Open MPI's OMPIO also ROMIO."""
    if not os.access(path, os.W_OK):
        return [{"ok": False, "reason": f"{path} is not writable: no probe file could be created"}]
    runs = [io]
    # Under Open MPI the default (OMPIO) says nothing about ROMIO's driver: also ask romio321.
    if mpi.get("flavour") == "openmpi" and mpi.get("mpiio") == "ompio":
        runs += [c for c in mpi.get("io_components", []) if c.startswith("romio")][:1]
    out = []
    for chosen in runs:
        try:
            out.append(probe(engine, mpirun, path, chosen))
        except ParioError as exc:
            out.append({"ok": False, "io": chosen, "reason": str(exc)})
    return out
