"""pario tune over real nodes (the session's local cluster): --nodes puts every trial's ranks on the
nodes, the space searches aggregators per node (cb_config_list "*:k", ADIOS2's NumAggregators as k
per node), and the stored trials and the winner's command say where they ran. Structure only."""
import json

import pytest

from cluster_support import pario
from mpi_flavours import OPENMPI

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]


def _need():
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("openmpi: no engine or launcher")


def _space(nodes, tmp_path, *case):
    out = pario(nodes, ["tune", *case, "--nodes", "3", "-n", "6", "-w", "-t", "64k", "-b", "64k", "--dry-run",
                        "--json"], tmp_path, engine=OPENMPI["engine"])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["session"]["space"]


def test_the_space_is_per_node(nodes, tmp_path):
    _need()
    space = _space(nodes, tmp_path, "-a", "mpiio", "-c", "-s", "16", "--io", "romio321")
    assert "per-node" in space["strategy"] and "per-node+agg" in space["strategy"]
    assert space["cb_config_list"] == ["default", "*:2"]          # 2 ranks per node: at most 2 aggregators each
    assert _space(nodes, tmp_path, "-a", "adios2")["adios2.NumAggregators"] == ["default", "3", "6"]  # 1 and 2 per node


def test_a_session_runs_its_trials_on_the_nodes(nodes, tmp_path):
    _need()
    out = pario(nodes, ["tune", "-a", "mpiio", "-c", "--nodes", "3", "-n", "6", "-w", "-t", "64k", "-b", "64k",
                        "-s", "8", "--io", "romio321", "--space", "romio_cb_write,cb_config_list", "--trials", "4",
                        "--no-probe", "--json"], tmp_path, engine=OPENMPI["engine"], timeout=600)
    assert out.returncode == 0, out.stderr
    runs = json.loads(pario(nodes, ["results", "--kind", "tune", "--json"], tmp_path).stdout)["runs"]
    assert runs and all(r["kind"] == "tune" and "--nodes 3" in r["command"] for r in runs)
    for r in runs:
        shown = json.loads(pario(nodes, ["results", "show", r["id"], "--json"], tmp_path).stdout)
        assert [(h["name"], h["ranks"]) for h in shown["result"]["mpi"]["hosts"]] == [
            ("node1", 2), ("node2", 2), ("node3", 2)]
    winner = json.loads(out.stdout)["session"]["winner"]
    assert not winner["bench_flags"] or "--nodes 3" in winner["bench_flags"]   # (none when the default is kept)
