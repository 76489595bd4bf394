"""The I/O libraries under the profiler (issue 29): programs whose HDF5, PnetCDF, NetCDF and ADIOS2
calls are known (tests/preload/*_known.c), run on 2 ranks, give exactly those counts; a statically
linked HDF5 is said, not silently missed; the log's library modules carry the counters
pario-counters lists; `pario profile show` prints the library tables above the others."""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from profile_support import PROGRAMS, ROOT, files, parts, preload_lib

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(not (shutil.which("mpicc") and shutil.which("mpirun")),
                                                  reason="no MPI (mpicc/mpirun) on PATH")]
RANKS = 2
NETCDF_MPI = "/usr/lib/x86_64-linux-gnu/netcdf/mpi"


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return preload_lib(tmp_path_factory)


def _run(lib, logs, argv, n=RANKS):
    cmd = ["mpirun", "-n", str(n), "--oversubscribe", "-x", f"LD_PRELOAD={lib}", "-x", f"PARIO_PROFILE_DIR={logs}"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    proc = subprocess.run(cmd + [str(a) for a in argv], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


def _build(tmp_path, name, cmd):
    exe = tmp_path / name
    # in tmp_path: h5pcc leaves its object file (h5_known.o) in the directory it runs in
    proc = subprocess.run([*cmd[:1], "-o", str(exe), str(PROGRAMS / f"{name}.c"), *cmd[1:]], capture_output=True,
                          text=True, cwd=tmp_path)
    if proc.returncode != 0:
        pytest.skip(f"cannot build {name}.c: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else '?'}")
    return exe


def _counters(rows, module, path, prefix):
    c = rows[(module, path)]["counters"]
    return {k[len(prefix) + 1:]: v for k, v in c.items() if k.startswith(prefix + "_") and v
            and not any(x in k for x in ("_RANK", "_F_", "NPROCS"))}


def _libraries(logs):
    return [d.get("libraries") for d in parts(logs)]


@pytest.mark.skipif(not shutil.which("h5pcc.openmpi"), reason="no parallel HDF5 (libhdf5-openmpi-dev)")
def test_hdf5_exact(lib, tmp_path):
    exe = _build(tmp_path, "h5_known", ["h5pcc.openmpi", "-shlib"])
    logs, target = tmp_path / "log", str(tmp_path / "out.h5")
    _run(lib, logs, [exe, target])
    rows = files(logs)
    n, row = RANKS, 8 * 512 * 8   # ranks; one rank's block of 8 rows of 512 doubles
    assert _counters(rows, "h5d", f"{target}:/rows", "H5D") == {
        "CREATES": n, "CLOSES": n, "WRITES": 8 * n, "BYTES_WRITTEN": 8 * n * 4096, "SELECT_REGULAR": 8 * n,
        "INDEP_REQUESTED": 8 * n, "SIZE_WRITE_1K_10K": 8 * n, "TYPE_SIZE": 8, "NDIMS": 2,
        "DATASET_SIZE": n * row, "FILE_OFFSET": rows[("h5d", f"{target}:/rows")]["counters"]["H5D_FILE_OFFSET"]}
    assert rows[("h5d", f"{target}:/rows")]["counters"]["H5D_FILE_OFFSET"] > 0
    block = _counters(rows, "h5d", f"{target}:/block", "H5D")
    assert {k: block[k] for k in ("CREATES", "OPENS", "CLOSES", "WRITES", "READS", "BYTES_WRITTEN", "BYTES_READ",
                                  "COLL_REQUESTED", "ACTUAL_CONTIG_COLL", "SELECT_REGULAR")} == {
        "CREATES": n, "OPENS": n, "CLOSES": 2 * n, "WRITES": n, "READS": n, "BYTES_WRITTEN": n * row,
        "BYTES_READ": n * row, "COLL_REQUESTED": 2 * n, "ACTUAL_CONTIG_COLL": 2 * n, "SELECT_REGULAR": 2 * n}
    conv = _counters(rows, "h5d", f"{target}:/conv", "H5D")   # floats into doubles: HDF5 breaks the collective
    assert {k: conv.get(k) for k in ("COLL_REQUESTED", "ACTUAL_NONE", "NOCOLL_TYPE_CONVERSION", "BYTES_WRITTEN")} == {
        "COLL_REQUESTED": n, "ACTUAL_NONE": n, "NOCOLL_TYPE_CONVERSION": n, "BYTES_WRITTEN": n * row // 2}
    chunks = _counters(rows, "h5d", f"{target}:/chunks", "H5D")
    assert chunks["CHUNK_SIZE"] == 512 * 8 and chunks["COLL_REQUESTED"] == n and chunks["ACTUAL_CHUNK_COLL"] == n
    assert rows[("h5d", f"{target}:/chunks")]["props"] == {"layout": "chunked", "dims": "16x512", "chunk": "1x512"}
    everything = _counters(rows, "h5d", f"{target}:/all", "H5D")   # rank 0 alone, H5S_ALL
    assert everything["SELECT_ALL"] == 1 and everything["WRITES"] == 1 and everything["BYTES_WRITTEN"] == 4096
    f = _counters(rows, "h5f", target, "H5F")
    assert {k: f.get(k, 0) for k in ("CREATES", "CLOSES", "MPIO", "ALIGNMENT", "COLL_MD_READS", "COLL_MD_WRITES",
                                     "WRITES", "READS")} == {
        "CREATES": n, "CLOSES": n, "MPIO": 1, "ALIGNMENT": 1, "COLL_MD_READS": 0, "COLL_MD_WRITES": 0,
        "WRITES": 8 * n + n + n + n + 1, "READS": n}
    libs = _libraries(logs)
    assert all(x["hdf5"]["state"] == "called" and x["hdf5"]["version"].startswith("1.") for x in libs)


@pytest.mark.skipif(not shutil.which("h5pcc.openmpi"), reason="no parallel HDF5 (libhdf5-openmpi-dev)")
def test_hdf5_static_link_is_said(lib, tmp_path):
    """h5pcc links libhdf5.a by default: the program calls HDF5 directly, never the wrappers; the
    log says HDF5 is linked into the executable, and show says the calls were not seen."""
    exe = _build(tmp_path, "h5_known", ["h5pcc.openmpi"])
    if "libhdf5" in subprocess.run(["ldd", str(exe)], capture_output=True, text=True).stdout:
        pytest.skip("h5pcc linked the shared HDF5 here")
    logs = tmp_path / "log"
    _run(lib, logs, [exe, tmp_path / "out.h5"])
    assert [x["hdf5"]["state"] for x in _libraries(logs)] == ["static"] * RANKS
    assert not any(m in d["modules"] for d in parts(logs) for m in ("h5f", "h5d"))
    shown = _show(logs)
    assert "linked into the executable: its calls go straight to it and are not seen" in shown


@pytest.mark.skipif(not os.path.exists("/usr/include/pnetcdf.h"), reason="no PnetCDF (libpnetcdf-dev)")
def test_pnetcdf_exact(lib, tmp_path):
    exe = _build(tmp_path, "pnc_known", ["mpicc", "-lpnetcdf"])
    logs, target = tmp_path / "log", str(tmp_path / "out.nc")
    _run(lib, logs, [exe, target])
    rows = files(logs)
    n, row = RANKS, 256 * 8
    var = lambda name: _counters(rows, "pnetcdf_var", f"{target}:{name}", "PNETCDF_VAR")  # noqa: E731
    assert var("rows") == {"INDEP_WRITES": 4 * n, "WRITES": 4 * n, "BYTES_WRITTEN": 4 * n * row, "NDIMS": 2,
                           "TYPE_SIZE": 8, "FILE_OFFSET": 4096, "SIZE_WRITE_1K_10K": 4 * n}
    block = var("block")
    assert {k: block[k] for k in ("COLL_WRITES", "COLL_READS", "BYTES_WRITTEN", "BYTES_READ")} == {
        "COLL_WRITES": n, "COLL_READS": n, "BYTES_WRITTEN": 4 * n * row, "BYTES_READ": 4 * n * row}
    nb = var("nb")
    assert {k: nb[k] for k in ("IPUTS", "BPUTS", "WRITES", "RECORD", "BYTES_WRITTEN")} == {
        "IPUTS": 4 * n, "BPUTS": 4 * n, "WRITES": 8 * n, "RECORD": 1, "BYTES_WRITTEN": 8 * n * row}
    many = var("many")
    assert many["VARN_CALLS"] == n and many["COLL_WRITES"] == n and many["BYTES_WRITTEN"] == 4 * n * row
    f = _counters(rows, "pnetcdf_file", target, "PNETCDF_FILE")
    assert {k: f[k] for k in ("CREATES", "CLOSES", "ENDDEFS", "INDEP_BEGINS", "WAITS", "WAIT_REQUESTS",
                              "MAX_WAIT_REQUESTS", "VAR_ALIGN", "BUFFER_SIZE", "WRITES", "READS")} == {
        "CREATES": n, "CLOSES": n, "ENDDEFS": n, "INDEP_BEGINS": n, "WAITS": 2 * n, "WAIT_REQUESTS": 8 * n,
        "MAX_WAIT_REQUESTS": 4, "VAR_ALIGN": 4096, "BUFFER_SIZE": 4 * row, "WRITES": 4 * n + n + 8 * n + n,
        "READS": n}
    assert f["HEADER_SIZE"] > 0 and f["HEADER_EXTENT"] >= f["HEADER_SIZE"]
    assert rows[("pnetcdf_file", target)]["hints"]["req:nc_var_align_size"] == "4096"
    # the version is the first word of ncmpi_inq_libvers ("1.12.3 of March 29, 2022")
    assert all(re.fullmatch(r"\d+(\.\d+)+", x["pnetcdf"]["version"]) for x in _libraries(logs)), _libraries(logs)


@pytest.mark.skipif(not os.path.exists(f"{NETCDF_MPI}/include/netcdf_par.h"), reason="no parallel NetCDF")
def test_netcdf4_exact(lib, tmp_path):
    exe = _build(tmp_path, "nc4_known", ["mpicc", f"-I{NETCDF_MPI}/include", f"-L{NETCDF_MPI}/lib", "-lnetcdf"])
    logs, target = tmp_path / "log", str(tmp_path / "out.nc")
    _run(lib, logs, [exe, target])
    rows = files(logs)
    n, row = RANKS, 128 * 8
    temp = _counters(rows, "netcdf_var", f"{target}:temp", "NETCDF_VAR")
    assert {k: temp.get(k) for k in ("COLL_WRITES", "WRITES", "BYTES_WRITTEN", "RECORD", "CHUNKED",
                                     "DEFAULT_CHUNKS", "PAR_ACCESS")} == {
        "COLL_WRITES": 3 * n, "WRITES": 3 * n, "BYTES_WRITTEN": 3 * n * row, "RECORD": 1, "CHUNKED": 1,
        "DEFAULT_CHUNKS": 1, "PAR_ACCESS": n}
    fixed = _counters(rows, "netcdf_var", f"{target}:fixed", "NETCDF_VAR")
    assert {k: fixed.get(k) for k in ("INDEP_WRITES", "INDEP_READS", "CHUNKED", "DEFAULT_CHUNKS", "CHUNK_SIZE")} == {
        "INDEP_WRITES": 4 * n, "INDEP_READS": n, "CHUNKED": 1, "DEFAULT_CHUNKS": None, "CHUNK_SIZE": row}
    f = _counters(rows, "netcdf_file", target, "NETCDF_FILE")
    assert {k: f[k] for k in ("CREATES", "CLOSES", "PARALLEL", "WRITES", "READS")} == {
        "CREATES": n, "CLOSES": n, "PARALLEL": 1, "WRITES": 7 * n, "READS": n}
    assert rows[("netcdf_file", target)]["props"] == {"format": "netcdf4"}
    classic = _counters(rows, "netcdf_file", target + ".classic", "NETCDF_FILE")   # rank 0, nc_create inside
    assert {k: classic.get(k) for k in ("CREATES", "WRITES", "BYTES_WRITTEN", "PARALLEL")} == {
        "CREATES": 1, "WRITES": 1, "BYTES_WRITTEN": 128 * 4, "PARALLEL": None}
    # the netCDF-4 file is HDF5 underneath: HDF5 saw the same puts
    assert _counters(rows, "h5d", f"{target}:/temp", "H5D")["WRITES"] == 3 * n
    assert "NetCDF (2 files, over HDF5 over MPI-IO over POSIX)" in _show(logs)
    # the version is the first word of nc_inq_libvers ("4.9.0 of Aug  7 2022 ...")
    assert all(re.fullmatch(r"\d+(\.\d+)+", x["netcdf"]["version"]) for x in _libraries(logs)), _libraries(logs)


def _adios2_config():
    found = sorted(glob.glob(os.path.expanduser("~/.cache/pario/adios2-*/bin/adios2-config")))
    return found[-1] if found else shutil.which("adios2-config")


@pytest.mark.skipif(not _adios2_config(), reason="no ADIOS2 (scripts/build-adios2.sh)")
def test_adios2_exact(lib, tmp_path):
    config = _adios2_config()
    flags = subprocess.run([config, "--c-flags", "-m"], capture_output=True, text=True).stdout.split()
    libs = subprocess.run([config, "--c-libs", "-m"], capture_output=True, text=True).stdout.split()
    exe = _build(tmp_path, "a2_known", ["mpicc", *flags, *libs])
    logs, target = tmp_path / "log", str(tmp_path / "out.bp")
    _run(lib, logs, [exe, target])
    rows = files(logs)
    n = RANKS
    field = _counters(rows, "adios2_var", f"{target}:field", "ADIOS2_VAR")
    assert field == {"PUTS_DEFERRED": 3 * n, "WRITES": 3 * n, "BYTES_WRITTEN": 3 * n * 8000, "NDIMS": 1,
                     "TYPE_SIZE": 8, "SIZE_WRITE_1K_10K": 3 * n}
    step = _counters(rows, "adios2_var", f"{target}:step", "ADIOS2_VAR")
    assert step == {"PUTS_SYNC": 3, "WRITES": 3, "BYTES_WRITTEN": 12, "TYPE_SIZE": 4, "SIZE_WRITE_0_100": 3}
    f = _counters(rows, "adios2_file", target, "ADIOS2_FILE")
    assert {k: f.get(k) for k in ("OPENS", "CLOSES", "BEGIN_STEPS", "END_STEPS", "PERFORM_PUTS",
                                  "NUM_AGGREGATORS")} == {
        "OPENS": n, "CLOSES": n, "BEGIN_STEPS": 3 * n, "END_STEPS": 3 * n, "PERFORM_PUTS": n, "NUM_AGGREGATORS": 1}
    assert rows[("adios2_file", target)]["props"]["engine"].lower() == "bp5"
    # the engine writes its directory through POSIX: the layers under ADIOS2 are named
    assert "ADIOS2 (1 file, over POSIX)" in _show(logs)


def test_library_modules_as_pario_counters_lists(lib, tmp_path):
    """Every library module a log carries has the names, kinds and operations pario-counters
    gives (check_counters.py checks the three others)."""
    here = os.path.dirname(lib)   # a build directory has both; an installed pario has lib/ and bin/
    tools = [os.path.join(here, "pario-counters"), os.path.join(os.path.dirname(here), "bin", "pario-counters")]
    tool = next((t for t in tools if os.path.exists(t)), None)
    if tool is None:
        pytest.skip(f"no pario-counters beside {lib}")
    table = json.loads(subprocess.run([tool], capture_output=True, text=True, check=True).stdout)["modules"]
    for name in ("h5f", "h5d", "pnetcdf_file", "pnetcdf_var", "netcdf_file", "netcdf_var", "adios2_file", "adios2_var"):
        assert name in table and all(r["doc"].strip() for r in table[name]["counters"] + table[name]["fcounters"])
    if not shutil.which("h5pcc.openmpi"):
        return
    exe = _build(tmp_path, "h5_known", ["h5pcc.openmpi", "-shlib"])
    logs = tmp_path / "log"
    _run(lib, logs, [exe, tmp_path / "out.h5"])
    for doc in parts(logs):
        for name, mod in doc["modules"].items():
            if name in ("h5f", "h5d"):
                assert mod["counters"] == [r["name"] for r in table[name]["counters"]]
                assert mod["kinds"] == [r["kind"] for r in table[name]["counters"]]
                assert mod["fops"] == [r["op"] for r in table[name]["fcounters"]]


def _show(logs) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="100")
    out = subprocess.run([sys.executable, "-m", "pario", "profile", "show", str(logs)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return " ".join(out.stdout.split())


def test_log_of_an_earlier_pario_still_reads():
    """A log written before the libraries were recorded (tests/python/data/profile: no
    'libraries', no library modules) reads as before; show says what it cannot know."""
    old = ROOT / "tests" / "python" / "data" / "profile" / "mpiio-coll-2ranks.log"
    assert "libraries" not in old.read_text()
    shown = _show(old)
    assert ("I/O came from: MPI-IO, stdio and POSIX calls of its own (this log was written by a pario that did "
            "not record HDF5, PnetCDF, NetCDF or ADIOS2 calls") in shown


def _pario(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="100")
    out = subprocess.run([sys.executable, "-m", "pario", *map(str, args)], capture_output=True, text=True, env=env,
                         timeout=timeout)
    return out


@pytest.fixture(scope="module")
def h5_logs(lib, tmp_path_factory):
    """The HDF5 program's log without and with collective metadata (the near-miss)."""
    if not shutil.which("h5pcc.openmpi"):
        pytest.skip("no parallel HDF5 (libhdf5-openmpi-dev)")
    tmp = tmp_path_factory.mktemp("h5")
    exe = _build(tmp, "h5_known", ["h5pcc.openmpi", "-shlib"])
    out = {}
    for mode in ("indep", "collmd"):
        _run(lib, tmp / mode, [exe, tmp / f"{mode}.h5", mode])
        out[mode] = tmp / mode
    return out


def test_advise_names_library_defects(h5_logs):
    """advise reads the library records: HDF5's reason for a broken collective (type conversion),
    fixed in HDF5's terms; metadata written independently not named where no rank reads it;
    data misaligned with the block, fixed with H5Pset_alignment as settings --verify replays."""
    found = {}
    for mode, logs in h5_logs.items():
        out = _pario("advise", logs, "--no-calibrate", "--json")
        assert out.returncode == 0, out.stderr
        job = json.loads(out.stdout)["jobs"][0]
        found[mode] = {f["rule"]: f for key in ("findings", "not_costed", "minor", "no_gain") for f in job[key]}
    broken = found["indep"]["hdf5-collective-broken"]
    assert "type conversion" in broken["evidence"]["text"] or "memory type differs" in broken["evidence"]["text"]
    assert "H5T_NATIVE_DOUBLE" in broken["fix"]["text"]
    # metadata independent, but no rank read it back (its 2 MPI-IO reads are the collective H5Dread):
    # HDF5's default costs nothing here; the finding where ranks do read it is test_advise_libs's hdf5-meta-indep
    assert "hdf5-independent-metadata" not in found["indep"] and "hdf5-independent-metadata" not in found["collmd"]
    aligned = found["indep"]["lib-misaligned-data"]
    assert aligned["fix"]["settings"] == {"hdf5.alignment": "4096", "hdf5.align_threshold": "4096"}
    assert "H5Pset_alignment" in aligned["fix"]["text"]
    assert "misaligned" not in found["indep"]   # the POSIX-level rule leaves HDF5's file to HDF5's rule


def test_tune_from_log_tunes_hdf5_knobs(h5_logs):
    out = _pario("tune", "--from-log", h5_logs["indep"], "--dry-run", timeout=120)
    if out.returncode != 0 and "no such setting" in out.stderr:
        pytest.skip("no engine to list the hdf5 layer's settings (set PARIO_ENGINE)")
    assert out.returncode == 0, out.stderr
    text = " ".join((out.stderr + out.stdout).split())
    assert "tuning the case taken from" in text and "-a hdf5" in text and "--lib coll_metadata=false" in text
    # the op of more time: h5_known writes 45 calls and reads 4 back, milliseconds each, so a loaded
    # machine may time its reads longer (seen here: 9.7 ms of reads against 7.2 ms of writes)
    assert "was written through HDF5" in text or "was read through HDF5" in text
    assert "hdf5.alignment:" in text   # the HDF5 layer's knobs are in the search space
