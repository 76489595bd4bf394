"""A seed's preset whose figures are per node (CSC's BTIO with cb_config_list "*:2" and "*:4") run over
real nodes (the session's local cluster): the rows run on the nodes instead of one node holding every
aggregator, and the output says that the nodes are one machine, so its rates are not the cluster's."""
import json

import pytest

from cluster_support import pario
from mpi_flavours import OPENMPI

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]


def test_csc_btio_rows_run_per_node_and_say_the_rates_are_one_machines(nodes, tmp_path):
    if not (OPENMPI["engine"] and OPENMPI["mpirun"]):
        pytest.skip("openmpi: no engine or launcher")
    out = pario(nodes, ["bench", "--preset", "csc-btio", "-n", "4", "--nodes", "2", "--scale", "0.01", "-i", "1",
                        "--no-probe", "--json", "--dir", tmp_path / "scratch"], tmp_path, engine=OPENMPI["engine"],
                timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [(h["name"], h["ranks"]) for h in doc["result"]["mpi"]["hosts"]] == [("node1", 2), ("node2", 2)]
    ran = {c["name"] for c in doc["result"]["cases"]}
    assert {"blk-su-cb2", "nb-su-cb2", "nb-su-cb4-nods"} <= ran       # the per-node rows ran, not skipped
    notes = " ".join(json.dumps(doc["preset"]).split())
    assert "on 2 nodes: a row's cb_config_list *:k allows k aggregators on each node" in notes
    assert "the nodes are one machine" in notes and "not a cluster's" in notes
    rows = {r["name"]: r for r in doc["summary"]}
    assert rows["blk-default"]["aggregators"]["write"]["text"] == "ranks 0, 2: 1 per node"   # ROMIO's *:1
    assert rows["blk-su-cb2"]["asked"] == {"cb_config_list": "*:2"}
