"""A command's guard of its scratch directory, for what it does before (and between) its runs.

run.bench.execute guards one run from its start: its own sentinel (run/sentinel.py) removes the
run's files if pario is killed (SIGKILL). But a command may make the scratch directory earlier:
`pario bench`'s suites and presets create it and run the device probe in it to size the cases,
`pario tune` creates it, asks the MPI's hints there and probes the device before its trials. A
SIGKILL in that window would leave the directory (and Scratch.prepare's writability file, if it
came between its two calls). So such a command starts this guard before it creates anything: a
sentinel told the directory, its run prefix and whether pario is about to make it, with "runs":
true, which means that it never removes a run's files (each run's own sentinel and the engine's
orphan guard do, or keep them with -k) and, when pario dies, waits for the directory to be left
empty and removes it only if pario made it. Nothing else is ever removed."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from pario.platform.scratch import Scratch
from pario.run.sentinel import Sentinel


@contextmanager
def guarded(scratch: Scratch, active: bool = True, tidy: bool = False) -> Iterator[None]:
    """Guard scratch's directory for the block; released when the block ends, by a return or an
    exception (pario is then alive and has removed what it made, or keeps it). active=False (a
    dry run, which creates nothing) starts no sentinel. tidy: at the end, remove the directory if
    pario made it and it is empty (a command whose runs each use a Scratch of their own)."""
    if not active or not scratch.owns_files:
        yield
        return
    watcher = Sentinel()
    shutil.rmtree(watcher.start(), ignore_errors=True)  # its private directory: not needed by a guard
    watcher.tell(scratch=scratch.dir, prefix=scratch.prefix, runs=True,
                 rmdir=scratch.created or not os.path.isdir(scratch.dir))  # before prepare() may create it
    try:
        yield
    finally:
        if tidy:
            scratch.remove_dir_if_ours()
        watcher.close()
