"""pario inside a real Slurm allocation (salloc on the local one-node Slurm, tests/slurm/README.md):
bench launches through srun with the allocation's tasks and the --mpi plugin this MPI needs, records
where each rank ran, and a wrong plugin or too many ranks fail with Slurm's reason in one line;
pario stack names the allocation; pario profile runs the program's ranks under srun."""
import json
import os
import shutil
import subprocess

import pytest

from mpi_flavours import MPICH, OPENMPI
from profile_support import preload_lib
from slurm_support import ROOT, local_slurm, pario, pario_env, stop

pytestmark = [pytest.mark.mpi, pytest.mark.e2e]
CASE = ["-a", "mpiio", "-c", "-t", "64k", "-b", "256k", "-i", "1", "--no-probe", "-o", "scratch"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = local_slurm(tmp_path_factory.mktemp("alloc"))
    yield c
    stop(c)


def _needs(flavour):
    if not flavour["engine"] or not flavour["mpirun"]:
        pytest.skip(f"{flavour['name']}: no engine or launcher (PARIO_ENGINE / PARIO_ENGINE_MPICH, "
                    "scripts/build-mpich-engine.sh)")


def _last_run(tmp_path):
    import sys
    sys.path.insert(0, str(ROOT / "src"))
    from pario.store import Store
    store = Store(str(tmp_path / "runs.db"))
    return store.get_run(store.latest_id())


def _one_error_line(out):
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("pario: error:")]
    assert len(lines) == 1, out.stderr
    return lines[0]


@pytest.mark.parametrize("flavour,plugin", [(OPENMPI, "pmix"), (MPICH, "pmi2")], ids=["openmpi", "mpich"])
def test_bench_follows_the_allocation(cluster, tmp_path, flavour, plugin):
    """No -n and no --launcher: srun, the allocation's 2 tasks, the plugin of this MPI."""
    _needs(flavour)
    out = pario(cluster, ["bench", *CASE], tmp_path, salloc=2, engine=flavour["engine"],
                extra={"PARIO_MPIRUN": flavour["mpirun"]})
    assert out.returncode == 0, out.stderr
    assert "2 ranks, launched by srun, " in out.stderr  # not only the MPI's own "mpirun ..." version line
    run = _last_run(tmp_path)
    argv = run["env"]["launcher_argv"]
    assert argv[:5] == ["srun", "-n", "2", "--kill-on-bad-exit=1", f"--mpi={plugin}"]
    slurm = run["env"]["slurm"]
    assert slurm["tasks"] == 2 and slurm["partition"] == "debug" and slurm["mpi_plugin"] == plugin
    assert slurm["job"] == run["result"]["mpi"]["placement"]["slurm_job"]
    place = run["result"]["mpi"]["placement"]
    assert place["source"] == "slurm"
    assert [(r["rank"], r["launcher_rank"], r["local"], r["node"]) for r in place["ranks"]] == \
        [(0, 0, 0, 0), (1, 1, 1, 0)]
    shown = pario(cluster, ["results", "show", str(run["id"])], tmp_path)
    assert f"Slurm job {slurm['job']} (cluster pario, partition debug); srun --mpi={plugin}" in shown.stdout


def test_a_preset_follows_the_allocation(cluster, tmp_path):
    """pario bench --preset takes the allocation's tasks and srun like a plain bench."""
    _needs(OPENMPI)
    out = pario(cluster, ["bench", "--preset", "lrz-hints", "--scale", "0.01", "--no-probe", "--dir", "scratch"],
                tmp_path, salloc=2)
    assert out.returncode == 0, out.stderr
    run = _last_run(tmp_path)
    assert run["env"]["launcher_argv"][:3] == ["srun", "-n", "2"] and run["result"]["mpi"]["ranks"] == 2
    assert run["env"]["preset"] == "lrz-hints" and run["env"]["slurm"]["tasks"] == 2


def test_mpirun_stays_available(cluster, tmp_path):
    _needs(OPENMPI)
    out = pario(cluster, ["bench", *CASE, "--launcher", "mpirun"], tmp_path, salloc=2)
    assert out.returncode == 0, out.stderr
    run = _last_run(tmp_path)
    assert run["env"]["launcher_argv"][0].endswith("mpirun") and run["result"]["mpi"]["ranks"] == 2
    assert run["result"]["mpi"]["placement"]["source"] == "openmpi"
    assert run["env"]["slurm"]["launcher"] == "mpirun"


def test_open_mpi_with_the_wrong_plugin_says_why(cluster, tmp_path):
    _needs(OPENMPI)
    out = pario(cluster, ["bench", *CASE], tmp_path, salloc=2, extra={"SLURM_MPI_TYPE": "pmi2"})
    assert out.returncode == 1
    line = _one_error_line(out)
    assert "Open MPI cannot start under srun --mpi=pmi2" in line and "--mpi=pmix" in line


