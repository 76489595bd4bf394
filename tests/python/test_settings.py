"""The settings model: validation, every dialect's round trip, the equivalence rules, and
`pario settings render|check|keys`."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pario.model.errors import ParioError
from pario.settings import DIALECTS, canonical, explain, from_pairs, parse, render, sniff, view
from pario.settings.model import build

SRC = Path(__file__).resolve().parents[2] / "src"
SEEDS = Path("/work/shared/seeds")

FULL = ["cb_nodes=8", "cb_buffer_size=16m", "romio_cb_write=enable", "cb_config_list=*:2",
        "romio_lustre_co_ratio=2", "lustre.stripe_count=4", "lustre.stripe_size=1m", "lustre.pool=flash",
        "mca.io_ompio_grouping_option=3", "mca.fcoll=vulcan", "hdf5.alignment=1m", "hdf5.align_threshold=64k",
        "hdf5.coll_metadata=true", "hdf5.chunk=64,64", "hdf5.chunk_opt=one", "hdf5.libver=latest",
        "pnetcdf.var_align=1m", "pnetcdf.mode=iput", "adios2.NumAggregators=4", "adios2.AsyncWrite=on",
        "adios2.AggregationType=everyonewrites"]

# What each dialect carries of a Settings object.
CARRIES = {"info": ["hints"], "romio": ["hints"], "cray": ["hints"], "ompi": ["mca"], "ompi-env": ["mca"],
           "lfs": ["layout"], "ceph": ["layout"], "adios2": ["lib.adios2"], "hdf5": ["lib.hdf5"],
           "pnetcdf": ["lib.pnetcdf"]}


def _part(settings, what):
    if what.startswith("lib."):
        return settings.lib.get(what[4:], {})
    return getattr(settings, what)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_round_trip(dialect):
    settings = from_pairs(FULL)
    text = render(settings, dialect)
    assert text, f"{dialect} renders nothing"
    back, issues = parse(text, dialect)
    assert not issues, issues
    assert render(back, dialect) == text
    for what in CARRIES[dialect]:
        expected = _part(settings, what)
        if dialect in ("info", "romio", "cray") and what == "hints":
            expected = {**expected, "striping_factor": "4", "striping_unit": "1048576"}  # the layout, as hints
        if dialect.startswith("ompi"):
            expected = {**expected, "io_ompio_bytes_per_agg": "16777216", "io_ompio_num_aggregators": "8",
                        "fs_lustre_stripe_size": "1048576", "fs_lustre_stripe_width": "4"}
        assert _part(back, what) == expected
    assert sniff(text) == dialect or dialect == "ompi-env" and sniff(text) == "ompi-env"


def test_values_are_normalized_and_checked():
    s = from_pairs(["cb_buffer_size=4MiB", "romio_cb_write=ENABLE", "adios2.AsyncOpen=off"])
    assert s.hints == {"cb_buffer_size": "4194304", "romio_cb_write": "enable"}
    assert s.lib["adios2"] == {"AsyncOpen": "false"}
    for bad, needle in [("cb_nodse=4", "did you mean cb_nodes"), ("romio_cb_read=maybe", "enable, disable"),
                        ("cb_nodes=0", "from 1 to 2147483647"), ("lustre.stripe_size=100k", "64 KiB"),
                        ("mca.io_ompio_bytes_per_ag=1", "did you mean mca.io_ompio_bytes_per_agg"),
                        ("hdf5.alignmnt=1m", "did you mean hdf5.alignment"), ("cray_cb_write_lock_mode=3", "0 to 2"),
                        ("romio_filesystem_type=ufs", "reported by ROMIO"), ("novalue", "KEY=VALUE")]:
        with pytest.raises(ParioError, match=needle):
            from_pairs([bad])


def test_composite_layout_needs_extents():
    _, issues = build([("lustre.0.stripe_count", "1"), ("lustre.1.stripe_count", "4")])
    assert any("extent_end" in i.message for i in issues)
    s = from_pairs(["lustre.0.extent_end=4m", "lustre.0.stripe_count=1", "lustre.1.extent_end=eof",
                    "lustre.1.stripe_count=-1"])
    assert render(s, "lfs", path="out.dat") == "lfs setstripe -E 4M -c 1 -E -1 -c -1 out.dat\n"


@pytest.mark.skipif(not SEEDS.exists(), reason="seeds not on this machine")
def test_seed_dialects_parse():
    # ARCHER2's MPICH_MPIIO_HINTS line (004) and CSC's ROMIO hints file (001), as users are taught.
    text = next(line for line in (SEEDS / "004_afd0f781e6759337.txt").read_text().splitlines()
                if line.startswith("export MPICH_MPIIO_HINTS"))
    s, issues = parse(text.replace("=N", "=4"), "cray")
    assert not issues and s.hints == {"cray_cb_write_lock_mode": "2", "cray_cb_nodes_multiplier": "4"}
    s, issues = parse("cb_config_list *:2\nromio_cb_write enable\nromio_no_indep_rw true\nromio_ds_write disable\n",
                      "romio")
    assert not issues and s.hints["cb_config_list"] == "*:2"
    s, issues = parse("export MPICH_MPIIO_HINTS='*:cb_config_list=#*:2#:cb_nodes=4'", "cray")
    assert s.hints == {"cb_config_list": "*:2", "cb_nodes": "4"}


def test_equivalence_cb_nodes_above_the_clip_is_one_configuration():
    stack = view(impl="romio", fs="lustre", ranks=64, hosts=4, stripe_count=4, ops=["write"])
    a = canonical(from_pairs(["cb_nodes=8"]), stack)
    b = canonical(from_pairs(["cb_nodes=32"]), stack)
    # *:1 on 4 hosts clips both to 4, which is also what ROMIO picks unasked: no setting at all.
    assert a == b and a.hints == {}
    _, applied = explain(from_pairs(["cb_nodes=32"]), stack)
    assert [x.source for x in applied if x.key == "cb_nodes"][0] == "ad_open.c:build_cb_config_list"
    # With more aggregators per host, Lustre writes clip to a multiple of the stripe count (co_ratio).
    c = canonical(from_pairs(["cb_nodes=12", "cb_config_list=*:4", "romio_lustre_co_ratio=2"]), stack)
    assert c.hints["cb_nodes"] == "8"
    assert canonical(from_pairs(["cb_nodes=3", "cb_config_list=*:4"]), stack).hints["cb_nodes"] == "2"


def test_equivalence_per_implementation():
    s = from_pairs(["romio_cb_write=enable", "cb_buffer_size=33554432", "striping_factor=4",
                    "mca.io_ompio_num_aggregators=4"])
    ompio = canonical(s, view(impl="ompio", fs="ext4", ranks=4))
    assert ompio.hints == {"cb_nodes": "4"} and ompio.mca == {}  # default buffer, ROMIO key and striping dropped
    romio = canonical(s, view(impl="romio", fs="lustre", ranks=4))
    assert romio.hints == {"romio_cb_write": "enable", "cb_buffer_size": "33554432", "striping_factor": "4"}
    assert romio.mca == {}
    # The same hint at ROMIO's default is no setting at all.
    assert canonical(from_pairs(["romio_cb_read=automatic"]), view(impl="romio", fs="ext4")).empty()


def _pario(args, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("OMPI_MCA_io", None)
    return subprocess.run([sys.executable, "-m", "pario", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp_path)


@pytest.mark.e2e
def test_settings_check_good_and_bad(tmp_path):
    good = tmp_path / "good.hints"
    good.write_text("# tuned for 2 OSTs\ncb_buffer_size 4194304\ncb_nodes 2\n")
    out = _pario(["settings", "check", str(good), "--io", "ompio"], tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    bad = tmp_path / "bad.hints"
    bad.write_text("cb_buffer_size 4194304\nromio_cb_write enable\ncb_nodse 4\nromio_ds_write sometimes\n"
                   "striping_factor 4\njust-one-word\n")
    out = _pario(["settings", "check", str(bad)], tmp_path)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert any(line.startswith(f"{bad}:3: error") and "did you mean cb_nodes" in line for line in lines)
    assert any(line.startswith(f"{bad}:4: error") and "enable, disable, automatic" in line for line in lines)
    assert any(line.startswith(f"{bad}:6: error") and "key value" in line for line in lines)
    version = subprocess.run(["mpirun", "--version"], capture_output=True, text=True).stdout \
        if shutil.which("mpirun") else ""
    if "Open MPI" in version:  # the default io component, OMPIO, reads no ROMIO hint
        assert any(line.startswith(f"{bad}:2: warning") and "ompio ignores" in line for line in lines)
    strict = _pario(["settings", "check", str(good), "--io", "ompio", "--strict", "--json"], tmp_path)
    doc = json.loads(strict.stdout)
    assert doc["ok"] == (strict.returncode == 0)


@pytest.mark.e2e
def test_settings_render_cli(tmp_path):
    out = _pario(["settings", "render", "--dialect", "lfs", "--set", "lustre.stripe_count=8",
                  "--set", "lustre.stripe_size=4m", "--path", "/scratch/run"], tmp_path)
    assert out.returncode == 0 and out.stdout == "lfs setstripe -c 8 -S 4M /scratch/run\n"
    romio = tmp_path / "romio"
    romio.write_text("cb_nodes 4\nromio_cb_write enable\n")
    out = _pario(["settings", "render", "--from", str(romio), "--set", "cb_nodes=8", "--json"], tmp_path)
    doc = json.loads(out.stdout)
    assert doc["settings"]["hints"] == {"cb_nodes": "8", "romio_cb_write": "enable"}
    assert set(doc["rendered"]) == set(DIALECTS)
    assert doc["rendered"]["cray"] == "export MPICH_MPIIO_HINTS='*:cb_nodes=8:romio_cb_write=enable'\n"
    out = _pario(["settings", "render", "--dialect", "klingon", "--set", "cb_nodes=2"], tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "must be one of" in out.stderr
    out = _pario(["settings", "keys", "--json"], tmp_path)
    keys = {r["key"] for r in json.loads(out.stdout)["keys"]}
    assert {"romio_lustre_co_ratio", "mca.io_ompio_bytes_per_agg", "lustre.overstripe_count",
            "adios2.NumAggregators", "pnetcdf.var_align", "cray_cb_nodes_multiplier"} <= keys


def test_every_dialect_names_what_it_cannot_say():
    from pario.settings.dialects import untranslated
    s = from_pairs(["romio_cb_write=enable", "cb_nodes=4", "lustre.stripe_count=4", "hdf5.alignment=1m"])
    assert untranslated(s, "ompi") == ["hdf5.alignment", "romio_cb_write"]  # cb_nodes, stripes: MCA params
    assert untranslated(s, "romio") == ["hdf5.alignment"]  # the stripe count as striping_factor
    assert untranslated(s, "lfs") == ["cb_nodes", "hdf5.alignment", "romio_cb_write"]
    assert untranslated(from_pairs(["cb_nodes=4"]), "info") == []


@pytest.mark.e2e
def test_settings_render_names_the_settings_a_dialect_drops(tmp_path):
    # the issue: `--dialect ompi` dropped romio_cb_write without a word
    out = _pario(["settings", "render", "--dialect", "ompi", "--set", "romio_cb_write=enable",
                  "--set", "cb_nodes=4"], tmp_path)
    assert out.returncode == 0 and out.stdout == "--mca io_ompio_num_aggregators 4\n"
    assert "no equivalent in the ompi dialect: romio_cb_write" in out.stderr
    env = _pario(["settings", "render", "--dialect", "ompi-env", "--set", "romio_cb_write=enable",
                  "--set", "cb_nodes=4"], tmp_path)
    assert "# no equivalent in the ompi-env dialect: romio_cb_write" in env.stdout
    every = _pario(["settings", "render", "--set", "romio_cb_write=enable", "--set", "cb_nodes=4"], tmp_path)
    section = every.stdout.split("## ompi:")[1].split("##")[0]
    assert "no equivalent in the ompi dialect: romio_cb_write" in section
    doc = json.loads(_pario(["settings", "render", "--set", "romio_cb_write=enable", "--json"], tmp_path).stdout)
    assert doc["untranslated"]["ompi"] == ["romio_cb_write"] and doc["untranslated"]["romio"] == []


def test_every_dialects_own_comment_lines_fit_80_columns():
    # the words pario adds around the settings (not the settings themselves) are pasted into job
    # scripts and read in terminals: no comment line of pario's wider than 80 columns
    from pario.settings import DIALECTS, Settings, render
    s = Settings()
    s.hints.update({"romio_cb_write": "disable", "cb_nodes": "2", "striping_factor": "4"})
    s.mca["io"] = "romio321"
    for dialect in DIALECTS:
        for line in render(s, dialect).splitlines():
            if line.lstrip().startswith(("#", "//", "!")):
                assert len(line) <= 80, (dialect, line)
