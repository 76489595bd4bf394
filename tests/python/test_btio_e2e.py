"""--pattern btio end to end: NAS BTIO's decomposition through MPI-IO (collective and independent,
the view a struct of per-cell subarrays) and PnetCDF (put_vara_all per cell, iput + wait_all per
step) on 1 and 4 ranks, read back and verified by the engine, and the kept file read here, word by
word, against BTIO's layout computed independently in this file (the owner of every grid point
and its place in that rank's data). Plus the checks made before anything runs."""
import json
import math
import struct

import pytest

from cli_support import BUILT_LAYERS, ENGINE, HAVE_MPIRUN, bench_json, ours, pario

pytestmark = pytest.mark.skipif(not ENGINE or not HAVE_MPIRUN, reason="pario-engine or mpirun not found (build it)")

MASK = (1 << 64) - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def data_word(seed, writer, word):
    """csrc/pattern/datagen.c: word `word` of rank `writer`'s stream."""
    key = _mix(seed ^ _mix(((writer & 0xFFFFFFFF) + 0x632BE59BD9B4E019) & MASK))
    return _mix((key + word * 0x9E3779B97F4A7C15) & MASK)


def slabs(n, p):
    """Slab bounds: n points over p slabs, the first n % p one point larger (NPB make_set)."""
    bounds = [0]
    for k in range(p):
        bounds.append(bounds[-1] + n // p + (k < n % p))
    return bounds


def expected_words(grid, steps, ranks, seed):
    """{word index in the record array: expected word} of BTIO's file, from the decomposition rule."""
    p = math.isqrt(ranks)
    b = [slabs(n, p) for n in grid]
    nx, ny, nz = grid

    def size(d, k):
        return b[d][k + 1] - b[d][k]

    def cell_words(m, c):  # rank m's cell c: x = (m % p + c) % p, y = (m // p - c) mod p, z = c
        return size(0, (m % p + c) % p) * size(1, (m // p - c) % p) * size(2, c) * 5

    step_words = {m: sum(cell_words(m, c) for c in range(p)) for m in range(ranks)}
    out = {}
    for s in range(steps):
        for z in range(nz):
            iz = next(k for k in range(p) if z < b[2][k + 1])
            for y in range(ny):
                iy = next(k for k in range(p) if y < b[1][k + 1])
                for x in range(nx):
                    ix = next(k for k in range(p) if x < b[0][k + 1])
                    owner = ((iy + iz) % p) * p + (ix - iz) % p
                    pos = sum(cell_words(owner, c) for c in range(iz))
                    pos += (((z - b[2][iz]) * size(1, iy) + (y - b[1][iy])) * size(0, ix) + (x - b[0][ix])) * 5
                    for e in range(5):
                        word = (((s * nz + z) * ny + y) * nx + x) * 5 + e
                        out[word] = data_word(seed, owner, s * step_words[owner] + pos + e)
    return out


LAYERS = [("mpiio-coll", ["-a", "mpiio", "-c"]), ("mpiio-indep", ["-a", "mpiio"]),
          ("pnetcdf-blocking", ["-a", "pnetcdf", "-c"]),
          ("pnetcdf-iput", ["-a", "pnetcdf", "-c", "--lib", "mode=iput"])]


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.parametrize("ranks", [1, 4])
@pytest.mark.parametrize("name,args", LAYERS, ids=[n for n, _ in LAYERS])
def test_btio_file_has_btios_layout(tmp_path, name, args, ranks):
    if "pnetcdf" in args and "pnetcdf" not in BUILT_LAYERS:
        pytest.skip("pnetcdf not built")
    grid, steps, seed = (7, 5, 6), 2, 11  # 7, 5, 6 points do not divide by 2 cells: uneven slabs, as in BTIO
    scratch = tmp_path / "s"
    run, doc = bench_json([*args, "--pattern", "btio", "--grid", "x".join(map(str, grid)), "--steps", str(steps),
                           "-G", str(seed), "-w", "-r", "-W", "-i", "2", "-k", "-n", str(ranks), "--dir", str(scratch)],
                          tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    case = doc["result"]["cases"][0]
    assert case["spec"]["pattern"] == "btio" and case["spec"]["view"] is True
    assert case["spec"]["grid_points"] == list(grid) and case["spec"]["steps"] == steps
    assert case["btio_cells"] == math.isqrt(ranks)
    record = grid[0] * grid[1] * grid[2] * 40
    assert case["total_bytes"] == record * steps and case["ops_per_rank"] == steps
    row = doc["summary"][0]
    assert row["verify"]["errors"] == 0 and row["verify"]["checked_bytes"] == 2 * 2 * record * steps
    path = scratch / f"pario.{doc['engine_run_id']}.0.0"
    data = path.read_bytes()
    if "pnetcdf" in args:  # CDF-5 big-endian words after the header, at the offset PnetCDF reported
        base, fmt = int(case["lib"]["effective"]["var_offset"]), ">Q"
    else:
        base, fmt = 0, "<Q"
    assert len(data) >= base + record * steps
    want = expected_words(grid, steps, ranks, seed)
    bad = [w for w, v in want.items() if struct.unpack_from(fmt, data, base + 8 * w)[0] != v]
    assert not bad, f"{len(bad)} of {len(want)} words not where BTIO puts them, first at word {bad[0]}"
    path.unlink()
    assert not ours(scratch)


@pytest.mark.e2e
@pytest.mark.mpi
def test_btio_class_sets_grid_and_records(tmp_path):
    run, doc = bench_json(["-a", "mpiio", "-c", "--pattern", "btio", "--class", "S", "--steps", "2", "-w", "-i", "1",
                           "-n", "4", "--dir", str(tmp_path / "s")], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    spec = doc["result"]["cases"][0]["spec"]
    assert spec["grid_points"] == [12, 12, 12] and spec["steps"] == 2
    assert json.dumps(spec).count("xfer") == 0  # a btio call is one step of a rank's cells, not a transfer size


REJECT = [  # (arguments, ranks, what the one line says)
    (["-a", "mpiio", "--pattern", "btio"], 2, "needs a square number of ranks"),
    (["-a", "posix", "--pattern", "btio"], 4, "runs through -a mpiio"),
    (["-a", "hdf5", "--pattern", "btio"], 4, "runs through -a mpiio"),
    (["-a", "mpiio", "--pattern", "btio", "-t", "1m"], 4, "'transfer' does not apply to --pattern btio"),
    (["-a", "mpiio", "--pattern", "btio", "--class", "Q"], 4, "NAS classes are S, W, A, B, C, D, E"),
    (["-a", "mpiio", "--grid", "12x12x12"], 4, "applies to --pattern btio only"),
    (["-a", "mpiio", "--pattern", "btio", "--grid", "3x3x3"], 16, "at least 4 points"),
    (["-a", "mpiio", "--pattern", "btio", "--grid", "8x8"], 4, "give x, y and z points"),
    (["-a", "mpiio", "--pattern", "btio", "-Q", "1"], 4, "reads back each rank's own cells"),
    (["-a", "mpiio", "--pattern", "btio", "-F"], 4, "writes one shared file"),
    (["-a", "mpiio", "--pattern", "btio", "--no-view"], 4, "drop --no-view"),
]


@pytest.mark.e2e
@pytest.mark.parametrize("args,ranks,match", REJECT, ids=[" ".join(a) for a, _, _ in REJECT])
def test_bad_btio_input_is_one_line(tmp_path, args, ranks, match):
    """Exit 2, one line naming the problem, nothing created (cli_support.assert_rejected with this -n)."""
    scratch = tmp_path / "scratch"
    run = pario([*args, "-n", str(ranks), "--dir", str(scratch), "--no-probe"], tmp_path, timeout=60)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pario: error: ") and match in lines[0], run.stderr
    assert not scratch.exists()