def test_mpich_singletons_are_caught(cluster, tmp_path):
    """MPICH under --mpi=pmix starts every task as a 1-rank job and says nothing: the engine does."""
    _needs(MPICH)
    out = pario(cluster, ["bench", *CASE], tmp_path, salloc=2, engine=MPICH["engine"],
                extra={"PARIO_MPIRUN": MPICH["mpirun"], "SLURM_MPI_TYPE": "pmix"})
    assert out.returncode == 1
    line = _one_error_line(out)
    assert "srun started 2 tasks but MPI sees 1 rank" in line and "--mpi=pmix does not match" in line
    assert out.stderr.count("pario-engine: srun started") == 1  # the first task alone speaks
    assert not list((tmp_path / "scratch").glob("*")) if (tmp_path / "scratch").exists() else True


def test_more_ranks_than_the_allocation(cluster, tmp_path):
    _needs(OPENMPI)
    out = pario(cluster, ["bench", *CASE, "-n", "3"], tmp_path, salloc=2)
    assert out.returncode == 1
    line = _one_error_line(out)
    assert "Slurm refused the job step" in line and "More processors requested than permitted" in line
    assert "the allocation has 2 tasks" in line


def test_started_by_srun_is_refused(cluster, tmp_path):
    """`srun -n 2 pario bench` would start two front ends, each launching its own ranks."""
    import sys
    out = subprocess.run(["srun", "-n", "2", sys.executable, "-m", "pario", "bench", *CASE], cwd=tmp_path,
                         env=pario_env(cluster, tmp_path), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "started as one of 2 tasks of srun step" in out.stderr


def test_stack_names_the_allocation(cluster, tmp_path):
    out = pario(cluster, ["stack", "--no-probe", "--json", "."], tmp_path, salloc=2)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    slurm = doc["slurm"]
    assert (slurm["cluster"], slurm["partition"], slurm["nodes"], slurm["tasks"]) == ("pario", "debug", 1, 2)
    assert "pmix" in slurm["mpi_plugins"] and slurm["mpi_plugin"] in ("pmix", "pmi2")
    table = pario(cluster, ["stack", "--no-probe", "."], tmp_path, salloc=2)
    assert "partition debug, 1 node" in table.stdout and "2 tasks (2 per node)" in table.stdout


def test_profile_under_srun(cluster, tmp_path, tmp_path_factory):
    _needs(OPENMPI)
    if not shutil.which("mpicc"):
        pytest.skip("mpicc not found")
    exe = tmp_path / "hello"
    subprocess.run(["mpicc", "-O2", "-o", str(exe), str(ROOT / "tests" / "slurm" / "mpiio_hello.c")], check=True)
    lib = preload_lib(tmp_path_factory)
    log = tmp_path / "hello.json"
    out = pario(cluster, ["profile", "-n", "2", "-o", log, "--", exe, tmp_path / "data"], tmp_path, salloc=2,
                extra={"PARIO_PRELOAD": lib})
    assert out.returncode == 0, out.stderr
    assert "rank 1 of 2" in out.stdout  # one 2-rank MPI job, not two singletons
    doc = json.loads(log.read_text())
    assert doc["job"]["launcher"] == "srun" and doc["job"]["launcher_argv"][0] == "srun"
    assert doc["job"]["slurm"]["tasks"] == 2
    ranks = sorted(p["process"].get("rank") for p in doc["processes"])
    assert ranks == [0, 1]
    assert os.path.getsize(tmp_path / "data") == 2 * 65536


def test_buffer_under_srun(cluster, tmp_path, tmp_path_factory):
    """pario buffer starts an MPI program as the allocation's tasks (srun), each rank buffered."""
    _needs(OPENMPI)
    if not shutil.which("mpicc"):
        pytest.skip("mpicc not found")
    exe = tmp_path / "fpp"
    subprocess.run(["mpicc", "-O2", "-o", str(exe), str(ROOT / "tests" / "buffer" / "mpi_fpp.c")], check=True)
    lib = preload_lib(tmp_path_factory)
    out = pario(cluster, ["buffer", "--stats", "--launcher", "srun", "--", exe, tmp_path, "2000"], tmp_path,
                salloc=2, extra={"PARIO_PRELOAD": lib})
    assert out.returncode == 0, out.stderr
    for rank in (0, 1):
        assert os.path.getsize(tmp_path / f"out.{rank}") == 2000 * 100
        assert f"out.{rank}" in out.stderr  # each task's buffered file is in the --stats table
