"""One `pario bench` run once its cases are planned and validated: write the spec, launch the
engine, judge the outcome, clean up this run's files. A typed request in, a RunRecord out; what
happens on the way goes to a RunObserver (nothing here prints), storing and showing are the
caller's (cli/bench.py), so a tuner can run trials the same way."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from typing import Any

from pario.model.case import Case
from pario.model.errors import ParioError, Stopped
from pario.model.events import RunObserver
from pario.model.result import ResultDoc, RunRecord, SpecDoc
from pario.model.units import count
from pario.platform import environment, host, layout, slurm
from pario.platform.ceiling import device_ceiling, streams_per_host
from pario.platform.mpi import MPI, in_slurm
from pario.platform.scratch import Scratch
from pario.run import engine_mpi, forward, launchers, scratch_guard, servers, session, stop, watchdog
from pario.run.launchers import nodes as placement
from pario.run.launchers import srun
from pario.run.sentinel import Sentinel
from pario.run.settings_launch import measured, read_settings
from pario.run.tee import StderrTee
from pario.settings import effective, envsettings

# How the engine starts a line of its own on stderr (csrc/engine/main.c): its reason when it stops.
ENGINE_SAYS = "pario-engine: "


@dataclass
class RunRequest:
    """Everything one engine run needs, decided before it starts."""
    cases: list[Case]
    ranks: int
    engine: str
    mpi: MPI
    scratch: Scratch
    timeout: float | None = None        # watchdog: seconds without progress; None: measured (watchdog.Limit)
    note: str = ""                      # the sentence about the cases' sizes
    io: str | None = None               # Open MPI io component
    launcher: str = "mpirun"
    ceiling: dict[str, Any] | None = None   # the device ceiling if already measured
    no_probe: bool = False              # do not measure the device ceiling
    facts: dict[str, Any] = field(default_factory=dict)   # more of what the caller knows, kept in env
    mca: dict[str, str] = field(default_factory=dict)     # Open MPI MCA parameters of the ranks (a tuner's
    # trial: fcoll, io_ompio_*), exported to every rank as OMPI_MCA_NAME, which Open MPI reads at start
    env: dict[str, str] = field(default_factory=dict)     # more variables for the ranks only (a preset's
    # buffered case: LD_PRELOAD and PARIO_BUFFER_*, so that mpirun itself runs without the library)
    nodes: int | None = None            # --nodes: the ranks in blocks over this many nodes


def engine_spec(run_id: str, directory: str, prefix: str, status_dir: str, cases: list[Case]) -> SpecDoc:
    """The spec document the engine reads (schemas/spec.schema.json); pario's own '_' keys stay out."""
    return {"schema": "pario.spec/1", "run_id": run_id, "dir": directory, "prefix": prefix,
            "status_dir": status_dir,
            "cases": [{k: v for k, v in c.items() if not k.startswith("_")} for c in cases]}


