"""The local cluster of several nodes (scripts/local-cluster.sh): every node has its own name,
/tmp and slurmd; srun, Open MPI's mpirun and MPICH's mpiexec place ranks on them; stop leaves no
process or namespace, also after a start that failed or was killed half-way."""
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from cluster_support import SCRIPT, script, start, stop
from mpi_flavours import MPICH, OPENMPI

TAG = b"PARIO_LOCAL_CLUSTER="


def _tagged(directory) -> list[int]:
    """Live processes of the cluster in `directory` (daemons and anchors carry its tag)."""
    want = TAG + str(directory).encode()
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if want in (entry / "environ").read_bytes().split(b"\0"):
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def _in_namespaces(spaces: set[str]) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "mnt") in spaces:
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def test_every_node_has_its_own_name_and_tmp(nodes, tmp_path):
    out = nodes.run(["srun", "-N", "3", "-n", "3", "hostname"])
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.split()) == ["node1", "node2", "node3"]
    probe = f"/tmp/pario-node-local-{os.getpid()}"
    assert nodes.on("node1", ["sh", "-c", f"echo here > {probe}"]).returncode == 0
    try:
        assert nodes.on("node1", ["cat", probe]).stdout == "here\n"
        assert nodes.on("node2", ["test", "-e", probe]).returncode == 1   # node-local: node2 has its own /tmp
        assert not os.path.exists(probe)                                 # and so has the machine
    finally:
        nodes.on("node1", ["rm", "-f", probe])
    shared = tmp_path / "shared"   # the session's directory is on the cluster's shared file system
    assert nodes.on("node1", ["sh", "-c", f"echo all > {shared}"]).returncode == 0
    assert nodes.on("node3", ["cat", shared]).stdout == "all\n"


def test_a_batch_job_spans_the_nodes_it_asked_for(nodes, tmp_path):
    out = nodes.run(["sbatch", "--wait", "-N", "2", "--ntasks-per-node=2", "-o", str(tmp_path / "out"),
                     "--wrap", "srun hostname"], timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted((tmp_path / "out").read_text().split()) == ["node1", "node1", "node2", "node2"]


@pytest.mark.mpi
@pytest.mark.parametrize("flavour", [OPENMPI, MPICH], ids=["openmpi", "mpich"])
def test_mpi_launchers_reach_the_nodes_through_the_ssh_stand_in(nodes, flavour):
    """Without Slurm: the hostfiles and the ssh stand-in that `local-cluster.sh env` names."""
    if not flavour["mpirun"]:
        pytest.skip(f"{flavour['name']}: no launcher")
    if flavour["name"] == "openmpi":
        argv = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "4", "--map-by", "ppr:2:node"]
    else:
        argv = ["mpiexec.mpich", "-n", "4", "-ppn", "2"]
    out = nodes.run([*argv, "hostname"], timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.split()) == ["node1", "node1", "node2", "node2"]


def test_ssh_stand_in_runs_a_command_line_on_the_node(nodes, tmp_path):
    ssh = nodes.dir / "bin" / "ssh"
    out = nodes.run([str(ssh), "-x", "-o", "BatchMode=yes", "node2", "hostname;", "pwd"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["node2", str(tmp_path)]
    out = nodes.run([str(ssh), "node9", "true"])
    assert out.returncode == 255 and "node9 is not a running node" in out.stderr
    out = nodes.on("node9", ["true"])
    assert out.returncode == 1 and "node9 is not a running node" in out.stderr


def test_start_again_is_a_no_op_and_another_size_is_refused(nodes):
    out = script("start", 3, nodes.dir)
    assert out.returncode == 0 and "already running" in out.stdout
    out = script("start", 2, nodes.dir)
    assert out.returncode == 1 and "a cluster of 3 nodes runs" in out.stderr
    out = script("status", nodes.dir)
    assert out.returncode == 0 and out.stdout.count(" idle") == 3


@pytest.mark.parametrize("args, code, said", [
    (["start", "0"], 2, "from 1 to 16"),
    (["start", "two"], 2, "from 1 to 16"),
    (["exec", "node1", "true"], 1, "no cluster in"),
    (["restart"], 2, "usage:"),
])
def test_bad_input_says_what_is_wrong(args, code, said, tmp_path):
    env = dict(os.environ, PARIO_CLUSTER_DIR=str(tmp_path))
    out = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == code and said in out.stderr, out.stderr


def test_a_directory_it_did_not_make_is_refused(tmp_path):
    (tmp_path / "theirs").write_text("x")
    out = script("start", 2, tmp_path)
    assert out.returncode == 2 and "not made by local-cluster.sh" in out.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["theirs"]


def test_without_root_it_says_why(tmp_path):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root (to drop it) and setpriv")
    tmp_path.chmod(0o777)
    out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", str(SCRIPT),
                          "start", "2", str(tmp_path / "c")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 4 and "need root" in out.stderr, out.stderr


def test_stop_after_a_start_killed_half_way_leaves_nothing():
    """SIGKILL while the nodes' namespaces exist and the daemons start; stop then ends them all."""
    directory = Path(tempfile.mkdtemp(prefix="pario-cl-", dir="/tmp"))
    try:
        proc = subprocess.Popen(["bash", str(SCRIPT), "start", "2", str(directory)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        ns_file = directory / "run" / "node2.ns"
        end = time.monotonic() + 30
        while time.monotonic() < end and not (ns_file.exists() and len(ns_file.read_text().split()) >= 2):
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        # the anchors start side by side: node1's may have been killed with the start, before its setsid
        spaces = {f.read_text().split()[0] for f in (directory / "run").glob("node*.ns") if f.read_text().strip()}
        assert _tagged(directory) and _in_namespaces(spaces)   # half-started: something to stop
        out = script("stop", directory)
        assert out.returncode == 0, out.stderr
        assert _tagged(directory) == [] and _in_namespaces(spaces) == []
        assert list((directory / "run").iterdir()) == []
    finally:
        script("stop", directory)   # whatever failed above, nothing of it runs on
        shutil.rmtree(directory)


def test_a_failed_start_stops_what_it_started():
    directory = Path(tempfile.mkdtemp(prefix="pario-cl-", dir="/tmp"))
    try:
        out = script("start", 2, directory, env=dict(os.environ, PARIO_CLUSTER_TIMEOUT="0"))
        assert out.returncode == 1 and "error:" in out.stderr
        assert _tagged(directory) == []
    finally:
        script("stop", directory)
        shutil.rmtree(directory)
    stop(start(2, extra_env={"PARIO_CLUSTER_TIMEOUT": "30"}))   # the machine is left fit for the next
