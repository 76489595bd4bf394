"""The library layers (hdf5, pnetcdf, netcdf4, adios2) in the engine alone: every backend x
write/read/verify x independent/collective (and non-blocking iput/bput for pnetcdf) x patterns
on 1, 2 and 4 ranks, one engine launch per rank count. The kept files are opened with the
format's own tools (h5dump, ncmpidump/ncdump, bpls) for their shape, and their data is compared
with the bytes the mpiio backend writes for the same case: the same logical global array."""
import re
import shutil
import struct
import subprocess

import pytest

from engine_support import ENGINE, HAVE_MPIRUN, LAYERS, layer_built, prefix_for, run_engine, tool, why_not_built

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")]

MODES = {
    "hdf5": {"ind": {}, "coll": {"collective": True},
             "chunked": {"collective": True, "lib": {"chunk": "block", "alignment": "64k", "chunk_opt": "one"}},
             "chunked-ind": {"lib": {"chunk": "block", "coll_metadata": False}}},
    "pnetcdf": {"ind": {}, "coll": {"collective": True},
                "iput-ind": {"lib": {"mode": "iput"}}, "iput-coll": {"collective": True, "lib": {"mode": "iput"}},
                "bput-ind": {"lib": {"mode": "bput"}}, "bput-coll": {"collective": True, "lib": {"mode": "bput"}},
                # a batch smaller than a phase and a data ring of 2 calls: reads into a busy buffer wait first
                "iput-batch": {"collective": True, "lib": {"mode": "iput", "nb_batch": 3}, "buffer_max": 2 * 4096},
                "aligned": {"collective": True, "lib": {"header_align": "4k", "var_align": "64k"}}},
    "netcdf4": {"ind": {}, "coll": {"collective": True},
                "chunked": {"collective": True, "lib": {"chunk": "block", "fill": "fill"}}},
    # ADIOS2 has no collective/independent choice: BP5 aggregates by itself
    "adios2": {"ind": {}, "aggregated": {"lib": {"NumAggregators": 2, "AggregationType": "EveryoneWrites"}}},
}
PATTERNS = {
    "seg": {"pattern": "segmented", "xfer": 4096, "block": 16384, "segments": 3},
    "segview": {"pattern": "segmented", "xfer": 4096, "block": 16384, "segments": 2, "view": True},
    "sub": {"pattern": "subarray", "ldims": [6, 10]},                            # one row per call
    "subview": {"pattern": "subarray", "ldims": [4, 6, 5], "xfer": 8 * 24, "view": True},  # partial rows
}
# kept for the format tools and the byte comparison with mpiio
KEEP = {"seg": {"pattern": "segmented", "xfer": 4096, "block": 8192, "segments": 2},
        "sub": {"pattern": "subarray", "ldims": [3, 4], "xfer": 8 * 6, "view": True}}
BUILT = [name for name in LAYERS if layer_built(name)]


def cases():
    out = []
    for be in BUILT:
        for mode, extra in MODES[be].items():
            for pat, geo in PATTERNS.items():
                c = {"name": f"{be}-{mode}-{pat}", "backend": be, "strategy": "shared",
                     "ops": ["write", "read", "verify"], "reps": 1, **geo}
                if mode == "iput-batch" and pat.startswith("sub"):
                    continue
                for k, v in extra.items():
                    c[k] = v
                out.append(c)
    for be in ["mpiio"] + BUILT:
        for pat, geo in KEEP.items():
            out.append({"name": f"keep-{be}-{pat}", "backend": be, "strategy": "shared", "ops": ["write", "verify"],
                        "reps": 1, "keep": True, **geo, **({"collective": True} if be != "adios2" else {})})
    return out


@pytest.fixture(scope="module", params=[1, 2, 4], ids=lambda n: f"{n}ranks")
def run(request, tmp_path_factory):
    if not BUILT:
        pytest.skip(why_not_built("hdf5"))
    tmp = tmp_path_factory.mktemp(f"layers{request.param}")
    spec = cases()
    proc, doc = run_engine(tmp, spec, n=request.param)
    assert proc.returncode == 0, proc.stderr[-2000:]
    kept = {c["name"]: tmp / f"{prefix_for(tmp)}.{i}.0" for i, c in enumerate(spec) if c.get("keep")}
    yield {"n": request.param, "doc": doc, "spec": spec, "kept": kept, "dir": tmp}
    for path in kept.values():  # the test removes what it asked the engine to keep
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def by_name(doc):
    return {c["name"]: c for c in doc["cases"]}


