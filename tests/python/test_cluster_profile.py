"""pario profile of an MPI program over 3 real nodes (the session's local cluster): the shared file
is one record reduced over every rank, the node-local file (one path in each node's own /tmp) one
record per node reduced over that node's ranks, and `profile show` says which ranks ran where and
what each node did. tests/cluster/node_files.c is the program; its pattern is known exactly."""
import json
import shutil
import subprocess

import pytest

from cluster_support import ROOT, pario
from profile_support import preload_lib

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]
PROGRAM = ROOT / "tests" / "cluster" / "node_files.c"
MIB = 1 << 20


# Open MPI only: the preload library is built against one MPI's mpi.h (Open MPI's here; an MPICH
# program under it aborts in its first PMPI call, "Invalid communicator").
def test_node_local_files_are_reduced_per_node(nodes, tmp_path, tmp_path_factory, mpicc="mpicc", mpirun="mpirun"):
    if not shutil.which(mpicc) or not shutil.which(mpirun):
        pytest.skip(f"{mpicc} or {mpirun} not found")
    exe = tmp_path / "node_files"
    subprocess.run([mpicc, "-O2", "-o", str(exe), str(PROGRAM)], check=True, timeout=120)
    lib = preload_lib(tmp_path_factory)
    out = pario(nodes, ["profile", "-n", "6", "--nodes", "3", "-o", tmp_path / "job.json", "--", exe, tmp_path],
                tmp_path, extra={"PARIO_PRELOAD": lib, "PARIO_MPIRUN": mpirun})
    assert out.returncode == 0, out.stderr
    shown = pario(nodes, ["profile", "show", "--json", tmp_path / "job.json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    files = [f for f in doc["files"] if f["module"] == "posix" and f["path"].endswith(".dat")]
    local = sorted((f["node"], f["nprocs"], f["bytes_written"]) for f in files if "node-local" in f["path"])
    assert local == [("node1", 2, 2 * MIB), ("node2", 2, 2 * MIB), ("node3", 2, 2 * MIB)]
    (shared,) = [f for f in files if f["path"] == str(tmp_path / "shared.dat")]
    assert (shared["node"], shared["nprocs"], shared["bytes_written"]) == (None, 6, 6 * MIB)
    by_node = doc["nodes"]["nodes"]
    assert [(n["node"], n["ranks"], n["node_local_files"], n["bytes_written"]) for n in by_node] == [
        ("node1", [0, 1], 1, 2 * MIB), ("node2", [2, 3], 1, 2 * MIB), ("node3", [4, 5], 1, 2 * MIB)]
    assert doc["nodes"]["across"]["bytes_written"] == 6 * MIB
    text = pario(nodes, ["profile", "show", tmp_path / "job.json"], tmp_path).stdout
    text = " ".join(text.split())
    assert "By node (POSIX and stdio I/O)" in text
    assert "/tmp/pario-node-local.dat (on node2)" in text
    # the HTML page's plots keep the nodes' files apart (one category per label: the same label stacked them)
    from pario.analysis.profile import load
    from pario.report.html.profile import section
    plots = {p.title: p.figure for p in section(1, "job", load(tmp_path / "job.json"), doc).items
             if hasattr(p, "figure")}
    for title in ("Per-rank spread of shared files", "Time split: read, write, metadata"):
        labels = {y for trace in plots[title].data for y in (trace.y or []) if y and "node-local" in y}
        assert sorted(y.split(" (slowest")[0] for y in labels) == [
            f"posix: /tmp/pario-node-local.dat (on node{k})" for k in (1, 2, 3)], (title, labels)
    # advise: the node-local path is three files, each named with its node and worked on by that
    # node's ranks beside the other nodes' (its busiest rank carries one of them, not all three)
    from pario.advise.read_pario import read
    job = read(str(tmp_path / "job.json"))
    recs = [r for r in job.records if r.path == "/tmp/pario-node-local.dat"]
    assert sorted((r.name, r.ranks_of()) for r in recs) == [(f"/tmp/pario-node-local.dat (on node{k})",
                                                             [2 * k - 2, 2 * k - 1]) for k in (1, 2, 3)]
    adv = pario(nodes, ["advise", "--json", "--no-calibrate", tmp_path / "job.json"], tmp_path)
    assert adv.returncode == 0, adv.stderr
    (advised,) = json.loads(adv.stdout)["jobs"]
    (tmpfs,) = [f for f in advised["stack"]["file_systems"] if f["fs"] == "tmpfs"]
    assert tmpfs["files"] == 3 and all(p.endswith(")") and "(on node" in p for p in tmpfs["paths"])
    own: dict[int, float] = {}
    for r in job.records:
        if r.rank >= 0:
            own[r.rank] = own.get(r.rank, 0.0) + r.io_time
    across = sum(r.io_time / r.nprocs for r in job.records if r.rank < 0 and not r.node)
    one_node = max(r.io_time / r.nprocs for r in recs)   # each node's file took time: all three would exceed it
    assert 0 < advised["io_time"] <= max(own.values(), default=0.0) + across + one_node + 1e-9
