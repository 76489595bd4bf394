"""pario with Slurm over real nodes (the session's local cluster): a batch job of --nodes N that asks
for N nodes and places the ranks in blocks on them, tune's job arrays whose every task spans its
nodes, and pario stack naming the allocation's nodes. Structure only, never speed."""
import json
import sys

import pytest

from cluster_support import pario
from mpi_flavours import OPENMPI

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]


def _need():
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("openmpi: no engine or launcher")


def _hosts(nodes, tmp_path, run_id):
    shown = json.loads(pario(nodes, ["results", "show", run_id, "--json"], tmp_path).stdout)
    return [(h["name"], h["ranks"]) for h in shown["result"]["mpi"]["hosts"]], shown


def test_bench_submit_asks_for_the_nodes_and_places_the_ranks_on_them(nodes, tmp_path):
    _need()
    out = pario(nodes, ["bench", "-a", "mpiio", "-c", "--nodes", "3", "-n", "6", "-w", "-t", "1m", "-b", "1m",
                        "-i", "1", "--no-probe", "--submit", "--json"], tmp_path, engine=OPENMPI["engine"], timeout=300)
    assert out.returncode == 0, out.stderr
    (script,) = (tmp_path / "pario-jobs").glob("bench-*.sh")
    directives = [ln for ln in script.read_text().splitlines() if ln.startswith("#SBATCH")]
    assert {"#SBATCH --ntasks=6", "#SBATCH --nodes=3", "#SBATCH --ntasks-per-node=2"} <= set(directives)
    runs = json.loads(pario(nodes, ["results", "--json"], tmp_path).stdout)["runs"]
    hosts, shown = _hosts(nodes, tmp_path, runs[0]["id"])
    assert hosts == [("node1", 2), ("node2", 2), ("node3", 2)]
    assert shown["result"]["mpi"]["placement"]["source"] == "slurm"


def test_tune_submit_job_arrays_span_the_nodes(nodes, tmp_path):
    _need()
    out = pario(nodes, ["tune", "-a", "mpiio", "-c", "--nodes", "2", "-n", "4", "-w", "-t", "64k", "-b", "64k",
                        "-s", "4", "--io", "romio321", "--space", "romio_cb_write", "--trials", "4", "--no-probe",
                        "--submit", "--max-jobs", "2", "--json"], tmp_path, engine=OPENMPI["engine"], timeout=600)
    assert out.returncode == 0, out.stderr
    scripts = sorted((tmp_path / "pario-jobs").glob("tune-*.sh"))
    assert scripts
    for script in scripts:
        text = script.read_text()
        assert "#SBATCH --nodes=2" in text and "#SBATCH --ntasks-per-node=2" in text and "#SBATCH --array" in text
    runs = json.loads(pario(nodes, ["results", "--kind", "tune", "--json"], tmp_path).stdout)["runs"]
    assert all("--nodes 2" in r["command"] for r in runs), [r["command"] for r in runs]
    complete = [r for r in runs if r["status"] == "complete"]
    for r in runs:   # a trial may fail on a loaded machine (tune goes on without it): it says why, never silently
        if r["status"] != "complete":
            shown = json.loads(pario(nodes, ["results", "show", r["id"], "--json"], tmp_path).stdout)
            assert (shown["result"].get("error") or {}).get("message"), shown["result"]
            print(f"run {r['id']} {r['status']}: {shown['result']['error']['message']}", file=sys.stderr)
    assert len(complete) >= 2, runs
    for r in complete:
        hosts = _hosts(nodes, tmp_path, r["id"])[0]   # whichever 2 of the 3 nodes Slurm gave the task
        assert len(hosts) == 2 and all(n == 2 for _, n in hosts), hosts


def test_stack_names_the_allocations_nodes(nodes, tmp_path):
    _need()
    out = nodes.run(["salloc", "-N", "3", "-n", "3", "--immediate=60", sys.executable, "-m", "pario", "stack"],
                    cwd=tmp_path, env=dict(nodes.env, PYTHONPATH=str(__import__("cluster_support").ROOT / "src"),
                                           COLUMNS="200", PARIO_ENGINE=OPENMPI["engine"]), timeout=300)
    assert out.returncode == 0, out.stderr
    assert "3 nodes (node[1-3])" in " ".join(out.stdout.split())