def test_every_combination_verifies(run):
    doc = run["doc"]
    assert doc["status"] == "complete"
    assert set(BUILT) <= set(doc["libraries"])
    got = by_name(doc)
    assert set(got) == {c["name"] for c in run["spec"]}
    for c in run["spec"]:
        r = got[c["name"]]
        ops = [p["op"] for p in r["phases"]]
        assert ops == c["ops"], c["name"]
        for p in r["phases"]:
            assert p["bytes"] == r["total_bytes"] > 0, c["name"]
            if p["op"] != "write":
                assert p["verify"]["errors"] == 0, (c["name"], p["verify"])
            if p["op"] == "verify":
                assert p["verify"]["checked_bytes"] == r["total_bytes"], c["name"]


def as_text(value):
    """How the engine echoes a lib value: JSON booleans as true/false, integers in decimal."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def test_library_records(run):
    got = by_name(run["doc"])
    for c in run["spec"]:
        if c["backend"] not in LAYERS:
            continue
        lib = got[c["name"]]["lib"]
        assert lib["name"] == c["backend"] and re.match(r"\d+\.\d+", lib["version"])
        assert lib["requested"] == {k: as_text(v) for k, v in c.get("lib", {}).items()}
        eff = lib["effective"]
        settings = c.get("lib", {})
        if c["backend"] == "hdf5":
            chunked = "chunk" in settings
            assert eff["layout"] == ("chunked" if chunked else "contiguous")
            assert eff["coll_metadata_ops"] == ("false" if settings.get("coll_metadata") is False else "true")
            assert eff["alignment"] == ("65536" if "alignment" in settings else "1")
            # HDF5 says what it did with a collective call; an independent one has no mode
            if c.get("collective"):
                assert eff["actual_io_mode"] == ("chunk_collective" if chunked else "contiguous_collective"), eff
                assert eff["no_collective_cause"] == "0x0"
            else:
                assert "actual_io_mode" not in eff
        elif c["backend"] == "pnetcdf":
            assert eff["mode"] == c.get("lib", {}).get("mode", "blocking")
            assert int(eff["var_offset"]) >= int(eff["header_size"]) > 0
            if "var_align" in settings:  # the hint went through MPI_Info and PnetCDF applied it
                assert int(eff["var_offset"]) % 65536 == 0 and int(eff["header_extent"]) >= 4096
        elif c["backend"] == "netcdf4":
            assert eff["par_access"] == ("collective" if c.get("collective") else "independent")
            assert eff["fill"] == settings.get("fill", "nofill")
            assert eff["storage"] == ("chunked" if "chunk" in settings else "contiguous")
        elif c["backend"] == "adios2":
            assert eff["engine"].startswith("BP5")
            for key, value in settings.items():
                assert eff[key] == as_text(value)


def expected_dims(r):
    if r["spec"]["pattern"] == "subarray":
        return [n * g for n, g in zip(r["spec"]["ldims"], r["grid"])]
    return [r["file_bytes"] // 8]


def tool_output(argv):
    if not argv[0]:
        pytest.skip("format tool not installed")
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_files_open_with_the_format_tools(run):
    got = by_name(run["doc"])
    checked = 0
    for name, path in run["kept"].items():
        be = got[name]["spec"]["backend"]
        dims = expected_dims(got[name])
        assert path.exists(), name
        if be == "hdf5":
            out = tool_output([tool("h5dump"), "-H", str(path)])
            assert 'DATASET "data"' in out and "H5T_STD_U64LE" in out
            assert "SIMPLE { ( " + ", ".join(map(str, dims)) + " )" in out, out
        elif be in ("pnetcdf", "netcdf4"):
            dump = tool("ncmpidump") if be == "pnetcdf" else tool("ncdump")
            out = tool_output([dump, "-h", str(path)])
            for d, size in enumerate(dims):
                assert re.search(rf"\bd{d} = {size} ;", out), out
            assert re.search(r"uint64 data\(" + ", ".join(f"d{d}" for d in range(len(dims))) + r"\)", out), out
            kind = tool_output([tool("ncdump"), "-k", str(path)]).strip() if tool("ncdump") else None
            assert kind in (None, "cdf5" if be == "pnetcdf" else "netCDF-4"), kind
        elif be == "adios2":
            out = tool_output([tool("bpls"), "-l", str(path)])
            assert re.search(r"uint64_t\s+data\s+\{" + ", ".join(map(str, dims)) + r"\}", out), out
        else:
            continue
        checked += 1
    assert checked == len(run["kept"]) - len(KEEP)  # every layer's files, mpiio's are the reference


def layer_words(be, path, r, tmp):
    """The global array of a kept layer file, as little-endian words, read with the format's tools."""
    if be in ("hdf5", "netcdf4"):  # NetCDF-4 files are HDF5 files: h5dump reads the variable
        out = tmp / (path.name + ".bin")
        tool_output([tool("h5dump"), "-d", "/data", "-b", "LE", "-o", str(out), str(path)])
        data = out.read_bytes()
        out.unlink()
        return data
    if be == "pnetcdf":  # CDF-5: big-endian, the variable at the offset PnetCDF reported
        off = int(r["lib"]["effective"]["var_offset"])
        raw = path.read_bytes()[off:off + r["file_bytes"]]
        n = len(raw) // 8
        return struct.pack(f"<{n}Q", *struct.unpack(f">{n}Q", raw))
    text = tool_output([tool("bpls"), "-d", str(path), "data"])
    values = [int(v) for line in text.splitlines()[1:] for v in re.sub(r"\([^)]*\)", " ", line).split()]
    return struct.pack(f"<{len(values)}Q", *values)


