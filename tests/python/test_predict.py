"""pario predict: the system file's checks, the model on small patterns, the command line and its
JSON document. The mechanisms' own numbers are in test_predict_mechanisms.py."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib

from pario.cli import main
from pario.model.errors import ParioError
from pario.plan.cases import build_case
from pario.predict import for_pattern, system
from pario.predict.pattern import from_case
from pario.predict.rank import ranked, spoken

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ROOT / "examples" / "systems"
GIB = 2 ** 30


def _sys(tmp_path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", ["archer2", "archer", "shaheen", "supermuc", "mahti"])
def test_every_example_system_loads_and_states_its_sources(name):
    s = system.load(str(SYSTEMS / f"{name}.toml"))
    stated = [p for p in s.params.values() if p.status in ("stated", "assumed")]
    assert stated and all(p.source for p in stated), [p.name for p in stated if not p.source]


@pytest.mark.parametrize("text, words", [
    ('[fs]\nkind = "lustre"\nserver_bw = "fast"\n', "write a rate such as"),
    ('[fs]\nkind = "lustr"\n', "did you mean lustre"),
    ('[fs]\nkind = "lustre"\nnode_bw = "1 GB/s"\n', "it belongs in [nodes]"),
    ('[fs]\nservers = 4\n', "[fs] needs kind"),
    ('[fs]\nkind = "gpfs"\nservers = 0\n', "whole number of at least 1"),
    ('[fs]\nkind = "gpfs"\nservers = { value = 4, status = "guess" }\n', "status 'guess' is unknown"),
    ('[fs]\nkind = "gpfs"\nservers = { source = "x" }\n', "has no 'value'"),
    ('[disk]\n', "unknown section [disk]"),
    ('[fs\n', "not valid TOML"),
])
def test_a_bad_system_file_is_one_line(tmp_path, capsys, text, words):
    assert main(["predict", "--system", _sys(tmp_path, text)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_rates_times_and_sizes_in_their_units():
    assert system.parse_rate("500 MB/s", "x") == 5e8
    assert system.parse_rate("11 GiB/s", "x") == 11 * GIB
    assert system.parse_time("0.5 ms", "x") == pytest.approx(5e-4)
    with pytest.raises(ParioError):
        system.parse_rate("0 MB/s", "x")


def _pattern(nodes, rpn, run=None, **opts):
    return from_case(build_case({"ops": ["write"], **opts}), {"nodes": nodes, "ranks_per_node": rpn, **(run or {})})


def test_archer2_default_locking_is_its_12_aggregators_from_stated_hardware():
    s = system.load(str(SYSTEMS / "archer2.toml"))
    pred = for_pattern(s, _pattern(64, 128, {"stripe_count": -1}, backend="mpiio", collective=True, block="8m"))
    assert pred.aggregators == 12 and pred.binding == "aggregators" and pred.basis == "stated hardware"
    assert 10 * GIB < pred.bandwidth < 12 * GIB       # 12 x 1 GiB/s, less the exchange
    assert pred.low < pred.seconds < pred.high


def test_romio_lustre_runs_one_aggregator_on_stripe_count_1(tmp_path):
    s = system.load(_sys(tmp_path, '[fs]\nkind = "lustre"\nservers = 8\n[mpiio]\nimpl = "romio"\n'))
    one = for_pattern(s, _pattern(4, 4, {"stripe_count": 1}, backend="mpiio", collective=True))
    four = for_pattern(s, _pattern(4, 4, {"stripe_count": 4}, backend="mpiio", collective=True))
    assert (one.aggregators, four.aggregators) == (1, 4) and four.seconds < one.seconds


def test_writers_sharing_a_gpfs_block_pay_lock_conflicts(tmp_path):
    s = system.load(_sys(tmp_path, '[fs]\nkind = "gpfs"\nservers = 16\nlock_unit = "8m"\nlock_cost = "10 ms"\n'))
    strided = for_pattern(s, _pattern(2, 8, backend="mpiio", transfer="1m", block="1m", segments=64))
    blocks = for_pattern(s, _pattern(2, 8, backend="mpiio", transfer="1m", block="64m"))
    assert strided.binding == "lock contention" and blocks.binding != "lock contention"
    assert strided.seconds > 5 * blocks.seconds


def test_small_calls_cost_their_latency_and_a_buffer_removes_it(tmp_path):
    s = system.load(_sys(tmp_path, '[fs]\nkind = "lustre"\ncall_latency = "0.5 ms"\n'))
    plain = for_pattern(s, _pattern(1, 1, backend="posix", strategy="serial", transfer=512, block="64m"))
    buffered = for_pattern(s, _pattern(1, 1, {"buffer": 64 << 20}, backend="posix", strategy="serial",
                                       transfer=512, block="64m"))
    assert plain.seconds == pytest.approx(131072 * 5e-4, rel=0.05) and buffered.seconds < plain.seconds / 10


def test_flags_say_what_the_model_does_not_capture():
    s = system.load(str(SYSTEMS / "supermuc.toml"))
    auto = for_pattern(s, _pattern(2, 16, backend="mpiio", collective=True, hints={"romio_cb_write": "automatic"}))
    assert "automatic" in [c for c, _ in auto.flags]
    s2 = system.load(str(SYSTEMS / "archer2.toml"))
    adios = for_pattern(s2, _pattern(4, 8, backend="adios2"))
    assert "caching" in [c for c, _ in adios.flags]


def test_ranked_settings_are_faster_and_spoken_in_the_systems_dialect():
    s = system.load(str(SYSTEMS / "archer2.toml"))
    pat = _pattern(16, 128, {"stripe_count": -1}, backend="mpiio", collective=True, block="32m")
    base, cands = ranked(s, pat)
    assert cands and cands[0].prediction.seconds < base.seconds
    said = [line for c in cands for line in spoken(s, pat, c)]
    assert any(line.startswith("export MPICH_MPIIO_HINTS=") for line in said), said


def test_predict_command_prints_the_binding_limit_and_ranked_settings(capsys):
    code = main(["predict", "--system", str(SYSTEMS / "archer2.toml"), "--nodes", "64", "--ranks-per-node", "128",
                 "-a", "mpiio", "-c", "-b", "8m", "--stripe-count", "-1", "-w", "--rank"])
    out = capsys.readouterr().out
    assert code == 0
    assert "binding limit: aggregators" in out and "settings to try" in out and "MPICH_MPIIO_HINTS" in out


def test_predict_json_follows_its_schema(capsys):
    assert main(["predict", "--system", str(SYSTEMS / "supermuc.toml"), "--nodes", "32", "--ranks-per-node", "16",
                 "-a", "mpiio", "-c", "-t", "1m", "-b", "1m", "-s", "64", "-w", "--rank", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, json.loads((ROOT / "schemas" / "predict.schema.json").read_text()))
    assert doc["ranked"] and doc["prediction"]["binding"]


def test_seed_rows_and_the_calibration_choice_are_consistent():
    rows = tomllib.loads((ROOT / "benchmarks" / "predict" / "rows.toml").read_text())
    calib = tomllib.loads((ROOT / "benchmarks" / "predict" / "calibration.toml").read_text())
    ids = {r["id"]: r for r in rows["row"]}
    systems = {s["id"]: s["system"] for s in rows["scenario"]}
    for name, chosen in calib.items():
        assert len(chosen["rows"]) <= 5 and len(chosen["rows"]) == len(chosen["sets"])
        assert all(systems[ids[r]["scenario"]] == name for r in chosen["rows"])
    assert all(r["source"].split(":")[0].endswith(".txt") for r in rows["row"])


def test_a_shipped_system_by_name():
    assert system.load("archer2").name == "ARCHER2"


def test_the_presets_cells_get_the_models_figure_of_the_seed():
    from pario.predict.seeds import for_preset
    cells = for_preset("lrz-hints")
    row = cells[("str-small-enable", "write")]
    assert row.id == "lrz-2-w-enable" and row.calibrates and row.predicted == pytest.approx(25.49, rel=0.05)
    held = cells[("seq-small-indep", "write")]
    assert not held.calibrates and held.predicted and held.prediction.binding


def test_tune_orders_its_guesses_by_the_model_and_says_so(tmp_path, capsys):
    path = _sys(tmp_path, '[fs]\nkind = "lustre"\nservers = 8\nlock_cost = "5 ms"\n[nodes]\ncores = 2\n')
    code = main(["tune", "-a", "mpiio", "-t", "64k", "-b", "64k", "-s", "64", "-n", "4", "-w", "--dry-run",
                 "--system", path])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "pario predict" in captured.err and "ordered the" in captured.err
    assert "x the default)" in captured.out


def test_predict_takes_the_case_from_a_log(capsys):
    log = Path(__file__).parent / "data" / "profile" / "mpiio-coll-2ranks.log"
    assert main(["predict", "--system", "archer", "--from-log", str(log)]) == 0
    captured = capsys.readouterr()
    assert "predicting the case taken from" in captured.err
    assert "2 ranks" in captured.out and "binding limit:" in captured.out


def test_cb_disable_synchronises_nothing_and_automatic_pays_the_offsets_exchange():
    """ROMIO gathers the ranks' offsets only when collective buffering is not disabled: disable is
    independent I/O, automatic that chose independent I/O still pays one exchange per call."""
    s = system.load(str(SYSTEMS / "supermuc.toml"))
    hints = lambda v: {"romio_cb_write": v}  # noqa: E731
    case = dict(backend="mpiio", transfer="1m", block="64m")
    indep = for_pattern(s, _pattern(2, 16, **case))
    off = for_pattern(s, _pattern(2, 16, collective=True, hints=hints("disable"), **case))
    auto = for_pattern(s, _pattern(2, 16, collective=True, hints=hints("automatic"), **case))
    assert off.seconds == pytest.approx(indep.seconds) and auto.seconds > off.seconds
    assert "collective calls" in [t.name for t in auto.costs] and "collective calls" not in [t.name for t in off.costs]


def test_automatic_is_flagged_only_where_romios_drivers_disagree_and_it_matters(tmp_path):
    s = system.load(str(SYSTEMS / "supermuc.toml"))
    auto = {"romio_cb_write": "automatic"}
    apart = for_pattern(s, _pattern(32, 16, backend="mpiio", collective=True, transfer="1m", block="4g", hints=auto))
    assert "automatic" in [c for c, _ in apart.flags]              # one call's ranges do not interleave
    mahti = system.load(str(SYSTEMS / "mahti.toml"))
    btio = for_pattern(mahti, _pattern(4, 4, {"stripe_count": 1}, backend="pnetcdf", pattern="btio",
                                       grid="64x64x64", collective=True))
    assert "automatic" not in [c for c, _ in btio.flags]           # a view interleaves: every driver collects
    tiny = system.load(_sys(tmp_path, '[fs]\nkind = "gpfs"\nservers = 4\nserver_bw = "10 MB/s"\n'))
    same = for_pattern(tiny, _pattern(1, 2, backend="mpiio", collective=True, transfer="1m", block="8m", hints=auto))
    assert "automatic" not in [c for c, _ in same.flags]           # the servers bind either way


def test_a_read_rate_left_to_the_write_rate_follows_its_fit():
    s = system.load(str(SYSTEMS / "archer2.toml"))
    fitted = s.with_values({"process_bw": 3 * GIB})
    assert fitted["process_read_bw"] == 3 * GIB and fitted.status("process_read_bw") == "calibrated"


def test_the_server_count_is_a_limit_only_where_it_caps_the_stripes(tmp_path):
    path = _sys(tmp_path, '[fs]\nkind = "lustre"\nservers = { value = 4, status = "assumed", source = "x" }\n'
                          'server_bw = "100 MB/s"\n[nodes]\nprocess_bw = "10 GiB/s"\nnode_bw = "10 GiB/s"\n')
    s = system.load(path)
    two = for_pattern(s, _pattern(1, 2, {"stripe_count": 2}, backend="posix", block="64m"))
    every = for_pattern(s, _pattern(1, 2, {"stripe_count": -1}, backend="posix", block="64m"))
    assert two.binding == every.binding == "servers"
    assert "assumed-limit" not in [c for c, _ in two.flags] and "assumed-limit" in [c for c, _ in every.flags]


def test_on_cephfs_the_server_count_shapes_every_file_of_two_objects_or_more(tmp_path):
    # CRUSH draws each object's server: 2 objects on 4 servers load the busiest with 1.25 of them, on
    # 8 servers with 1.125; the count matters although the stripes do not outnumber the servers
    path = _sys(tmp_path, '[fs]\nkind = "cephfs"\nservers = { value = 4, status = "assumed", source = "x" }\n'
                          'server_bw = "100 MB/s"\nobject_size = "128m"\n[nodes]\nprocess_bw = "10 GiB/s"\n'
                          'node_bw = "10 GiB/s"\n')
    s = system.load(path)
    one = for_pattern(s, _pattern(1, 2, {"stripe_count": 1}, backend="posix", block="64m"))
    two = for_pattern(s, _pattern(1, 2, {"stripe_count": 2}, backend="posix", block="64m"))
    assert one.binding == two.binding == "servers"
    assert "assumed-limit" not in [c for c, _ in one.flags]          # one object: one server, whatever the count
    assert "assumed-limit" in [c for c, _ in two.flags]
    more = for_pattern(s.with_values({"servers": 8}, status="stated"),
                       _pattern(1, 2, {"stripe_count": 2}, backend="posix", block="64m"))
    assert more.seconds < two.seconds


def test_ranks_sharing_a_file_through_mpiio_pay_its_collective_open_and_close(tmp_path):
    path = _sys(tmp_path, '[fs]\nkind = "local"\nservers = 1\n[mpiio]\ncollective_call_cost = "2 ms"\n')
    s = system.load(path)
    assert s["open_cost"] == pytest.approx(4e-3) and s.params["open_cost"].source.startswith("as ")
    assert s.with_values({"collective_call_cost": 5e-3})["open_cost"] == pytest.approx(1e-2)  # follows its fit
    measured = s.with_values({"open_cost": 0.02})
    shared = for_pattern(measured, _pattern(1, 2, backend="mpiio", block="1m", transfer="1m"))
    assert [t.seconds for t in shared.costs if t.name == "collective open"] == [pytest.approx(0.02)]
    for other in (dict(backend="posix"), dict(backend="mpiio", strategy="fpp")):   # no collective open
        pred = for_pattern(measured, _pattern(1, 2, block="1m", transfer="1m", **other))
        assert "collective open" not in [t.name for t in pred.costs]


def _local(tmp_path, cores):
    """A node with a local file system (one 200 MB/s device) whose page cache takes 3 GiB."""
    return system.load(_sys(tmp_path, '[fs]\nkind = "local"\nservers = 1\nserver_bw = "200 MB/s"\n[nodes]\n'
                                      f'cores = {cores}\nprocess_bw = "1 GB/s"\ndirty_limit = "3g"\n'))


def test_a_local_page_cache_takes_writes_below_its_dirty_limit_at_the_writers_own_rate(tmp_path):
    s = _local(tmp_path, 2)
    one = for_pattern(s, _pattern(1, 1, backend="posix", strategy="fpp", block="128m"))
    two = for_pattern(s, _pattern(1, 2, backend="posix", strategy="fpp", block="64m"))
    four = for_pattern(s, _pattern(1, 4, backend="posix", strategy="fpp", block="32m"))
    assert one.binding == two.binding == "per-process" and "servers" not in [t.name for t in one.limits]
    assert two.seconds == pytest.approx(one.seconds / 2, rel=0.01)          # two cores copy at once
    assert four.seconds == pytest.approx(two.seconds, rel=0.01)             # four ranks share the two cores
    flushed = for_pattern(s, _pattern(1, 1, backend="posix", strategy="fpp", block="128m", fsync=True))
    big = for_pattern(s, _pattern(1, 1, backend="posix", strategy="fpp", block="4g", transfer="4m"))
    assert flushed.binding == big.binding == "servers"                      # the device paces them


def test_ranks_sharing_a_local_file_write_it_one_at_a_time(tmp_path):
    s = _local(tmp_path, 4)
    fpp = for_pattern(s, _pattern(1, 4, backend="posix", strategy="fpp", block="32m"))
    shared = for_pattern(s, _pattern(1, 4, backend="posix", block="32m"))
    one = for_pattern(s, _pattern(1, 1, backend="posix", block="128m"))
    assert fpp.binding == "per-process" and shared.binding == "one writer at a time"
    assert shared.seconds == pytest.approx(one.seconds, rel=0.02)             # no faster than one rank alone
    turns = next(t.seconds for t in shared.limits if t.name == "one writer at a time")
    assert turns == pytest.approx(4 * fpp.limits[0].seconds, rel=0.02)        # four files copy at once
    flushed = for_pattern(s, _pattern(1, 4, backend="posix", block="32m", fsync=True))
    assert "one writer at a time" not in [t.name for t in flushed.limits]    # past the page cache: the device


def test_calibrate_reads_the_dirty_limit_from_proc(tmp_path):
    from pario.predict import calibrate
    (tmp_path / "sys" / "vm").mkdir(parents=True)
    for name, value in (("dirty_ratio", 20), ("dirty_background_ratio", 10), ("dirty_bytes", 0),
                        ("dirty_background_bytes", 0)):
        (tmp_path / "sys" / "vm" / name).write_text(f"{value}\n")
    (tmp_path / "meminfo").write_text("MemTotal: 24000000 kB\nMemAvailable: 20971520 kB\n")
    limit, how = calibrate.dirty_limit(str(tmp_path))
    assert limit == 3 << 30 and "dirty_ratio 20" in how
    assert calibrate.dirty_limit(str(tmp_path / "nowhere")) is None


def test_a_cephfs_file_is_its_objects_not_its_stripe_count(tmp_path):
    from pario.platform.cephfs import objects_of
    mib = 1 << 20
    assert objects_of(128 * mib, 1, mib, 128 * mib) == 1 and objects_of(128 * mib, 1, mib, 4 * mib) == 32
    assert objects_of(128 * mib, 4, mib, 128 * mib) == 4 and objects_of(10 * mib, 4, 4 * mib, 4 * mib) == 3
    path = _sys(tmp_path, '[fs]\nkind = "cephfs"\nservers = 4\nserver_bw = "50 MiB/s"\nstripe_size = "1m"\n'
                          'object_size = "128m"\n[nodes]\nprocess_bw = "10 GiB/s"\nnode_bw = "10 GiB/s"\n')
    s = system.load(path)

    def secs(**run):
        return for_pattern(s, _pattern(1, 4, run, backend="posix", block="32m", fsync=True)).seconds
    one = secs()                                                  # 128 MiB in one 128 MiB object: one server
    assert one == pytest.approx(128 / 50, rel=0.01)
    assert secs(object_size=4 * mib) < one / 2                    # 32 objects: CRUSH spreads them
    assert secs(stripe_count=10) < secs(stripe_count=4) < one     # 10 objects on 4 servers: not capped at 4


def test_lock_conflicts_spread_over_stripe_objects_are_flagged():
    s = system.load(str(SYSTEMS / "mahti.toml"))
    pat = _pattern(16, 16, {"stripe_count": 2, "stripe_size": 1 << 20}, backend="pnetcdf", pattern="btio",
                   grid="2048x1024x256", steps=5, collective=True)
    pred = for_pattern(s.with_values({"lock_cost": 0.3, "server_bw": 5e9}), pat)
    assert pred.binding == "lock contention" and "lock-spread" in [c for c, _ in pred.flags]


def test_stripe_objects_that_hold_no_data_are_flagged_on_metadata_patterns():
    s = system.load(str(SYSTEMS / "archer.toml"))
    case = dict(workload="metadata", files_per_dir=100, file_size="2m", ops=["read_small"])
    two = for_pattern(s, from_case(build_case(case), {"nodes": 1, "ranks_per_node": 1, "stripe_count": 2}))
    wide = for_pattern(s, from_case(build_case(case), {"nodes": 1, "ranks_per_node": 1, "stripe_count": 48}))
    assert "empty-objects" not in [c for c, _ in two.flags]         # 2 MiB in 1 MiB stripes: both hold data
    assert "empty-objects" in [c for c, _ in wide.flags]


def test_more_ranks_than_cores_is_flagged(tmp_path):
    s = _local(tmp_path, 2)
    four = for_pattern(s, _pattern(1, 4, backend="posix", strategy="fpp", block="32m"))
    two = for_pattern(s, _pattern(1, 2, backend="posix", strategy="fpp", block="64m"))
    assert "oversubscribed" in [c for c, _ in four.flags] and "oversubscribed" not in [c for c, _ in two.flags]
    assert four.high / four.seconds > two.high / two.seconds                  # a flag widens the interval


def test_cephfs_objects_are_placed_by_crush_on_the_collective_path_too(tmp_path):
    path = _sys(tmp_path, '[fs]\nkind = "cephfs"\nservers = 4\nserver_bw = "50 MiB/s"\nstripe_size = "1m"\n'
                          'object_size = "4m"\n[nodes]\nprocess_bw = "10 GiB/s"\nnode_bw = "10 GiB/s"\n'
                          '[mpiio]\nimpl = "romio"\n')
    s = system.load(path)

    def servers_term(**case):
        pred = for_pattern(s, _pattern(1, 4, {"stripe_count": 4}, backend="mpiio", block="4m", fsync=True, **case))
        return pred.path, next(t.seconds for t in pred.limits if t.name == "servers")
    (two_phase, coll) = servers_term(collective=True, hints={"romio_cb_write": "enable"})
    indep, alone = servers_term()
    assert (two_phase, indep) == ("two-phase", "independent")
    assert coll == pytest.approx(alone, rel=0.01)           # the same 4 objects, the same busiest server
    assert coll > 16 / 50 / 4 * 1.5                           # not the 4 servers evenly (round-robin)
