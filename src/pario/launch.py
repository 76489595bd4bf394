"""The one module that builds command lines: which MPI launcher, which flags for which flavour, and
running the engine under it with a live progress display and a watchdog for stuck ranks."""
from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .errors import ParioError

INSTALL_MPI = ("install an MPI: Debian/Ubuntu `apt-get install openmpi-bin libopenmpi-dev`, "
               "RHEL `dnf install openmpi-devel`, or `module load` your site's MPI; "
               "or point --mpirun / $PARIO_MPIRUN at its mpirun")
FORWARD_PREFIXES = ("PARIO_", "ROMIO_", "MPICH_MPIIO_")  # what the ranks need (faults, ROMIO/Cray knobs)
IO_COMPONENTS = ("ompio", "romio321", "romio341")
PROGRESS = "@pario "
METADATA_OPS = ("create", "stat", "open_close", "read_small", "remove")  # rates in files/s


@dataclass
class MPI:
    path: str
    flavour: str                 # openmpi | mpich | intel | unknown
    version: str                 # first line of `mpirun --version`


def find_mpirun(explicit: str | None = None) -> str:
    chosen = explicit or os.environ.get("PARIO_MPIRUN")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise ParioError(f"MPI launcher {chosen} not found or not executable; {INSTALL_MPI}", exit_code=3)
        return found
    for name in ("mpirun", "mpiexec"):
        found = shutil.which(name)
        if found:
            return found
    raise ParioError(f"no MPI found (no mpirun or mpiexec on PATH); {INSTALL_MPI}", exit_code=3)


def flavour_of(text: str) -> str:
    low = text.lower()
    if "open mpi" in low or "open rte" in low or "openrte" in low:
        return "openmpi"
    if "intel(r) mpi" in low or "intel mpi" in low:
        return "intel"
    if "hydra" in low or "mpich" in low:
        return "mpich"
    return "unknown"


def detect(mpirun: str) -> MPI:
    try:
        out = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=20)
        text = (out.stdout or "") + (out.stderr or "")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"{mpirun} --version failed ({exc}); {INSTALL_MPI}", exit_code=3) from None
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return MPI(mpirun, flavour_of(text), first)


def check_launcher(launcher: str) -> None:
    if launcher == "srun" and not shutil.which("srun"):
        raise ParioError("--launcher srun: srun not found on PATH; run inside a Slurm installation or use mpirun",
                         exit_code=3)


def in_slurm() -> str | None:
    return os.environ.get("SLURM_JOB_ID")


def forwarded_env(environ=None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k.startswith(FORWARD_PREFIXES)}


HINT_LAYERS = ("mpiio", "hdf5", "pnetcdf", "netcdf4")  # the layers that open through MPI-IO with hints
DISPLAY_VARS = ("ROMIO_PRINT_HINTS", "MPICH_MPIIO_HINTS_DISPLAY", "OMPI_MCA_io_ompio_verbose_info_parsing")


def settings_env(mpi: MPI, io: str | None, cases: list[dict[str, Any]]) -> dict[str, str]:
    """Environment of the settings launch (`pario-engine --settings`), which makes the MPI print
    the settings it took at open; {} when it would learn nothing. Only Open MPI needs it: its
    MPI_File_get_info echoes the keys given, while the MPICH family's returns the effective ones
    (recorded by the timed run itself). The timed run never prints: a display at every open cost
    about 20% of short MPI-IO read phases (benchmarks/RESULTS.md)."""
    if mpi.flavour != "openmpi":
        return {}
    layered = [c for c in cases if c.get("workload") != "metadata" and c.get("backend") in HINT_LAYERS]
    io = io or os.environ.get("OMPI_MCA_io")
    if io and io.startswith(("romio", "^ompio")):
        return {"ROMIO_PRINT_HINTS": "1"} if layered else {}
    # ompio reports only the keys it was given, one line each
    return {"OMPI_MCA_io_ompio_verbose_info_parsing": "1"} if any(c.get("hints") for c in layered) else {}


def timed_env(environ=None) -> dict[str, str]:
    """What the timed run forwards: the user's PARIO_/ROMIO_/Cray knobs, without the displays."""
    return {k: v for k, v in forwarded_env(environ).items() if k not in DISPLAY_VARS}


