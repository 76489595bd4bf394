"""Issue 16, property tests (hypothesis): generated job files, hints files and documents either work
or get one line and exit 2, with no traceback and no MPI launched for what is refused. Accepted job
files and hints files reach the launch (a launcher that records being started, then fails), after
the engine's own spec check (`pario-engine --check`, run before every launch): so "the front end
accepted it" implies "the engine accepts it", the shared limits. `settings check` and
`bench --hints-file` agree on every generated hints file (issue 17's agreement, on one validator).
Each example is timed; the slowest is printed, never asserted (the machine is shared)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bad_input_docs import good_log
from engine_support import ENGINE
from pario import cli
from pario.settings import hints as hintlib
from test_bad_inputs import RECORDER

DATA = Path(__file__).resolve().parent / "data"
SLOWEST: dict[str, float] = {}
needs_engine = pytest.mark.skipif(not ENGINE, reason="needs PARIO_ENGINE (make test sets it)")
PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@pytest.fixture
def where(tmp_path, monkeypatch):
    (tmp_path / "mpirun").write_text(RECORDER)
    (tmp_path / "mpirun").chmod(0o755)
    monkeypatch.setenv("PARIO_MPIRUN", str(tmp_path / "mpirun"))
    monkeypatch.setenv("PARIO_DB", str(tmp_path / "runs.db"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # pario() below sets it per run; set here first so that monkeypatch removes it afterwards (left
    # behind, it failed test_user_environment's check that no PARIO_* variable is set)
    monkeypatch.setenv("PARIO_TEST_LAUNCHES", str(tmp_path / "launches"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pario(where: Path, argv: list[str], what: str) -> tuple[int, str, str, bool]:
    """(exit, stdout, stderr, launched) of one in-process run; no exception may escape."""
    launches = where / "launches"
    if launches.exists():
        launches.unlink()
    os.environ["PARIO_TEST_LAUNCHES"] = str(launches)
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    SLOWEST[what] = max(SLOWEST.get(what, 0.0), time.perf_counter() - start)
    return code, out.getvalue(), err.getvalue(), launches.exists()


def refused_in_one_line(code: int, err: str, launched: bool) -> None:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("pario: error: "), err
    assert "the engine refuses" not in err, f"the front end let through what the engine refuses: {err}"
    assert not launched, "refused after the launch"


# ---- job files -----------------------------------------------------------------------------------

def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's basic-string escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


KEYS = ["name", "backend", "strategy", "pattern", "transfer", "block", "segments", "reps", "ops", "collective",
        "view", "fsync", "keep", "reorder", "seed", "hints", "lib", "dims", "workload", "files_per_dir",
        "file_size", "depth", "branching", "per_rank_dirs", "buffer_max", "aggregate", "odirect", "iterations"]
WORDS = ["posix", "mpiio", "hdf5", "adios2", "null", "shared", "fpp", "serial", "nfiles:2", "per-node", "segmented",
         "random", "subarray", "metadata", "data", "write", "read", "verify", "create", "stat", "4k", "64k", "1m",
         "16mb", "0x10", "1e6", "host", "4x4x4", "enable", "cb_nodes", "romio_cb_write", "alignment", "mode"]
scalars = st.one_of(st.integers(-2, 2), st.integers(-(1 << 63), (1 << 63) - 1), st.sampled_from(WORDS),
                    st.booleans(), st.floats(allow_nan=True, allow_infinity=False, width=32),
                    st.text(max_size=12))
values = st.one_of(scalars, st.lists(scalars, max_size=3),
                   st.dictionaries(st.sampled_from(["cb_nodes", "romio_cb_write", "alignment", "mode", "x"]),
                                   scalars, max_size=2))
# Values a key plausibly takes, so that many generated cases are sound and reach the launch.
PLAUSIBLE = {"backend": ["posix", "mpiio", "null"], "strategy": ["shared", "fpp", "serial", "nfiles:2"],
             "pattern": ["segmented", "random"], "transfer": ["4k", "8k", 4096], "block": ["64k", 65536, "16k"],
             "segments": [1, 2], "reps": [1, 2], "ops": [["write"], ["write", "read"], "write,read"],
             "collective": [True, False], "seed": [0, 7], "hints": [{"cb_nodes": "1"}, {}],
             "workload": ["data"], "reorder": [0, 1, "host"], "buffer_max": ["64k"], "name": ["a", "b"]}


@st.composite
def case_tables(draw):
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=5, unique=True))
    return {k: draw(st.one_of(st.sampled_from(PLAUSIBLE[k]), values) if k in PLAUSIBLE else values) for k in keys}


@needs_engine
@PROPS
@given(defaults=case_tables(), cases=st.lists(case_tables(), min_size=1, max_size=2))
def test_job_files_work_or_are_refused_before_the_launch(where, defaults, cases):
    lines = ["[defaults]"] + [f"{k} = {toml_value(v)}" for k, v in defaults.items()]
    for case in cases:
        lines += ["[[case]]"] + [f"{k} = {toml_value(v)}" for k, v in case.items()]
    (where / "job.toml").write_text("\n".join(lines) + "\n")
    code, _, err, launched = pario(where, ["bench", "--config", "job.toml", "--no-probe", "-n", "2", "-i", "1",
                                           "--dir", str(where / "scratch")], "job file")
    event("launched" if launched else "refused")
    if not launched:
        refused_in_one_line(code, err, launched)
    assert "Traceback" not in err


# ---- hints files ---------------------------------------------------------------------------------

NAMES = sorted(hintlib.CATALOGUE)[:40] + ["cb_nodse", "romio_pvfs2_dtype_x", "mca.io", "fcoll", "x" * 70]
HINT_VALUES = ["4", "16mb", "1e6", "0x10", " 4", "-1", "0", "enable", "ENABLE", "Enable", "automatic", "true",
               "*:2", "99999999999", "2147483647", "h" * 300, "1.5", "a b"]
hint_lines = st.lists(st.one_of(
    st.tuples(st.sampled_from(NAMES), st.sampled_from(HINT_VALUES)).map(lambda kv: f"{kv[0]} {kv[1]}"),
    st.sampled_from(["", "# a comment", "cb_nodes", "cb_nodes=2", "  cb_buffer_size   1048576  # tuned"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<{"), max_size=20)),
    max_size=12)


@needs_engine
@PROPS
@given(lines=hint_lines)
def test_settings_check_and_bench_agree_on_hints_files(where, lines):
    text = "\n".join(lines) + "\n"
    if any(w in text for w in ("MPICH_MPIIO_HINTS", "PNETCDF_HINTS", "OMPI_MCA_", "--mca", "-mca", "H5Pset_")) or \
            text.strip().startswith(("lfs ", "{", "<")):
        return  # another dialect, which settings check reads as such; bench reads ROMIO's only
    (where / "hints.txt").write_text(text)
    check, out, check_err, _ = pario(where, ["settings", "check", "hints.txt", "--mpirun", str(where / "mpirun")],
                                     "settings check")
    bench, _, err, launched = pario(where, ["bench", "-a", "mpiio", "-w", "-t", "8k", "-b", "8k", "-i", "1",
                                            "--hints-file", "hints.txt", "--no-probe", "-n", "2",
                                            "--dir", str(where / "scratch")], "bench --hints-file")
    assert "Traceback" not in check_err + err
    errors = [line for line in out.splitlines() if ": error: " in line]
    hints = {line.split(None, 1)[0] for line in text.splitlines() if line.split("#")[0].split()}
    if len(hints) > 64:
        return  # the engine's limit of one open, not an MPI's: settings check does not apply it
    event("refused by both" if errors or check == 2 else "accepted by both")
    if errors or check == 2:
        refused_in_one_line(bench, err, launched)
    else:
        assert check == 0 and launched, f"settings check passed it, bench did not: {err}"


# ---- documents -----------------------------------------------------------------------------------

json_values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                     st.text(max_size=8)),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                           max_leaves=20)


def _paths(doc, prefix=()):
    """Every path in a document, for mutation."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


