"""The run's sentinel: a small process of its own (its own session, so that a signal to pario's
process group does not reach it) that makes the run's private directory ($TMPDIR/pario-XXXX) and
removes what the run made if pario dies without saying goodbye: SIGKILL, which no handler sees.

The engine's orphan guard (csrc/engine/guard.c, orphan.c) covers a SIGKILL during a launch, but
only once a rank runs; before it (the spec check, the device probe, the stack facts, the layout,
the spec) the run has already made its private directory and perhaps the scratch directory and
its probe file, and nothing else would remove them. So the sentinel makes the private directory
itself and names it on its stdout: pario dying at any moment, even before it read the name, is
seen here as the end of stdin. pario tells it, one JSON object a line, what else the run makes
({"scratch": DIR, "prefix": P, "rmdir": made-by-pario}, then {"rank_dirs": [...]} with -u; a
command's guard, started without a private directory (--no-directory), adds "runs": true and is
told {"running": {"dir", "prefix"}} while a run is under way and "holds": the deeper directory
pario makes in it, which are what it waits for, see run/scratch_guard.py) and
when a launch is under way ({"launch": {"engine", "spec", "result"}} or {"launch": null} after
it); {"release": true} says that pario has cleaned up itself (or keeps the files, -k) and the
sentinel only exits.

At the end of stdin without a release: during a launch, the engine's orphan guard ends it and
removes the run's files (the private directory with them); the sentinel waits for that, and if
the directory is still there after LAUNCH_WAIT_S runs the engine's cleaner itself
(`pario-engine --orphaned SPEC RESULT`: a launch killed before any rank started its guard).
Then it removes what is left: the private directory, the run's files in the scratch directory
(never anything else: Scratch.cleanup), and the scratch directory if pario made it and it is
empty. Run as `python -m pario.run.sentinel`; run/bench.py's Sentinel is the front end's side."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

LAUNCH_WAIT_S = 30.0   # the engine's orphan guard ends a launch and removes its files within seconds
PROBE_WAIT_S = 30.0    # the device probe (a child of pario) removes its own files when it ends
RUNS_WAIT_S = LAUNCH_WAIT_S + 60.0  # a command's guard: a run's sentinel waits, then runs `--orphaned`
POLL_S = 0.2
NO_DIRECTORY = "--no-directory"   # a command's guard: no private directory (Sentinel.start)
PARENT = "--parent"               # the private directory's parent, when not $TMPDIR (Sentinel.start)


def private_dir(parent: str | None) -> str:
    """The run's private directory: $TMPDIR/pario-XXXX, or a hidden one in `parent` (ranks on other
    hosts read the spec and write the result there: a node's /tmp is its own)."""
    if parent:
        return tempfile.mkdtemp(prefix=".pario-run-", dir=parent)
    return tempfile.mkdtemp(prefix="pario-")