def command(mpi: MPI, ranks: int, engine_argv: list[str], *, io: str | None = None,
            env: dict[str, str] | None = None, launcher: str = "mpirun",
            is_root: bool | None = None) -> list[str]:
    """The launcher argv for one engine run. `env` is forwarded to every rank."""
    env = env or {}
    is_root = (os.geteuid() == 0) if is_root is None else is_root
    if io and mpi.flavour != "openmpi":
        raise ParioError(f"--io {io} selects an Open MPI io component, but this MPI is "
                         f"{mpi.flavour} ({mpi.version}); drop --io (ROMIO is its only MPI-IO)")
    if io and io not in IO_COMPONENTS:
        raise ParioError(f"--io {io}: choose one of {', '.join(IO_COMPONENTS)}")
    if launcher == "srun":
        argv = ["srun", "-n", str(ranks)]
        if mpi.flavour == "openmpi":
            argv.append("--mpi=pmix")  # Open MPI 4 under srun starts singletons with pmi2
        elif mpi.flavour in ("mpich", "intel"):
            argv.append("--mpi=pmi2")
        # srun exports the caller's environment (--export=ALL); io goes through it as an MCA variable
        return argv + engine_argv
    if launcher != "mpirun":
        raise ParioError(f"--launcher {launcher}: choose mpirun or srun")
    argv = [mpi.path, "-n", str(ranks)]
    if mpi.flavour == "openmpi":
        argv.append("--oversubscribe")  # more ranks than cores is a valid (if slow) experiment
        if is_root:
            argv.append("--allow-run-as-root")
        if io:
            argv += ["--mca", "io", io]
        for key, value in sorted(env.items()):
            argv += ["-x", f"{key}={value}"]
    elif mpi.flavour in ("mpich", "intel"):
        for key, value in sorted(env.items()):
            argv += ["-genv", key, value]
    return argv + engine_argv


def launch_env(mpi: MPI, io: str | None, launcher: str, extra: dict[str, str]) -> dict[str, str]:
    """The environment of the launcher process itself."""
    env = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARS}  # displays: settings launch only
    env.update(extra)
    if launcher == "srun" and io:
        env["OMPI_MCA_io"] = io
    return env


# ---- progress -------------------------------------------------------------------------------

