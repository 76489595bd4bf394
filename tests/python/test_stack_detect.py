"""Stack detection: statfs magics, `lfs getstripe` / `mmlsfs` outputs recorded in the seeds (see
data/stack/README.md), and `pario stack` on this machine."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pario.platform import fsinfo, stack

DATA = Path(__file__).parent / "data" / "stack"
SRC = Path(__file__).resolve().parents[2] / "src"


def test_magics_recorded_here_map_to_names():
    # `stat -f -c '%t %T'` of this machine's file systems: GNU stat's hex type and its name.
    names = {"ext2/ext3": "ext4", "tmpfs": "tmpfs", "proc": "proc", "sysfs": "sysfs"}
    for line in (DATA / "statfs-magics.txt").read_text().splitlines():
        hexval, name = line.split(None, 1)
        assert fsinfo.fs_name(int(hexval, 16)) == names[name.strip()]


@pytest.mark.parametrize("magic,name", [(0x0BD00BD0, "lustre"), (0x47504653, "gpfs"), (0x19830326, "beegfs"),
                                        (0x6969, "nfs"), (0x00C36400, "cephfs"), (0x58465342, "xfs")])
def test_parallel_and_network_magics(magic, name):
    assert fsinfo.fs_name(magic) == name
    assert fsinfo.fs_name(0x12345678).startswith("unknown (0x12345678")


def test_statfs_agrees_with_gnu_stat(tmp_path):
    out = subprocess.run(["stat", "-f", "-c", "%t", str(tmp_path)], capture_output=True, text=True)
    assert fsinfo.statfs_magic(str(tmp_path)) == int(out.stdout.strip(), 16)
    desc = fsinfo.describe(str(tmp_path / "not" / "yet"))  # the nearest existing parent
    assert desc["path"] == str(tmp_path)
    assert desc["block_size"] > 0 and desc["preferred_io"] > 0 and desc["mount_point"]


def test_getstripe_of_a_file_lrz():
    (entry,) = fsinfo.parse_getstripe((DATA / "lrz-getstripe-file.txt").read_text())
    assert entry == {"path": "reads2.fastq", "stripe_count": 1, "stripe_size": 1048576, "stripe_offset": 42,
                     "pattern": 1, "layout_gen": 0, "osts": [42]}
    (entry,) = fsinfo.parse_getstripe((DATA / "lrz-getstripe-4m.txt").read_text())
    assert entry["stripe_size"] == 4 << 20 and entry["osts"] == [31]


def test_getstripe_of_a_directory_and_its_file_archer():
    d, f = fsinfo.parse_getstripe((DATA / "archer-getstripe-dir.txt").read_text())
    assert d == {"path": "default-striped-dir", "stripe_count": 4, "stripe_size": 1048576, "stripe_offset": -1}
    assert f["path"] == "default-striped-dir/myfile" and f["osts"] == [15, 7, 23, 40] and f["stripe_offset"] == 15
    (only,) = fsinfo.parse_getstripe((DATA / "archer-getstripe-d.txt").read_text())  # fields over two lines
    assert (only["stripe_count"], only["stripe_size"], only["stripe_offset"]) == (1, 1048576, -1)


def test_getstripe_of_a_composite_layout():
    (entry,) = fsinfo.parse_getstripe((DATA / "lustre-pfl-getstripe.txt").read_text())
    comps = entry["components"]
    assert [(c["e_start"], c["e_end"], c["stripe_count"]) for c in comps] == \
        [(0, 4 << 20, 1), (4 << 20, 64 << 20, 4), (64 << 20, -1, -1)]
    assert comps[1]["osts"] == [0, 1, 3, 2]


def test_mmlsfs_block_size_lrz():
    parsed = fsinfo.parse_mmlsfs((DATA / "lrz-mmlsfs.txt").read_text())
    assert parsed["block_size"] == 8388608 and parsed["min_fragment"] == 262144


def test_lfs_df_counts_osts():
    text = ("UUID                   1K-blocks        Used   Available Use% Mounted on\n"
            "scratch-MDT0000_UUID    1000000       10000      990000   1% /mnt/scratch[MDT:0]\n"
            "scratch-OST0000_UUID  100000000     5000000    95000000   5% /mnt/scratch[OST:0]\n"
            "scratch-OST0001_UUID  100000000     5000000    95000000   5% /mnt/scratch[OST:1]\n"
            "scratch-OST0002_UUID  100000000     5000000    95000000   5% /mnt/scratch[OST:2]\n\n"
            "filesystem_summary:   300000000    15000000   285000000   5% /mnt/scratch\n")
    parsed = fsinfo.parse_lfs_df(text)
    assert parsed["ost_count"] == 3 and parsed["mdt_count"] == 1 and parsed["total_kib"] == 300000000


def test_slurm_facts_from_the_environment():
    env = {"SLURM_JOB_ID": "42", "SLURM_JOB_NUM_NODES": "16", "SLURM_NTASKS": "2048", "SLURM_JOB_PARTITION": "std",
           "SLURM_TASKS_PER_NODE": "128(x16)"}
    assert stack.slurm_facts(env) == {"job": "42", "nodes": 16, "tasks": 2048, "partition": "std",
                                      "tasks_per_node": [128] * 16}
    assert stack.slurm_facts({}) is None


def _pario(args, tmp_path, **env):
    full = dict(os.environ, PYTHONPATH=str(SRC), XDG_CACHE_HOME=str(tmp_path / "cache"), **env)
    return subprocess.run([sys.executable, "-m", "pario", *args], capture_output=True, text=True, env=full,
                          timeout=300, cwd=tmp_path)


@pytest.mark.e2e
def test_pario_stack_json_without_probe(tmp_path):
    out = _pario(["stack", str(tmp_path), "--json", "--no-probe"], tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["fs"]["type"] == fsinfo.fs_name(fsinfo.statfs_magic(str(tmp_path)))
    assert doc["host"]["cpus"] >= 1 and doc["host"]["mem_total"] > 0
    assert "probes" not in doc


@pytest.mark.e2e
def test_pario_stack_missing_path(tmp_path):
    out = _pario(["stack", str(tmp_path / "nope")], tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "does not exist" in out.stderr


ENGINE = os.environ.get("PARIO_ENGINE")


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and shutil.which("ompi_info")), reason="needs PARIO_ENGINE and Open MPI")
def test_pario_stack_probes_open_mpi(tmp_path):
    out = _pario(["stack", str(tmp_path), "--json"], tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["mpi"]["flavour"] == "openmpi" and doc["mpi"]["library"].startswith("Open MPI")
    assert doc["mpi"]["mpiio"] == "ompio" and "ompio" in doc["mpi"]["io_components"]
    probes = {p.get("io"): p for p in doc["probes"]}
    assert probes[None]["ok"] and probes[None]["hints"]["cb_buffer_size"] == \
        doc["mpi"]["ompio_params"]["io_ompio_bytes_per_agg"]
    romio = probes.get("romio321")
    if romio:  # ROMIO's own report of the hints of a new file, with its driver for this file system
        assert romio["means"] == "ROMIO_PRINT_HINTS" and romio["hints"]["cb_nodes"] == "1"
        assert romio["romio_driver"].startswith("UFS") == (doc["fs"]["type"] in ("ext4", "ext2", "ext3", "tmpfs"))
    assert not list(tmp_path.glob("pario.stack-*")), "the probe left its file behind"
    backends = {b["name"] for b in doc["backends"]}
    assert {"posix", "mpiio"} <= backends
    table = _pario(["stack", str(tmp_path)], tmp_path, COLUMNS="120")
    assert table.returncode == 0 and "MPI-IO" in table.stdout and "ignores ROMIO hints" in table.stdout


def test_bench_names_the_file_system_as_stack_does(tmp_path):
    # issue 15: bench headers said "ext2/ext3" (stat's %T) where `pario stack` said ext4
    from pario.platform import host
    assert host.fs_type(str(tmp_path)) == fsinfo.describe(str(tmp_path))["type"]


def _missing_component():
    """An Open MPI io component name this Open MPI does not have (romio341 on Debian's 4.1)."""
    text = subprocess.run(["ompi_info", "--parsable"], capture_output=True, text=True).stdout
    have = set(re.findall(r"^mca:io:(\w+):version:", text, re.M))
    return next((c for c in ("romio341", "romio321") if c not in have), None), sorted(have)


@pytest.mark.e2e
@pytest.mark.skipif(not shutil.which("ompi_info"), reason="needs Open MPI")
def test_an_io_component_this_open_mpi_lacks_is_an_error_naming_the_others(tmp_path):
    missing, have = _missing_component()
    if missing is None:
        pytest.skip("this Open MPI has every io component pario knows")
    for argv in (["stack", str(tmp_path), "--io", missing],
                 ["bench", "-a", "mpiio", "-n", "1", "--io", missing, "--no-probe", "--dir", str(tmp_path / "s")]):
        out = _pario(argv, tmp_path, PARIO_ENGINE=ENGINE or "")
        assert out.returncode == 2, out.stdout + out.stderr
        assert out.stderr.count("\n") == 1 and f"--io {missing}" in out.stderr
        assert all(c in out.stderr for c in have), out.stderr
    assert not (tmp_path / "s").exists()


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not ENGINE, reason="needs PARIO_ENGINE")
def test_stack_exits_non_zero_when_its_mpi_probe_fails(tmp_path):
    # an MPI launcher that starts nothing: the probe runs and fails
    fake = tmp_path / "bin" / "mpirun"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'mpirun (Open MPI) 4.1.4'; exit 0; fi\n"
                    "echo 'MPI_ERR_INTERN: internal error' >&2; exit 1\n")
    fake.chmod(0o755)
    out = _pario(["stack", str(tmp_path), "--mpirun", str(fake)], tmp_path, PARIO_ENGINE=ENGINE)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "not measured" in out.stdout and "the MPI probe failed" in out.stderr
    assert "default MPI-IO" not in out.stdout