def check_spec(engine: str, spec: SpecDoc, tmp: str) -> None:
    """`pario-engine --check`: the engine's own spec check, without MPI, before anything is written or
    launched. The front end's checks (plan/validate.py) come first and say more; this is the guarantee
    that nothing they missed is refused only after mpirun started."""
    path = os.path.join(tmp, "check.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh)
    try:
        out = subprocess.run([engine, "--check", path], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"{engine} --check failed ({exc}); reinstall pario (make setup)", exit_code=3) from None
    finally:
        os.unlink(path)
    if out.returncode:
        said = (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]
        said = said.removeprefix(ENGINE_SAYS)
        raise ParioError(f"the engine refuses this run: {said}", exit_code=2 if out.returncode == 2 else 3)


def engine_said(lines: list[str]) -> str | None:
    """The engine's own reason, from the launcher's stderr, for a run that ended before it could write
    its result (rank 0 cannot read its spec on a node that does not see pario's directory): rank 0's
    last 'pario-engine: ' line (after srun's task label, under --label)."""
    for line in reversed(lines):
        m = re.match(r"\s*(?:\d+: )?" + re.escape(ENGINE_SAYS) + r"(.+)", line)
        if m:
            return m.group(1).strip()
    return None


def guard(tmp: str, scratch: Scratch) -> dict[str, Any]:
    """Who the engine watches (schemas/README.md, the orphan guard): this process, named by pid,
    start time and host, the directory of this run's own files (with the launcher's pid file), and
    whether pario made the scratch directory. When this process dies without ending the launch
    (SIGKILL), the engine ends it and removes the run's files."""
    start = session.start_time(os.getpid())
    return {"pid": os.getpid(), "start": start or 0, "boot": session.boot_id(), "dir": tmp,
            "rmdir": scratch.created}


def execute(request: RunRequest, observer: RunObserver) -> RunRecord:
    """Run the cases once; the scratch files of the run are removed unless kept (-k) and complete.
    The private directory comes from the run's sentinel (run/sentinel.py), which removes it and
    the run's scratch files if this process is killed (SIGKILL) before its launch guards them."""
    # an engine of another MPI than the launcher's: refused here, before anything is made or launched
    engine_mpi.check(request.engine, request.mpi, request.launcher)
    scratch = request.scratch
    watcher = Sentinel()
    # private: spec, result and status files of this run; beside the scratch directory when ranks may run
    # on other hosts (rank 0 reads the spec and writes the result; another node's /tmp is not this one's)
    shared = placement.elsewhere(request.mpi, request.launcher, request.nodes)
    tmp = watcher.start(parent=host.nearest_existing(scratch.dir) if shared else None)
    if scratch.owns_files:  # a command's guards wait for this run's files only while it is under way
        scratch_guard.running(scratch)
    try:
        check_spec(request.engine, engine_spec(scratch.run_id, scratch.dir, scratch.prefix, os.path.join(tmp, "status"),
                                               request.cases), tmp)
        if scratch.owns_files:  # told before prepare() may create the directory
            watcher.tell(scratch=scratch.dir, prefix=scratch.prefix,
                         rmdir=scratch.created or not os.path.isdir(scratch.dir))
        scratch.prepare()
        try:
            if any(c.get("unique_dir") for c in request.cases):
                scratch.make_rank_dirs(request.ranks)
                watcher.tell(rank_dirs=scratch.rank_dirs)
            return _execute(request, observer, tmp, watcher)
        except BaseException:
            scratch.cleanup()
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if shared:
            scratch.remove_dir_if_ours()  # the private directory may have kept it from being empty
        watcher.close()
        scratch_guard.running(None)


def _server_sampler(env: dict[str, Any]) -> servers.ServerSampler | None:
    """A sampler of the file servers' counters where pario can read them (CephFS), else None."""
    ceph = (env.get("stack") or {}).get("cephfs") or {}
    found = ceph.get("server_list") or []
    if not found:
        return None
    client = ceph.get("client") or {}
    sampler = servers.ServerSampler(found, client.get("conf"), client.get("name") or "client.admin")
    return None if sampler.failed else sampler


def _execute(req: RunRequest, observer: RunObserver, tmp: str, watcher: Sentinel) -> RunRecord:
    scratch, mpi, cases, ranks = req.scratch, req.mpi, req.cases, req.ranks
    ceiling = req.ceiling if req.ceiling is not None else device_ceiling(
        req.engine, scratch.dir, skip=req.no_probe, streams=streams_per_host(ranks))
    status_dir = os.path.join(tmp, "status")
    os.mkdir(status_dir)
    spec = engine_spec(scratch.run_id, scratch.dir, scratch.prefix, status_dir, cases)
    spec["guard"] = guard(tmp, scratch)
    pidfile = os.path.join(tmp, "launcher")
    spec_path, result_path = os.path.join(tmp, "spec.json"), os.path.join(tmp, "result.json")
    forwarded = {**forward.timed_env(), **{f"OMPI_MCA_{k}": v for k, v in sorted(req.mca.items())}, **req.env}
    argv = launchers.command(mpi, ranks, [req.engine, spec_path, result_path], io=req.io, env=forwarded,
                             launcher=req.launcher, nodes=req.nodes)
    env = environment.collect(directory=scratch.dir, mpi=mpi, io=req.io, launcher_argv=argv,
                              ceiling=ceiling, ranks=ranks, engine=req.engine)
    env.update(req.facts)
    slurm_facts = _slurm_facts(req.launcher, argv, mpi)
    if slurm_facts:
        env["slurm"] = slurm_facts
    if req.mca:
        env["mca"] = dict(req.mca)
    # ROMIO_HINTS, OMPI_MCA_ and MPICH_MPIIO_HINTS settings: requested too, with their source; the
    # MCA parameters the caller exports (a tuner's trial) are in os.environ's place for the ranks
    env["settings_from_env"] = envsettings.collect({**os.environ, **{f"OMPI_MCA_{k}": v for k, v in req.mca.items()}})
    n_servers = ((env.get("stack") or {}).get("cephfs") or {}).get("servers")
    layouts = layout.prepare(cases, scratch.dir, scratch.prefix, ranks, env.get("fs_name"), servers=n_servers,
                             rank_dirs=scratch.rank_dirs)
    for index, rec in layouts.items():
        if rec.get("top_xattr"):  # a metadata tree: the engine sets the layout on its top directory
            spec["cases"][index]["top_xattr"] = rec["top_xattr"]
        elif rec.get("applied"):  # the engine then truncates these files between repetitions, keeping the layout
            spec["cases"][index]["precreated"] = True
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh, indent=1)
    collector = effective.OutputCollector(scratch.prefix)
    limit = watchdog.Limit(req.timeout, cases, ranks)
    # the MPI's own version line names its mpirun even when srun launches the ranks: say which did
    launched = f" launched by {req.launcher}," if req.launcher != "mpirun" else ""
    observer.note(f"{count(ranks, 'rank')},{launched} {mpi.flavour} ({mpi.version}), scratch {scratch.dir}"
                  + (" (created for this run; removed at the end if left empty)" if scratch.created else ""))
    observer.note(req.note)
    observer.note(f"watchdog: {limit.policy()}")
    if in_slurm() and req.launcher == "mpirun":
        observer.note(f"inside Slurm job {in_slurm()}: mpirun places the ranks in its allocation "
                      "(or use --launcher srun)")
    # from here until the launches end, the engine's orphan guard removes this run's files
    watcher.tell(launch={"engine": req.engine, "spec": spec_path, "result": result_path})
    read_settings(mpi=mpi, io=req.io, launcher=req.launcher, ranks=ranks, engine=req.engine, spec_path=spec_path,
                  cases=cases, collector=collector, forwarded=forwarded, observer=observer, pidfile=pidfile)
    sampler = _server_sampler(env)  # CephFS: each server's bytes per phase, its own counters
    sink = servers.Tee(collector, sampler) if sampler else collector
    stopped: Stopped | None = None
    # the launcher's messages (and the ranks' stderr it forwards) are shown as they come and kept: when
    # the launch fails, they hold srun's reason, or the engine's own (mpirun and mpiexec alike)
    tee = StderrTee(observer.output).start()
    try:
        # mpirun passes the ranks' variables on with -x; it runs without req.env itself (srun needs them)
        own = {k: v for k, v in forwarded.items() if req.launcher != "mpirun" or k not in req.env}
        outcome = watchdog.run(argv, env=launchers.launch_env(mpi, req.io, req.launcher, own),
                               timeout=limit, status_dir=status_dir, ranks=ranks, cases=cases,
                               observer=observer, sink=sink, stderr=tee.file,
                               pidfile=pidfile, directory=scratch.dir)
    except Stopped as exc:  # the launch is ended (watchdog.run saw to it); keep what it measured
        stopped = exc
        outcome = watchdog.Outcome(returncode=128 + exc.signum)
    except KeyboardInterrupt:  # no stop handlers in place (a caller other than cli/bench.py)
        removed = scratch.cleanup()
        observer.note(f"interrupted: ended the run and removed its {count(removed, 'file')} in {scratch.dir}")
        raise
    finally:
        tee.close()
    watcher.tell(launch=None)
    stop.disarm()  # what follows (judging, removing files, storing) must not be cut short
    env["timeout_s"] = limit.seconds()
    env["watchdog"] = limit.record()
    result = load_result(result_path, scratch.run_id)
    measured(result, collector, layouts, env, mpi, ranks)
    if sampler:
        sampler.finish()
        servers.annotate(result, sampler)
    status, message = judge(outcome, result, status_dir, ranks, cases, stopped)
    if not stopped and status != "complete" and not (result.get("error") or {}).get("message"):
        said = engine_said(tee.lines)
        reason = ((srun.failure(tee.lines, srun.plugin_used(argv), ranks) if req.launcher == "srun" else None)
                  or (said and f"the engine stopped: {said}"))
        message = reason or message
    result["status"] = status
    if message and not result.get("error"):
        code = "stopped" if stopped else "watchdog" if outcome.watchdog else "launcher"
        result["error"] = {"code": code, "message": message}
    if status == "complete":
        remove_unkept(scratch, cases)
    else:
        scratch.cleanup()
    left = scratch.leftovers()
    if left and status != "complete":
        observer.note(f"could not remove {count(len(left), 'file')} of this run, e.g. {left[0]}")
    if outcome.stragglers:
        observer.note(f"{outcome.stragglers} process(es) of the launch outlived the launcher; they were ended")
    if outcome.removed:
        observer.note(f"the launcher was killed: removed what its MPI left ({', '.join(outcome.removed[:3])}"
                      + (", ..." if len(outcome.removed) > 3 else "") + ")")
    return RunRecord(spec=spec, env=env, result=result, status=status, message=message, directory=scratch.dir,
                     prefix=scratch.prefix, note=req.note, stopped=stopped.signum if stopped else None)


