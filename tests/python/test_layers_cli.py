"""The library layers through `pario bench` end to end: --suite layers, every built backend x
write/read/verify x independent/collective (and iput/bput for pnetcdf) on 1, 2 and 4 ranks from
job files, kept files opened by the formats' own tools, examples/layers.toml at reduced size,
the new validation, and cleanup of a run whose rank dies."""
import re
import shutil
import subprocess

import pytest

from cli_support import BUILT_LAYERS, ENGINE, HAVE_MPIRUN, ROOT, assert_rejected, bench_json, ours, pario, write_job
from engine_support import tool

pytestmark = pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")
needs_layers = pytest.mark.skipif(not BUILT_LAYERS, reason="no I/O library layer is built into the engine")

MODES = {  # name suffix -> extra case keys
    "hdf5": {"ind": {}, "coll": {"collective": True},
             "coll-aligned": {"collective": True, "lib": {"alignment": "8k", "align_threshold": "4k"}}},
    "pnetcdf": {"ind": {}, "coll": {"collective": True}, "iput": {"collective": True, "lib": {"mode": "iput"}},
                "bput": {"collective": True, "lib": {"mode": "bput"}}, "iput-ind": {"lib": {"mode": "iput"}},
                "bput-ind": {"lib": {"mode": "bput", "nb_batch": 2}}},
    "netcdf4": {"ind": {}, "coll": {"collective": True}, "fill": {"collective": True, "lib": {"fill": "fill"}}},
    "adios2": {"default": {}, "agg1": {"lib": {"NumAggregators": 1}}},  # BP5 has no collective switch
}
GEOMETRY = {"contig": {"transfer": "4k", "block": "16k", "segments": 1},
            "strided": {"transfer": "4k", "block": "8k", "segments": 3}}


def matrix():
    cases = []
    for backend in BUILT_LAYERS:
        for mode, extra in MODES[backend].items():
            for geo, sizes in GEOMETRY.items():
                cases.append({"name": f"{backend}-{mode}-{geo}", "backend": backend, **sizes, **extra})
    return cases