def _replace(doc, path, value):
    if not path:
        return value
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


LOG = good_log()
LOG_PATHS = list(_paths(LOG))
IOR = json.loads((DATA / "ior4-mpiio-shared.json").read_text())
IOR_PATHS = list(_paths(IOR))


def _shown_or_refused(code: int, err: str) -> None:
    assert "Traceback" not in err
    if code != 0:
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("pario: error: "), err


@PROPS
@given(path=st.sampled_from(LOG_PATHS), value=json_values)
def test_profile_logs_are_shown_or_refused(where, path, value):
    (where / "log.json").write_text(json.dumps(_replace(LOG, path, value)))
    code, _, err, _ = pario(where, ["profile", "show", "log.json"], "profile show")
    event(f"exit {code}")
    _shown_or_refused(code, err)
    code, _, err, _ = pario(where, ["profile", "show", "log.json", "--json"], "profile show --json")
    _shown_or_refused(code, err)


@PROPS
@given(path=st.sampled_from(IOR_PATHS), value=json_values)
def test_ior_summaries_are_imported_or_refused(where, path, value):
    (where / "ior.json").write_text(json.dumps(_replace(IOR, path, value)))
    code, _, err, _ = pario(where, ["results", "import-ior", "ior.json"], "import-ior")
    event(f"exit {code}")
    _shown_or_refused(code, err)
    if code == 0:  # what was stored reads back and shows
        code, _, err, _ = pario(where, ["results", "show", "last"], "results show")
        _shown_or_refused(code, err)


@PROPS
@given(doc=json_values)
def test_any_json_as_a_log_an_ior_summary_or_settings(where, doc):
    (where / "any.json").write_text(json.dumps(doc))
    for argv in (["profile", "show", "any.json"], ["results", "import-ior", "any.json"],
                 ["settings", "render", "--from", "any.json"]):
        code, _, err, _ = pario(where, argv, " ".join(argv[:2]))
        _shown_or_refused(code, err)


def test_zz_report_the_slowest():
    """The slowest example of each property (measured, not asserted: benchmarks/ records figures)."""
    print("\n" + "; ".join(f"{what}: {secs:.2f} s" for what, secs in sorted(SLOWEST.items())))