def _slurm_facts(launcher: str, argv: list[str], mpi: MPI) -> dict[str, Any] | None:
    """The allocation the run was made in and, under srun, the --mpi plugin and why it was chosen."""
    alloc = slurm.allocation()
    if alloc is None and launcher != "srun":
        return None
    out: dict[str, Any] = alloc.to_dict() if alloc else {}
    out["launcher"] = launcher
    if launcher == "srun":
        pick = srun.choice(mpi)
        out["mpi_plugin"] = srun.plugin_used(argv)
        out["mpi_plugin_source"] = ("chosen for " + mpi.flavour) if pick.plugin else pick.source
        out["mpi_plugins"] = pick.available
    return out


def load_result(path: str, run_id: str) -> ResultDoc:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        if isinstance(doc, dict) and "cases" in doc:
            return doc
    except (OSError, ValueError):
        pass
    # The engine never wrote a document: it did not start, or died before its first phase.
    return {"schema": "pario.result/1", "status": "failed", "run_id": run_id, "engine": {}, "mpi": {},
            "cases": [], "error": None}


def judge(outcome: watchdog.Outcome, result: dict[str, Any], status_dir: str, ranks: int,
          cases: list[Case], stopped: Stopped | None = None) -> tuple[str, str | None]:
    """(status, one-line reason) from the launcher's exit and what the engine wrote."""
    measured = any(c.get("phases") for c in result.get("cases", []))
    engine_status = result.get("status")
    err = result.get("error") or {}
    if stopped is not None:
        done = sum(len(c.get("phases") or []) for c in result.get("cases", []))
        steps = sum(int(c.get("reps") or 1) * len(c.get("ops") or []) for c in cases)
        return ("partial" if measured else "failed"), (
            f"stopped by {stopped.name}: the run was ended after {done} of {steps} phases"
            + ("; what they measured is kept" if measured else "; nothing had been measured"))
    if outcome.watchdog:
        return ("partial" if measured else "failed"), outcome.watchdog
    mismatch = _world_mismatch(result, ranks)
    if mismatch and err.get("code") != "mpi":
        # The cause, whether the singletons "completed" or tripped over each other's file; an MPI error
        # the engine found itself (srun's --mpi plugin not matching this MPI) says more and goes first.
        return "failed", mismatch
    if outcome.returncode == 0 and engine_status == "complete":
        return "complete", None
    status = "partial" if measured else "failed"
    if err.get("message"):
        code = f" ({err['code']})" if err.get("code") else ""
        rank = f" on rank {err['rank']}" if isinstance(err.get("rank"), int) else ""
        return status, f"the engine stopped{rank}{code}: {err['message']}"
    where = watchdog.stuck_ranks(status_dir, ranks, cases, verb="last seen in")
    if outcome.returncode < 0:
        how = f"the launcher was killed by {_signal_name(-outcome.returncode)}"
    else:
        how = f"the launcher exited with code {outcome.returncode}"
    return status, f"{how} before the run completed (a rank died?); last known: {where}"