class Progress:
    """A rich bar on stderr when it is a terminal, else one plain line per phase."""

    def __init__(self, plain: bool):
        self.plain = plain or not sys.stderr.isatty()
        self.bar: Any = None   # a rich Progress once the run starts on a terminal
        self.task: Any = None
        self.steps = 0

    def event(self, ev: dict[str, Any]) -> None:
        kind = ev.get("event")
        if kind == "start":
            self.steps = int(ev.get("steps") or 0)
            if not self.plain:
                from rich.console import Console
                from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
                from rich.progress import Progress as Bar
                self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), console=Console(stderr=True), transient=True)
                self.bar.start()
                self.task = self.bar.add_task("starting", total=self.steps or None)
        elif kind == "phase":
            bw, iops = ev.get("bw_mib"), ev.get("iops")
            rate = (f": {iops:.0f} files/s" if ev.get("op") in METADATA_OPS and iops is not None
                    else f": {bw:.1f} MiB/s" if bw is not None else "")
            text = f"{ev.get('name')} {ev.get('op')} rep {ev.get('rep')}" + rate
            if self.bar is not None:
                self.bar.update(self.task, completed=ev.get("step", 0), description=text)
            else:
                print(f"pario: [{ev.get('step', '?')}/{ev.get('steps', self.steps)}] {text}", file=sys.stderr,
                      flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


# ---- running with a watchdog ----------------------------------------------------------------

@dataclass
class Outcome:
    returncode: int
    watchdog: str | None = None       # why the watchdog ended the run
    events: list[dict[str, Any]] = field(default_factory=list)


_STATES = ("open", "xfer", "sync", "close", "done")


def stuck_ranks(status_dir: str, ranks: int, cases: list[dict[str, Any]], verb: str = "stuck in") -> str:
    """Name the ranks the others are waiting for, from the per-rank status files."""
    where: dict[int, tuple | None] = {}
    for r in range(ranks):
        try:
            with open(os.path.join(status_dir, f"rank.{r}"), encoding="utf-8") as fh:
                parts = fh.read().split()
            c, op, rep, state = int(parts[0]), parts[1], int(parts[2]), parts[3]
            ops = cases[c]["ops"] if 0 <= c < len(cases) else []
            pos = (c, rep, ops.index(op) if op in ops else -1, _STATES.index(state) if state in _STATES else -1)
            where[r] = (pos, c, op, rep, state)
        except (OSError, ValueError, IndexError):
            where[r] = None
    missing = [r for r, w in where.items() if w is None]
    if len(missing) == ranks:
        return "no rank wrote a status file (stuck before the first phase: MPI start-up or file open)"
    if missing:
        return f"rank{'s' if len(missing) > 1 else ''} {_ranges(missing)} never reported a phase"
    known = {r: w for r, w in where.items() if w is not None}
    low = min(w[0] for w in known.values())
    lag = [r for r, w in known.items() if w[0] == low]
    _, c, op, rep, state = known[lag[0]]
    name = cases[c]["name"] if 0 <= c < len(cases) else f"case {c}"
    waiting = ranks - len(lag)
    tail = (f"; the other {waiting} wait{'s' if waiting == 1 else ''} for {'it' if len(lag) == 1 else 'them'}"
            if waiting and verb == "stuck in" else "")
    phase = f"{op} rep {rep}" if rep >= 0 else f"{op} (the untimed write that prepares a read-only case)"
    return f"rank{'s' if len(lag) > 1 else ''} {_ranges(lag)} {verb} {name} {phase} (state {state}){tail}"


def _ranges(ranks: list[int]) -> str:
    out, start = [], None
    for i, r in enumerate(ranks):
        if start is None:
            start = r
        if i + 1 == len(ranks) or ranks[i + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}-{r}")
            start = None
    return ",".join(out)


def _session_pids(sid: int) -> list[int]:
    """Processes of our launcher's session, so that ranks it forked are ended too."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def terminate(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """End the launcher and everything in its session (it was started in a new one)."""
    if proc.poll() is not None and not _session_pids(proc.pid):
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        for pid in _session_pids(proc.pid):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _session_pids(proc.pid):
                return
            time.sleep(0.1)


def run(argv: list[str], *, env: dict[str, str], timeout: float, status_dir: str | None,
        ranks: int, cases: list[dict[str, Any]], progress: Progress, sink=None, stderr=None) -> Outcome:
    """Run the launcher; stdout progress lines drive `progress`, other output goes to stderr unless
    `sink.line(text)` takes it (the hint reports of settings.effective.OutputCollector). `stderr`:
    where the launcher's own stderr goes (a file object; default: ours)."""
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=stderr, env=env,
                                start_new_session=True, text=True, bufsize=1, errors="replace")
    except OSError as exc:
        raise ParioError(f"cannot start {argv[0]}: {exc.strerror}; {INSTALL_MPI}", exit_code=3) from None
    lines: queue.Queue[str | None] = queue.Queue()

    def reader():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    outcome = Outcome(returncode=0)
    last = time.monotonic()
    try:
        while True:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if time.monotonic() - last > timeout:
                    who = stuck_ranks(status_dir, ranks, cases) if status_dir else "no status files"
                    outcome.watchdog = (f"no progress for {timeout:g} s: {who}; the run was ended "
                                        "(raise --timeout if a phase is just slow)")
                    terminate(proc)
                    break
                continue
            if line is None:
                break
            if line.startswith(PROGRESS):
                try:
                    ev = json.loads(line[len(PROGRESS):])
                except ValueError:
                    continue
                outcome.events.append(ev)
                progress.event(ev)
                if sink is not None:
                    sink.event(ev)
                last = time.monotonic()
            elif sink is None or not sink.line(line):
                sys.stderr.write(line)
        outcome.returncode = proc.wait()
    except BaseException:
        terminate(proc)
        raise
    finally:
        progress.close()
    return outcome
