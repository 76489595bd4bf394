"""Whether this process runs inside a Slurm allocation, from its environment alone: the check the
commands that wrap a program make before they start it, without loading the rest of
platform/slurm.py (its dataclasses cost more than the check)."""
from __future__ import annotations

import os
from collections.abc import Mapping

# Set inside an allocation (salloc, a batch script, an srun step); SLURM_JOBID is the older spelling.
JOB_ID_VARS = ("SLURM_JOB_ID", "SLURM_JOBID")


def job_id(environ: Mapping[str, str] | None = None) -> str | None:
    """The id of the Slurm job of this environment, or None outside Slurm."""
    env = os.environ if environ is None else environ
    return next((env[v] for v in JOB_ID_VARS if env.get(v)), None)