def _world_mismatch(result: dict[str, Any], ranks: int) -> str | None:
    """An engine built against another MPI than the launcher's (the Open MPI build under MPICH's
    mpiexec) runs as `ranks` separate singletons that each believe they are rank 0 of 1 and write the
    same files: it "completes", but its figures are not a parallel run. Said, not stored as complete.
    execute() refuses the flavours it knows before the launch (run/engine_mpi.py); this is the safety
    net for the others (Cray, Intel, srun's plugins, an engine that cannot say)."""
    world = (result.get("mpi") or {}).get("ranks")
    if not isinstance(world, int) or world == ranks:
        return None
    library = str((result.get("mpi") or {}).get("library") or "its MPI").strip() or "its MPI"
    library = " ".join(library.splitlines()[0].split(",")[0].split())   # "MPICH Version:\t4.0.2\n..."
    return (f"the engine ran as {ranks} separate MPI jobs of {world} rank(s), not one of {ranks}: it is built "
            f"against {library}, not the launcher's MPI; {engine_mpi.FIX}")


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def remove_unkept(scratch: Scratch, cases: list[Case]) -> None:
    """After a complete run: the files of cases without keep (the engine removes them already; this
    only catches what it left), then the directory if pario made it and nothing is kept."""
    for index, case in enumerate(cases):
        if not case.get("keep"):
            for path in scratch.leftovers(index):  # never a file that was there before the run (-E)
                if os.path.isfile(path) and not os.path.islink(path):
                    os.unlink(path)
    scratch.remove_dir_if_ours()
