"""A pario command as a Slurm batch job: the script (pario's own directives, the user's
--sbatch-args as #SBATCH lines, the command run from the directory it was submitted from), and
its submission with sbatch, whose refusal becomes one line with sbatch's reason."""
from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import time

from pario import __version__
from pario.model.errors import ParioError


def directives(text: str | None) -> list[list[str]]:
    """--sbatch-args "-p debug -t 30 -A proj" -> [['-p', 'debug'], ['-t', '30'], ['-A', 'proj']]:
    each option with the words after it that do not start with '-', one #SBATCH line each."""
    try:
        words = shlex.split(text or "")
    except ValueError as exc:
        raise ParioError(f"--sbatch-args {text!r}: {exc}; quote it like the shell would") from None
    out: list[list[str]] = []
    for word in words:
        if word.startswith("-") or not out:
            if not word.startswith("-"):
                raise ParioError(f"--sbatch-args {text!r}: {word!r} is not an sbatch option (they start with -)")
            out.append([word])
        else:
            out[-1].append(word)
    return out


_TASK_OPTIONS = ("-n", "--ntasks")


def asks_for_tasks(lines: list[list[str]]) -> bool:
    """Whether the user's directives set the task count (-n N, --ntasks=N)."""
    return any(d[0] in _TASK_OPTIONS or d[0].startswith("--ntasks=") or (d[0].startswith("-n") and d[0][2:].isdigit())
               for d in lines)


def script(command: list[str], *, name: str, ntasks: int | None, user: list[list[str]], output: str,
           error: str, workdir: str, note: str, exports: dict[str, str] | None = None,
           nodes: int | None = None) -> str:
    """The batch script: pario's directives first, the user's after them (a later #SBATCH line wins,
    so a site's -p/-t/-A given in --sbatch-args override pario's). `exports`: the variables pario
    was run with that the job needs too (PARIO_*), so that the script runs the same whoever submits it.
    `nodes` (--nodes): the allocation's nodes, with the ranks' blocks per node (--ntasks alone lets Slurm
    fill the first nodes' CPUs: 4, 1, 1 of 6 tasks on 3 nodes of 4 CPUs, where pario places 2 on each)."""
    lines = ["#!/bin/bash",
             f"# {note}",
             f"# Written by pario {__version__} on {socket.gethostname()} at "
             f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}. Edit freely; submit with: sbatch THIS_FILE",
             f"#SBATCH --job-name={name}",
             f"#SBATCH --output={output}",
             f"#SBATCH --error={error}"]
    if ntasks is not None:
        lines.append(f"#SBATCH --ntasks={ntasks}")
    if nodes:
        lines.append(f"#SBATCH --nodes={nodes}")
        if ntasks is not None:
            lines.append(f"#SBATCH --ntasks-per-node={-(-ntasks // nodes)}")
    lines += ["#SBATCH " + " ".join(shlex.quote(w) for w in d) for d in user]
    lines.append("")
    for key, value in sorted((exports or {}).items()):
        if key == "PYTHONPATH":
            lines.append(f"export PYTHONPATH={shlex.quote(value)}${{PYTHONPATH:+:$PYTHONPATH}}")
        else:
            lines.append(f"export {key}={shlex.quote(value)}")
    lines += ["# pario runs once here and starts its ranks itself with srun, inside this allocation.",
              f"cd {shlex.quote(workdir)} || exit 1",
              "exec " + shlex.join(command), ""]
    return "\n".join(lines)


def check_client(tool: str = "sbatch") -> str:
    """The Slurm client, and a SLURM_CONF that exists (a missing one costs 60 s of retries)."""
    path = shutil.which(tool)
    if not path:
        raise ParioError(f"{tool} not found on PATH: submit from a machine with Slurm's client commands (a login "
                         "node), or use --script-only and submit the script yourself", exit_code=3)
    conf = os.environ.get("SLURM_CONF")
    if conf and not os.path.isfile(conf):
        raise ParioError(f"SLURM_CONF={conf} is not a file; unset it or point it at your cluster's slurm.conf",
                         exit_code=3)
    return path


def submit(script_path: str, cwd: str) -> tuple[str, str]:
    """sbatch SCRIPT -> (job id, cluster or ''); sbatch's refusal as one line (exit code 2)."""
    sbatch = check_client()
    try:
        out = subprocess.run([sbatch, "--parsable", script_path], capture_output=True, text=True, timeout=180,
                             cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParioError(f"sbatch did not answer ({exc}); is the Slurm controller up (sinfo)?", exit_code=3) from None
    first = (out.stdout.strip().splitlines() or [""])[-1]
    job, _, cluster = first.partition(";")
    if out.returncode != 0 or not job.strip().isdigit():
        errors = [ln.split("error:", 1)[1].strip() for ln in out.stderr.splitlines() if "error:" in ln]
        reason = errors[0] if errors else (out.stderr.strip().splitlines() or ["no message"])[-1]
        more = f" ({errors[-1]})" if len(errors) > 1 and errors[-1] != reason else ""
        if unreachable(out.stderr):   # no controller answered: not the job's options
            raise ParioError(f"sbatch could not reach a Slurm controller ({reason}{more}); is Slurm up here "
                             "(sinfo)? Submit from a login node of the cluster, or print the script with "
                             "--script-only and submit it yourself", exit_code=3)
        raise ParioError(f"sbatch refused the job: {reason}{more}; check the #SBATCH options (--sbatch-args; "
                         "--script-only prints the script)", exit_code=2)
    return job.strip(), cluster.strip()


# What sbatch says when no controller answers (slurm's own messages), as against a refused job
UNREACHABLE = ("unable to contact slurm controller", "failed to fetch config", "_establish_config_source",
               "resolve_ctls_from_dns_srv", "socket timed out", "connection refused", "could not establish a "
               "configuration source", "unable to establish", "slurm_persist_conn_open", "no route to host")


def unreachable(stderr: str) -> bool:
    low = stderr.lower()
    return any(s in low for s in UNREACHABLE)


def submit_written(script_path: str, cwd: str, made: list[str]) -> tuple[str, str]:
    """submit() of a script pario wrote, with the files in `made` (and their directory, when pario made
    it and it is empty) removed when sbatch takes nothing: nothing is left of a job that never was."""
    try:
        return submit(script_path, cwd)
    except ParioError:
        for path in made:
            try:
                if os.path.isdir(path):
                    os.rmdir(path)   # only when empty
                else:
                    os.unlink(path)
            except OSError:
                pass
        raise
