"""Storing a measured run so that it is never lost: first a file of its own (store/spool.py), then
the store, then the file goes; when the store refuses it, the file stays and the message says how
to store it later. Used by pario bench and pario bench --preset."""
from __future__ import annotations

import shlex
import sys
from typing import Any

from pario.analysis.summary import headline
from pario.model.errors import ParioError
from pario.model.result import RunRecord
from pario.store import Store, spool

# A stopped run stores within Slurm's KillWait (30 s by default), after which SIGKILL comes: its
# record is in a file already, so a locked store is given less time than usual.
STOPPED_WAIT_S = 10.0


def store_run(store: Store, record: RunRecord) -> tuple[int | None, str | None]:
    """Store the run: first into a file of its own (spool), then the store, then the file goes.
    (run id, None), or (None, the file that keeps it) when the store cannot take it."""
    run: dict[str, Any] = {"kind": "bench", "command": "pario " + shlex.join(sys.argv[1:]), "spec": record.spec,
                           "env": record.env, "result": record.result, "status": record.status,
                           "headline": headline(record.result)}
    kept = spool.keep(store.path, run)
    try:
        run_id = store.add_run(**run, wait_s=min(store.wait_s, STOPPED_WAIT_S) if record.stopped else None)
    except ParioError as exc:
        if kept:
            print(f"pario: error: the run was measured but not stored ({exc}); it is kept in {kept}: store it "
                  f"later with `pario results import {shlex.quote(kept)}`", file=sys.stderr, flush=True)
        else:
            print(f"pario: error: the run was measured but not stored ({exc}), and no file could keep it",
                  file=sys.stderr, flush=True)
        return None, kept
    spool.discard(kept)
    return run_id, None