class Sentinel:
    """The front end's side: start() makes the private directory through the sentinel process."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.tmp = ""

    def start(self, private: bool = True, parent: str | None = None) -> str:
        """The run's private directory. Without a sentinel (it could not start), mkdtemp here: the
        run is then unguarded before its launch, as before, and still cleans up on any signal.
        private=False (a command's guard, run/scratch_guard.py, which needs no directory): no
        directory, and no wait for the sentinel's start (what pario tells it waits in the pipe, and
        pario dying before it reads is still the end of its stdin); returns "". parent: where the
        private directory goes instead of $TMPDIR (a file system that ranks on other hosts see)."""
        package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (package_parent, os.environ.get("PYTHONPATH", "")) if p))
        argv = ([sys.executable, "-S", "-m", "pario.run.sentinel"] + ([] if private else [NO_DIRECTORY])
                + ([PARENT, parent] if parent and private else []))
        try:
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE if private else subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, text=True, start_new_session=True)
            if not private:
                return ""
            assert self.proc.stdout is not None
            line = self.proc.stdout.readline()
            self.tmp = str(json.loads(line)["tmp"])
        except (OSError, ValueError, KeyError, TypeError):
            self.close(release=True)
            if not private:
                return ""
            self.tmp = private_dir(parent)
        return self.tmp

    def tell(self, **message: Any) -> None:
        """Best effort: a sentinel that died only costs the guard before the launch."""
        if self.proc is None or self.proc.stdin is None:
            return
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass

    def close(self, release: bool = True) -> None:
        """pario has removed the run's files itself (or keeps them): the sentinel exits, untouched."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if release:
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps({"release": True}) + "\n")
                proc.stdin.flush()
            except (OSError, ValueError, AssertionError):
                pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_for_launch(tmp: str, launch: dict[str, Any]) -> None:
    deadline = time.monotonic() + LAUNCH_WAIT_S
    while os.path.isdir(tmp) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    spec, result, engine = (str(launch.get(k) or "") for k in ("spec", "result", "engine"))
    if os.path.isdir(tmp) and os.path.isfile(spec) and os.access(engine, os.X_OK):
        try:
            subprocess.run([engine, "--orphaned", spec, result], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            pass


def _remove_scratch(scratch: dict[str, Any]) -> None:
    from pario.platform.scratch import Scratch  # only on this path: the sentinel starts light

    own = Scratch(str(scratch["scratch"]))
    own.prefix = str(scratch["prefix"])
    own.created = bool(scratch.get("rmdir"))
    own.rank_dirs = [str(d) for d in scratch.get("rank_dirs") or []]  # -u's DIR/<rank>/, removed when empty
    runs = bool(scratch.get("runs"))
    if runs:  # a command's guard (run/scratch_guard.py): the runs' files are their own sentinels'
        _unlink_file(os.path.join(own.dir, f"{own.prefix}.writable"))  # Scratch.prepare's, between two calls
    else:
        own.cleanup()
    deadline = time.monotonic() + (RUNS_WAIT_S if runs else PROBE_WAIT_S)
    while own.created and os.path.isdir(own.dir) and time.monotonic() < deadline:
        try:
            left = os.listdir(own.dir)
        except OSError:
            return
        if not any(_in_flight(name, own.dir, scratch if runs else {}) for name in left):
            own.remove_dir_if_ours()  # only when empty: what is kept (-k) or another's stays, and so does it
            return
        time.sleep(POLL_S)


# what the device probe (pario.probe.*) or the stack probe (pario.stack-*) makes: they remove it
# themselves (or their sentinel and the engine's orphan guard do) within seconds
_PROBES = ("pario.probe.", "pario.stack-")


def _in_flight(name: str, directory: str, guard: dict[str, Any]) -> bool:
    """Whether entry `name` of the directory is on its way out, so that it is worth waiting for: a
    probe's file; for a command's guard also the entries of the run under way when pario died
    ({"running": {"dir", "prefix"}}, which that run's sentinel and the engine's orphan guard remove)
    and the deeper directory pario made in it ("holds", whose own guard removes it). Anything else
    (files an earlier run kept with -k, the user's) never goes: waiting for it kept a guard 90 s."""
    if name.startswith(_PROBES) or (guard and name == guard.get("holds")):
        return True
    run = guard.get("running") or {}
    if not run:
        return False
    run_dir = os.path.abspath(str(run.get("dir") or ""))
    if run_dir == directory:  # its files, and -u's DIR/<rank>/
        return name.startswith(f"{run.get('prefix')}.") or name.isdigit()
    return os.path.dirname(run_dir) == directory and name == os.path.basename(run_dir)


def _unlink_file(path: str) -> None:
    try:
        if os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)
    except OSError:
        pass


def clean(tmp: str, state: dict[str, Any]) -> None:
    """pario is gone without a release: remove what the run made (see the module's docstring)."""
    if tmp and state.get("launch"):
        _wait_for_launch(tmp, state["launch"])
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    if state.get("scratch"):
        _remove_scratch(state)


def serve(stdin: IO[str], stdout: IO[str], private: bool = True, parent: str | None = None) -> int:
    tmp = private_dir(parent) if private else ""
    try:
        if private:
            stdout.write(json.dumps({"tmp": tmp}) + "\n")
            stdout.flush()
    except OSError:
        pass  # pario is already gone: the end of stdin follows
    state: dict[str, Any] = {}
    for line in stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if message.get("release"):
            return 0
        state.update(message)
    clean(tmp, state)
    return 0


def main() -> int:
    # Ctrl-C, a closed terminal, `timeout`, scancel: pario handles those and releases us; the
    # sentinel only ends with its stdin (SIGKILL still ends it, as it ends everything).
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    args = sys.argv[1:]
    parent = args[args.index(PARENT) + 1] if PARENT in args[:-1] else None
    return serve(sys.stdin, sys.stdout, private=NO_DIRECTORY not in args, parent=parent)


if __name__ == "__main__":
    sys.exit(main())
