"""Where IOR's -Y, -D, -u, -E and -T apply (the engine checks the same, spec.c check_ior_flags):
each combination pario cannot honour gets one line that says why and what to do instead."""
from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from pario.model.case import Case

POSIX_OR_MPIIO = ("posix", "mpiio")


def check(case: Case, fail: Callable[[Case, str], NoReturn]) -> None:
    backend, ops = case["backend"], case["ops"]
    if case.get("fsync_per_write") and backend not in POSIX_OR_MPIIO:
        fail(case, f"-Y (fsync after every write) applies to -a posix and -a mpiio, as in IOR; {backend} "
                   "syncs once per write phase with -e")
    if case.get("use_existing") and backend not in POSIX_OR_MPIIO:
        fail(case, f"-E (use the existing file) applies to -a posix and -a mpiio: {backend} creates its file "
                   "with its own header; drop -E")
    if case.get("unique_dir") and case["strategy"] != "fpp":
        fail(case, "-u (a directory per task) applies to file per process, as in IOR; add -F")
    if (case.get("deadline_us") or case.get("fsync_per_write")) and (case.get("aggregate")
                                                                     or case["strategy"] == "serial"):
        fail(case, "-D and -Y need every rank to call the backend itself; drop --aggregate (or serial)")
    if case.get("deadline_us") and "write" in ops and not case.get("wearout") and len(ops) > 1:
        fail(case, "-D with -r/-W after the write: a read would find parts no rank wrote; add "
                   "-O stoneWallingWearOut=1 (every rank then finishes the most advanced rank's count, IOR's "
                   "wear-out) or drop -r/-W")
    if case.get("wearout") and not case.get("deadline_us"):
        fail(case, "-O stoneWallingWearOut=1 goes with -D SECONDS (stonewalling); add -D or drop it")
