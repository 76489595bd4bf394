"""What going through Slurm costs, on a real one-node Slurm started here (scripts/local-slurm.sh):

  A  salloc -n 2 pario bench CASE --launcher mpirun     mpirun inside the allocation (binds ranks to cores)
  A2 the same with OMPI_MCA_hwloc_base_binding_policy=none   mpirun without binding, like srun here
  B  salloc -n 2 pario bench CASE                       srun (the default inside an allocation)
  C  pario bench CASE -n 2 --submit                     a batch job, followed to its stored run

alternated for --rounds rounds. Per variant: the wall time of the whole command, and the write
and read MiB/s the run stored (median of its repetitions), so that the launcher's effect on the
figures shows beside its cost; for C also the job's wait (scontrol SubmitTime -> StartTime) and
its run time. Writes JSON (--out) and prints a Markdown table. Usage:

  python benchmarks/slurm/run.py [--rounds 5] [--out benchmarks/slurm/results.json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "local-slurm.sh"
CASE = ["-a", "posix", "-F", "-t", "1m", "-b", "16m", "-i", "3", "--no-probe"]


def env_of(conf: str, work: Path) -> dict[str, str]:
    env = dict(os.environ, SLURM_CONF=conf, PARIO_DB=str(work / "runs.db"), XDG_CACHE_HOME=str(work / "cache"))
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("SLURM_MPI_TYPE", None)
    return env


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.monotonic()
    out = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    return time.monotonic() - t0, out


def rates(work: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "src"))
    from pario.store import Store
    store = Store(str(work / "runs.db"))
    run = store.get_run(store.latest_id())
    phases = run["result"]["cases"][0]["phases"]
    return {op: statistics.median(p["bw_mib"] for p in phases if p["op"] == op) for op in ("write", "read")}


def cpus(work: Path) -> list[str]:
    """The CPUs each rank of the last run could use (the engine's placement record)."""
    sys.path.insert(0, str(ROOT / "src"))
    from pario.store import Store
    store = Store(str(work / "runs.db"))
    place = store.get_run(store.latest_id())["result"]["mpi"].get("placement") or {}
    return [r["cpus"] for r in place.get("ranks") or []]


def job_times(conf: str, job: str) -> dict[str, float]:
    text = subprocess.run(["scontrol", "-o", "show", "job", job], env=dict(os.environ, SLURM_CONF=conf),
                          capture_output=True, text=True).stdout
    f = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
    t = {k: datetime.fromisoformat(f[k]) for k in ("SubmitTime", "StartTime", "EndTime") if k in f}
    return {"wait_s": (t["StartTime"] - t["SubmitTime"]).total_seconds(),
            "job_s": (t["EndTime"] - t["StartTime"]).total_seconds()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results.json")))
    args = ap.parse_args()
    if not shutil.which("slurmctld"):
        sys.exit("Slurm is not installed: apt-get install -y slurmctld slurmd slurm-client munge")
    cluster = tempfile.mkdtemp(prefix="pario-bench-slurm-")
    work = Path(tempfile.mkdtemp(prefix="pario-bench-slurm-work-"))
    subprocess.run(["bash", str(SCRIPT), "start", cluster], check=True, capture_output=True)
    conf = os.path.join(cluster, "slurm.conf")
    env = env_of(conf, work)
    py = [sys.executable, "-m", "pario", "bench", *CASE, "-o", str(work / "scratch")]
    unbound = ["env", "OMPI_MCA_hwloc_base_binding_policy=none"]
    variants = {"A mpirun in salloc": ["salloc", "-n", "2", *py, "--launcher", "mpirun"],
                "A2 mpirun, no binding": ["salloc", "-n", "2", *unbound, *py, "--launcher", "mpirun"],
                "B srun in salloc": ["salloc", "-n", "2", *py],
                "C --submit": [*py, "-n", "2", "--submit"]}
    data: dict[str, list[dict]] = {k: [] for k in variants}
    try:
        for r in range(args.rounds):
            for name, argv in variants.items():
                wall, out = timed(argv, env, work)
                if out.returncode != 0:
                    sys.exit(f"{name}: exit {out.returncode}\n{out.stderr[-2000:]}")
                rec = {"round": r, "wall_s": wall, **rates(work), "cpus": cpus(work)}
                m = re.search(r"submitted Slurm job (\d+)", out.stderr)
                if m:
                    rec.update(job_times(conf, m.group(1)))
                data[name].append(rec)
                print(f"round {r} {name}: {wall:.2f} s", file=sys.stderr)
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", cluster], capture_output=True)
    doc = {"command": " ".join(sys.argv), "case": CASE, "ranks": 2, "host": os.uname().nodename,
           "when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "rounds": data}
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
    print("| variant | wall s, median [min-max] | write MiB/s | read MiB/s | rank CPUs | job wait s | job run s |")
    print("|---|---|---|---|---|---|---|")
    for name, recs in data.items():
        walls = [x["wall_s"] for x in recs]
        wait = med([x["wait_s"] for x in recs if "wait_s" in x])
        job = med([x["job_s"] for x in recs if "job_s" in x])
        write = med([x["write"] for x in recs])
        print(f"| {name} | {med(walls):.2f} [{min(walls):.2f}-{max(walls):.2f}] | {write:.0f} "
              f"| {med([x['read'] for x in recs]):.0f} | {' '.join(recs[0]['cpus'])} "
              f"| {'-' if wait != wait else f'{wait:.1f}'} "
              f"| {'-' if job != job else f'{job:.1f}'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