@pytest.mark.e2e
@pytest.mark.mpi
@needs_layers
@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_every_layer_mode_through_a_job_file(tmp_path, ranks):
    cases = matrix()
    job = write_job(tmp_path / "job.toml", cases,
                    {"strategy": "shared", "ops": ["write", "read", "verify"], "reps": 1})
    scratch = tmp_path / "scratch"
    run, doc = bench_json(["--config", str(job), "-n", str(ranks), "--dir", str(scratch)], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert doc["status"] == "complete"
    rows = {r["name"]: r for r in doc["summary"]}
    results = {c["name"]: c for c in doc["result"]["cases"]}
    assert set(rows) == {c["name"] for c in cases}
    for c in cases:
        row, res = rows[c["name"]], results[c["name"]]
        assert row["write"]["n"] == row["read"]["n"] == 1, c["name"]
        v = row["verify"]  # the timed read is checked too: two checked phases
        assert v["errors"] == 0 and v["phases"] == 2 and v["checked_bytes"] == 2 * res["total_bytes"], c["name"]
        assert res["spec"]["backend"] == c["backend"] and res["spec"]["collective"] == bool(c.get("collective"))
        assert row["lib"]["name"] == c["backend"] and row["lib"]["version"]
        assert row["lib"]["requested"] == {k: str(v) for k, v in (c.get("lib") or {}).items()}
        eff = row["lib"]["effective"]
        if c["backend"] == "hdf5" and c.get("collective"):
            assert eff["actual_io_mode"] != "no_collective", (c["name"], eff)  # collective really happened
        if c["backend"] == "pnetcdf":
            assert eff["mode"] == (c.get("lib") or {}).get("mode", "blocking")
        if c["backend"] == "netcdf4":
            assert eff["par_access"] == ("collective" if c.get("collective") else "independent")
    assert doc["result"]["libraries"].keys() >= set(BUILT_LAYERS)
    assert not ours(scratch), "a run left files behind"


@pytest.mark.e2e
@pytest.mark.mpi
@needs_layers
def test_suite_layers_prints_each_built_layer_with_its_ratio(tmp_path):
    scratch = tmp_path / "scratch"
    run = pario(["--suite", "layers", "-n", "2", "--size", "2m", "--dir", str(scratch), "--no-probe"], tmp_path,
                timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "layers suite: " in run.stderr and "3 reps" in run.stderr
    out = run.stdout
    assert "each I/O layer against raw MPI-IO collective" in out
    expected = ["mpiio-coll", "mpiio-indep"] + [n for n, be in (
        ("hdf5-coll", "hdf5"), ("hdf5-indep", "hdf5"), ("pnetcdf-coll", "pnetcdf"), ("pnetcdf-iput", "pnetcdf"),
        ("pnetcdf-bput", "pnetcdf"), ("netcdf4-coll", "netcdf4"), ("netcdf4-indep", "netcdf4"),
        ("adios2", "adios2")) if be in BUILT_LAYERS]
    for name in expected:
        line = next((ln for ln in out.splitlines() if ln.strip().startswith(name + " ")), None)
        assert line, f"no row for {name} in\n{out}"
        if name != "mpiio-coll":
            assert re.search(r"\d+\.\d\dx", line), f"no ratio in the row of {name}: {line}"
    if "pnetcdf" in BUILT_LAYERS:
        assert "iput vs blocking: write" in out and "bput vs blocking: write" in out
    for missing in set(("hdf5", "pnetcdf", "netcdf4", "adios2")) - set(BUILT_LAYERS):
        assert f"{missing}: not built" in out
    assert "Libraries: " in out
    assert not ours(scratch)


@pytest.mark.e2e
@pytest.mark.mpi
@needs_layers
def test_suite_layers_json_has_ratios_on_the_same_bytes(tmp_path):
    run, doc = bench_json(["--suite", "layers", "-n", "2", "--size", "1m", "-i", "3", "-w", "-r",
                           "--dir", str(tmp_path / "s")], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    sizes = {r["name"]: r["bytes"] for r in doc["summary"]}
    assert len(set(sizes.values())) == 1, sizes  # every layer moved the same bytes
    assert all(r["write"]["n"] == 3 and r["read"]["n"] == 3 for r in doc["summary"])
    assert all(c["spec"]["ops"] == ["write", "read"] for c in doc["result"]["cases"])
    for r in doc["summary"]:
        assert r["vs_mpiio"]["baseline"] == "mpiio-coll"
        if r["name"] != "mpiio-coll":
            want = r["write"]["bw_mib"]["median"] / sizes_row(doc, "mpiio-coll")["write"]["bw_mib"]["median"]
            assert r["vs_mpiio"]["write"] == pytest.approx(want)
        if r["name"] in ("pnetcdf-iput", "pnetcdf-bput"):
            assert r["vs_blocking"]["read"] > 0
    assert doc["result"]["cases"][0]["spec"]["strategy"] == "shared"
    assert {c["spec"]["xfer"] for c in doc["result"]["cases"]} == {min(1 << 20, c["spec"]["block"])
                                                                    for c in doc["result"]["cases"]}


def sizes_row(doc, name):
    return next(r for r in doc["summary"] if r["name"] == name)


FORMAT_TOOLS = {"hdf5": ("h5dump", ["-H"]), "pnetcdf": ("ncmpidump", ["-h"]), "netcdf4": ("ncdump", ["-h"]),
                "adios2": ("bpls", ["-l"])}


@pytest.mark.e2e
@pytest.mark.mpi
@needs_layers
def test_kept_files_are_valid_files_of_their_format(tmp_path):
    cases = [{"name": f"keep-{be}", "backend": be, "transfer": "4k", "block": "8k", "segments": 2, "keep": True}
             for be in BUILT_LAYERS]
    job = write_job(tmp_path / "job.toml", cases, {"ops": ["write", "verify"], "reps": 1})
    scratch = tmp_path / "scratch"
    run, doc = bench_json(["--config", str(job), "-n", "2", "--dir", str(scratch)], tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    prefix = f"pario.{doc['engine_run_id']}"
    elements = 2 * 8192 * 2 // 8  # ranks x block x segments / 8-byte elements
    try:
        for i, c in enumerate(cases):
            path = scratch / f"{prefix}.{i}.0"
            assert path.exists(), f"{c['name']}: {path} was not kept"
            name, flags = FORMAT_TOOLS[c["backend"]]
            exe = tool(name) or (tool("ncdump") if name == "ncmpidump" else None)
            if not exe:
                continue  # the set-up installs them; without them the engine tests say so
            out = subprocess.run([exe, *flags, str(path)], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert str(elements) in out.stdout, f"{c['backend']}: {elements} elements not in\n{out.stdout}"
    finally:
        for entry in ours(scratch):
            p = scratch / entry
            shutil.rmtree(p) if p.is_dir() else p.unlink()


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(set(BUILT_LAYERS) != {"hdf5", "pnetcdf", "netcdf4", "adios2"}, reason="needs all four layers")
def test_example_layers_job_at_reduced_size(tmp_path):
    scratch = tmp_path / "scratch"
    run, doc = bench_json(["--config", str(ROOT / "examples" / "layers.toml"), "-n", "2", "-b", "1m", "-i", "1",
                           "--dir", str(scratch)], tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {r["name"]: r for r in doc["summary"]}
    assert rows["hdf5-coll-aligned"]["lib"]["effective"]["alignment"] == str(1 << 20)
    assert rows["adios2-1agg"]["lib"]["requested"] == {"NumAggregators": "1"}
    assert rows["pnetcdf-bput"]["lib"]["effective"]["mode"] == "bput"
    assert all(r["bytes"] == 2 << 20 and r["verify"]["errors"] == 0 for r in rows.values())
    assert not ours(scratch)


REJECT = [
    (["-a", "adios2", "-c"], "ADIOS2 BP5 has no collective/independent choice"),
    (["-a", "adios2", "--hint", "romio_cb_write=enable"], "ADIOS2 takes BP5 parameters"),
    (["-a", "hdf5", "--lib", "alignmnt=1m"], "did you mean alignment?"),
    (["-a", "adios2", "--lib", "NumAgregators=2"], "did you mean NumAggregators?"),
    (["-a", "hdf5", "--lib", "chunk_opt=two"], "chunk_opt is one of default, one, multi"),
    (["-a", "hdf5", "--lib", "coll_metadata=maybe"], "coll_metadata is one of true, false"),
    (["-a", "hdf5", "--lib", "libver=newest"], "libver is one of earliest, latest"),
    (["-a", "hdf5", "--lib", "chunk=1,2"], "--lib chunk=1,2"),
    (["-a", "hdf5", "--lib", "align_threshold=1m"], "align_threshold needs --lib alignment"),
    (["-a", "hdf5", "--lib", "meta_block_size=lots"], "a size in bytes"),
    (["-a", "pnetcdf", "--lib", "mode=xput"], "mode is one of blocking, iput, bput"),
    (["-a", "pnetcdf", "--lib", "nb_batch=4"], "nb_batch applies to the non-blocking modes"),
    (["-a", "pnetcdf", "--lib", "mode=iput", "--lib", "nb_batch=0"], "a number of requests >= 1"),
    (["-a", "netcdf4", "--lib", "fill=maybe"], "fill is one of nofill, fill"),
    (["-a", "posix", "--lib", "mode=iput"], "apply to the library layers"),
    (["-a", "mpiio", "--lib", "alignment=1m"], "the mpiio backend takes none"),
    (["-a", "hdf5", "--lib", "alignment"], "write KEY=VALUE"),
    (["-a", "netcdf4", "--odirect"], "--odirect is a POSIX setting"),
    (["--suite", "layers", "-a", "hdf5"], "--suite runs its own cases"),
]


@pytest.mark.e2e
@pytest.mark.parametrize("args,match", REJECT, ids=[" ".join(a) for a, _ in REJECT])
def test_bad_layer_input_is_one_line(tmp_path, args, match):
    assert_rejected(args, match, tmp_path)


@pytest.mark.e2e
@pytest.mark.mpi
def test_lib_keys_are_matched_without_case_and_sent_in_the_librarys_spelling(tmp_path):
    if "adios2" not in BUILT_LAYERS:
        pytest.skip("adios2 not built")
    run, doc = bench_json(["-a", "adios2", "--lib", "numaggregators=1", "-t", "4k", "-b", "8k", "-i", "1",
                           "-n", "2", "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr
    assert doc["result"]["cases"][0]["lib"]["requested"] == {"NumAggregators": "1"}


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif("adios2" not in BUILT_LAYERS, reason="adios2 not built")
def test_a_dying_rank_leaves_no_bp5_directory(tmp_path):
    # ADIOS2's BP5 output is a directory that rank 0 creates at open: it survives the engine's death
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "users-file").write_text("not pario's")
    run, doc = bench_json(["-a", "adios2", "-t", "4k", "-b", "64k", "-i", "2", "-n", "2", "--dir", str(scratch)],
                          tmp_path, extra_env={"PARIO_FAULT": "die:1"}, timeout=120)
    assert run.returncode == 1, run.stderr
    assert doc["status"] in ("partial", "failed")
    assert ours(scratch) == ["users-file"]


def test_a_library_not_built_is_left_out_with_how_to_get_it():
    import sys
    sys.path.insert(0, str(ROOT / "src"))
    from pario.plan import layers
    listing = {"backends": [{"name": "mpiio", "built": True}, {"name": "hdf5", "built": True, "version": "1"},
                            {"name": "adios2", "built": False, "missing": "ADIOS2 not found"}]}
    names = [c["name"] for c in layers.suite_cases(1 << 20, ["write", "read"], 3, listing)]
    assert names == ["mpiio-coll", "mpiio-indep", "hdf5-coll", "hdf5-indep"]
    notes = layers.missing_notes(listing)
    assert any(n.startswith("adios2 not built") and "scripts/build-adios2.sh" in n for n in notes)
    assert any("apt-get install libpnetcdf-dev" in n for n in notes)
    assert not any(n.startswith("hdf5") for n in notes)


@pytest.mark.e2e
@pytest.mark.mpi
@needs_layers
def test_layers_table_names_what_is_not_built(tmp_path):
    """Rendered from a real run with one library taken out, as on a machine without it."""
    import sys
    sys.path.insert(0, str(ROOT / "src"))
    from rich.console import Console

    from pario.analysis import summary
    from pario.report.terminal import layers as tables_layers
    run, doc = bench_json(["--suite", "layers", "-n", "1", "--size", "256k", "-i", "1", "-w",
                           "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    result = doc["result"]
    gone = BUILT_LAYERS[-1]
    result["cases"] = [c for c in result["cases"] if c["spec"]["backend"] != gone]
    result["libraries"].pop(gone)
    console = Console(record=True, width=200)
    tables_layers.print_bench(console, summary.summarize(result, {}), result)
    text = console.export_text()
    assert f"{gone}: not built, no row:" in text and f"\n {gone}-" not in text
    assert "mpiio-coll" in text and "baseline" in text


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif("pnetcdf" not in BUILT_LAYERS, reason="pnetcdf not built")
def test_pnetcdf_iput_when_the_data_ring_wraps_twice(tmp_path):
    # 8 calls of 1 MiB over a 4 MiB data ring: every slot is posted twice before wait_all
    run, doc = bench_json(["-a", "pnetcdf", "--lib", "mode=iput", "-t", "1m", "-b", "8m", "--buffer", "4m",
                           "-n", "1", "-i", "1",
                           "-w", "-W", "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert doc["summary"][0]["verify"]["errors"] == 0
