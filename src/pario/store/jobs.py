"""The Slurm jobs' rows of the results store (table slurm_jobs): a part of store.sqlite.Store,
which gives it the locked reads and writes (_read, _write) and the store's path."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable

from pario.model.errors import ParioError


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class JobRows:
    path: str
    _read: Callable[..., Any]
    _write: Callable[..., Any]

    _JOB_KEYS = ("id", "created", "kind", "cluster", "job_id", "state", "reason", "exit_code", "command",
                 "script", "output", "run_id", "session_id", "doc")
    _JOB_UPDATABLE = ("state", "reason", "exit_code", "run_id", "doc", "job_id", "cluster", "script", "output")

    def add_job(self, *, kind: str, job_id: str, command: str, cluster: str = "", state: str = "SUBMITTED",
                script: str = "", output: str = "", session_id: int | None = None, doc: dict | None = None) -> int:
        """Record a submitted batch job; returns the row's id (not Slurm's job id)."""
        row = (_now(), kind, cluster, str(job_id), state, command, script, output, session_id,
               json.dumps(doc or {}, sort_keys=True))

        def insert(con):
            cur = con.execute("INSERT INTO slurm_jobs(created, kind, cluster, job_id, state, command, script, output, "
                              "session_id, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            return int(cur.lastrowid)
        return self._write(insert)

    def update_job(self, row_id: int, **fields) -> None:
        """Set some of: state, reason, exit_code, run_id, doc (a dict), job_id, cluster, script, output."""
        bad = [k for k in fields if k not in self._JOB_UPDATABLE]
        if bad:
            raise ValueError(f"not a field of a Slurm job record: {', '.join(bad)}")
        if not fields:
            return
        if "doc" in fields:
            fields["doc"] = json.dumps(fields["doc"], sort_keys=True)
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._write(lambda con: con.execute(f"UPDATE slurm_jobs SET {sets} WHERE id = ?",
                                            (*fields.values(), int(row_id))))

    def _job_rows(self, where: str, args: tuple) -> list[dict]:
        rows = self._read(lambda con: con.execute(
            f"SELECT {', '.join(self._JOB_KEYS)} FROM slurm_jobs {where}", args).fetchall())
        out = []
        for row in rows:
            job = dict(zip(self._JOB_KEYS, row))
            job["doc"] = json.loads(job["doc"] or "{}")
            out.append(job)
        return out

    def get_job(self, row_id: int) -> dict:
        found = self._job_rows("WHERE id = ?", (int(row_id),))
        if not found:
            raise ParioError(f"no Slurm job record {row_id} in {self.path}; `pario results jobs` lists them")
        return found[0]

    def list_jobs(self, *, session_id: int | None = None, limit: int = 50) -> list[dict]:
        """Submitted jobs, newest first (only a tuning session's, with session_id)."""
        if session_id is not None:
            return self._job_rows("WHERE session_id = ? ORDER BY id DESC LIMIT ?", (int(session_id), int(limit)))
        return self._job_rows("ORDER BY id DESC LIMIT ?", (int(limit),))

    def runs_of_job(self, job_id: str, cluster: str | None = None) -> list[int]:
        """The runs a Slurm job stored, oldest first: their environment names the job (env.slurm:
        its own id, or ARRAYJOB_TASK for a task of a job array)."""
        def select(con):
            return con.execute("SELECT id, env FROM runs WHERE env LIKE ? ORDER BY id",
                               (f'%"{job_id}"%',)).fetchall()
        out = []
        for run_id, env_text in self._read(select):
            facts = (json.loads(env_text).get("slurm") or {})
            if str(job_id) in (str(facts.get("job")), str(facts.get("array"))) and \
                    (not cluster or facts.get("cluster") in (None, cluster)):
                out.append(int(run_id))
        return out