def test_same_global_array_as_mpiio(run):
    got = by_name(run["doc"])
    for pat in KEEP:
        ref = run["kept"][f"keep-mpiio-{pat}"].read_bytes()
        assert len(ref) == got[f"keep-mpiio-{pat}"]["file_bytes"]
        for be in BUILT:
            name = f"keep-{be}-{pat}"
            data = layer_words(be, run["kept"][name], got[name], run["dir"])
            assert data == ref, f"{name}: the layer's global array differs from mpiio's bytes"


def test_nothing_else_left(run):
    names = {p.name for p in run["dir"].iterdir()}
    assert names == {"spec.json", "result.json"} | {p.name for p in run["kept"].values()}


@pytest.mark.parametrize("backend,extra,message", [
    ("hdf5", {"lib": {"no_such_key": 1}}, 'backend hdf5 has no lib setting "no_such_key" (known: alignment'),
    ("hdf5", {"lib": {"chunk": "1,2,3"}}, "hdf5 chunk must be none, block or 1 comma-separated element counts"),
    ("pnetcdf", {"lib": {"mode": "async"}}, "pnetcdf mode must be blocking, iput or bput"),
    ("pnetcdf", {"lib": {"nb_batch": 4}}, "pnetcdf nb_batch applies to mode iput or bput"),
    ("netcdf4", {"lib": {"fill": "maybe"}}, "netcdf4 fill must be nofill or fill"),
    ("adios2", {"collective": True}, "collective needs a backend with collective calls"),
    ("adios2", {"hints": {"cb_nodes": "1"}}, "hints apply to MPI-IO backends only"),
    ("mpiio", {"lib": {"alignment": 4096}}, "backend mpiio has no lib setting"),
])
def test_bad_settings_are_one_clear_line(tmp_path, backend, extra, message):
    if backend in LAYERS and not layer_built(backend):
        pytest.skip(why_not_built(backend))
    c = {"name": "bad", "backend": backend, "strategy": "shared", "ops": ["write"], "reps": 1,
         **PATTERNS["seg"], **extra}
    proc, doc = run_engine(tmp_path, [c], n=1)
    assert proc.returncode == 2
    assert doc["status"] == "failed" and doc["error"]["code"] == "spec"
    assert message in doc["error"]["message"], doc["error"]["message"]
    assert "\n" not in doc["error"]["message"]
    assert {p.name for p in tmp_path.iterdir()} == {"spec.json", "result.json"}
