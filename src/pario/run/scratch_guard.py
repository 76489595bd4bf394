"""A command's guard of its scratch directory, for what it does before (and between) its runs.

run.bench.execute guards one run from its start: its own sentinel (run/sentinel.py) removes the
run's files if pario is killed (SIGKILL). But a command may make the scratch directory earlier:
`pario bench`'s suites and presets create it and run the device probe in it to size the cases,
`pario tune` creates it, asks the MPI's hints there and probes the device before its trials. A
SIGKILL in that window would leave the directory (and Scratch.prepare's writability file, if it
came between its two calls). So such a command starts this guard before it creates anything: a
sentinel told the directory, its run prefix and whether pario is about to make it, with "runs":
true, which means that it never removes a run's files (each run's own sentinel and the engine's
orphan guard do, or keep them with -k) and, when pario dies, waits for what is on its way out
(the run then under way, which execute() tells every guard held: running(); a probe's file; the
deeper directory it holds) and removes the directory only if pario made it and it is empty.
Nothing else is ever removed, and nothing else is waited for (files kept by an earlier -k run
stay, and so does the directory, at once)."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from pario.platform.scratch import Scratch
from pario.run.sentinel import Sentinel

# The guards held now, innermost last: a run tells each one that it is under way (running()).
# One pario process runs one command, so this is the command's state, not shared between callers.
_HELD: list[Sentinel] = []


@contextmanager
def guarded(scratch: Scratch, active: bool = True, tidy: bool = False, holds: str | None = None) -> Iterator[None]:
    """Guard scratch's directory for the block; released when the block ends, by a return or an
    exception (pario is then alive and has removed what it made, or keeps it). active=False (a
    dry run, which creates nothing) starts no sentinel. tidy: at the end, remove the directory if
    pario made it and it is empty (a command whose runs each use a Scratch of their own). holds:
    the name of the directory pario is about to make inside it (guarded too), waited for."""
    if not active or not scratch.owns_files:
        yield
        return
    watcher = Sentinel()
    watcher.start(private=False)  # a guard needs no private directory, nor to wait for its start
    watcher.tell(scratch=scratch.dir, prefix=scratch.prefix, runs=True, holds=holds,
                 rmdir=scratch.created or not os.path.isdir(scratch.dir))  # before prepare() may create it
    _HELD.append(watcher)
    try:
        yield
    finally:
        _HELD.remove(watcher)
        if tidy:
            scratch.remove_dir_if_ours()
        watcher.close()


def running(scratch: Scratch | None) -> None:
    """Tell every guard held which run is under way (its directory and prefix), or None after it."""
    for watcher in _HELD:
        watcher.tell(running={"dir": scratch.dir, "prefix": scratch.prefix} if scratch is not None else None)
