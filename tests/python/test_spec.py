"""Cases from flags, job files and the default suite; sizes like IOR."""
import json
from pathlib import Path

import pytest

from pario.cli import build_parser
from pario.cli.bench import request_of
from pario.model import units
from pario.model.errors import ParioError
from pario.plan import cases as spec
from pario.plan import suites
from pario.plan.bench import plan
from pario.run.bench import engine_spec

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text,value", [("4k", 4096), ("1m", 1 << 20), ("256m", 256 << 20), ("2g", 2 << 30),
                                        ("512", 512), ("1K", 1024), ("4KiB", 4096), ("3mb", 3 << 20), (8, 8)])
def test_parse_size(text, value):
    assert units.parse_size(text) == value


@pytest.mark.parametrize("text", ["", "1x", "k", "-4k", "0", "1.5m", True])
def test_parse_size_rejects(text):
    with pytest.raises(ParioError) as err:
        units.parse_size(text, "-t")
    assert err.value.exit_code == 2 and "-t" in str(err.value)


def test_dims_and_strategy():
    assert spec.parse_dims("64x32x16") == [64, 32, 16]
    assert spec.parse_dims([4, 4]) == [4, 4]
    with pytest.raises(ParioError):
        spec.parse_dims("64x0")
    assert spec.parse_strategy("nfiles:3") == ("nfiles", 3)
    assert spec.parse_strategy("per-node") == ("pernode", None)
    with pytest.raises(ParioError, match="did you mean shared"):
        spec.parse_strategy("sharde")


def cases_of(argv, ranks=4, listing=None):
    args = build_parser().parse_args(["bench", *argv])
    return plan(request_of(args), ranks, listing, free_disk=100 << 30)[0]


def test_ior_flags_map_to_one_case():
    (case,) = cases_of(["-a", "mpiio", "-c", "-t", "1m", "-b", "256m", "-s", "4", "-w", "-r", "-W", "-i", "5",
                        "--hint", "romio_cb_write=enable", "-e", "-k", "-G", "7"])
    assert case["backend"] == "mpiio" and case["collective"] and case["strategy"] == "shared"
    assert (case["xfer"], case["block"], case["segments"]) == (1 << 20, 256 << 20, 4)
    assert case["ops"] == ["write", "read", "verify"] and case["reps"] == 5
    assert case["hints"] == {"romio_cb_write": "enable"} and case["fsync"] and case["keep"] and case["seed"] == 7


def test_flag_aliases():
    (case,) = cases_of(["-F", "-z", "-t", "4k", "-b", "64k", "-C"])
    assert case["strategy"] == "fpp" and case["pattern"] == "random" and case["reorder"] == -1
    (case,) = cases_of(["-F", "-Q", "2", "-R"])
    assert case["reorder"] == 2 and case["ops"] == ["read"]
    (case,) = cases_of(["-F"])
    assert case["ops"] == ["write", "read"], "without -w/-r/-W pario writes and reads"
    with pytest.raises(ParioError, match="contradicts"):
        cases_of(["-F", "--strategy", "shared"])


def test_defaults_follow_block():
    (case,) = cases_of(["-b", "256k"])
    assert case["xfer"] == 256 << 10, "the transfer default never exceeds the block"
    (case,) = cases_of(["-t", "3k"])
    assert case["block"] % case["xfer"] == 0


def test_subarray_case():
    (case,) = cases_of(["-a", "mpiio", "-c", "--pattern", "subarray", "--dims", "16x16x16"])
    assert case["ldims"] == [16, 16, 16] and case["view"] is True and "block" not in case
    assert (16 * 16 * 16 * 8) % case["xfer"] == 0
    with pytest.raises(ParioError, match="subarray only"):
        cases_of(["--dims", "4x4"])


def test_config_precedence(tmp_path):
    hints = tmp_path / "h.txt"
    hints.write_text("cb_nodes 2\nromio_cb_write disable\n")
    job = tmp_path / "job.toml"
    job.write_text(f"""
[defaults]
backend = "mpiio"
transfer = "64k"
block = "1m"
reps = 2
hints_file = "{hints}"
[[case]]
name = "a"
reps = 4
hints = {{ romio_cb_write = "enable" }}
[[case]]
strategy = "nfiles:2"
ops = ["read"]
""")
    a, b = cases_of(["--config", str(job)])
    assert a["name"] == "a" and a["reps"] == 4 and a["xfer"] == 64 << 10
    assert a["hints"] == {"cb_nodes": "2", "romio_cb_write": "enable"}, "explicit hints win over the file"
    assert b["reps"] == 2 and b["strategy"] == "nfiles" and b["nfiles"] == 2 and b["ops"] == ["read"]
    a, b = cases_of(["--config", str(job), "-i", "1", "-w"])
    assert a["reps"] == b["reps"] == 1 and a["ops"] == b["ops"] == ["write"], "command line wins"


def test_config_errors(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text("[defaults]\ntransfr = '1m'\n[[case]]\nname='x'\n")
    with pytest.raises(ParioError, match="did you mean transfer"):
        cases_of(["--config", str(job)])
    job.write_text("[defaults]\n")
    with pytest.raises(ParioError, match="no \\[\\[case\\]\\]"):
        cases_of(["--config", str(job)])
    job.write_text("[[case]\n")
    with pytest.raises(ParioError, match="not valid TOML"):
        cases_of(["--config", str(job)])


def test_example_job_file_is_valid():
    from pario.plan import validate
    cases = cases_of(["--config", str(ROOT / "examples" / "job.toml")])
    assert len(cases) == 7
    validate.check_all(cases, ranks=4)


def test_default_suite_sizes():
    listing = {"backends": [{"name": "posix", "built": True}, {"name": "mpiio", "built": True}]}
    cases = cases_of([], ranks=2, listing=listing)
    names = [c["name"] for c in cases]
    assert names == ["fpp-posix", "shared-posix", "shared-mpiio", "shared-mpiio-coll",
                     "pernode-mpiio-coll", "serial-posix"]
    assert all(c["xfer"] == 1 << 20 and c["block"] % c["xfer"] == 0 for c in cases)
    no_mpiio = cases_of(["-i", "1"], ranks=2, listing={"backends": [{"name": "posix", "built": True}]})
    assert [c["backend"] for c in no_mpiio] == ["posix"] * 3 and no_mpiio[0]["reps"] == 1
    sized = cases_of(["--size", "64m"], ranks=2, listing=listing)
    assert sized[0]["block"] == 32 << 20


def test_suite_block_limits():
    # the time budget bounds the size, and so do memory and disk
    big = suites.suite_block(2, 54, 60, None, mem_avail=64 << 30, disk_free=1 << 40, rate_mib=150)
    assert big * 2 <= 60 * 150 * (1 << 20) / 54
    small = suites.suite_block(2, 54, 60, None, mem_avail=64 << 30, disk_free=64 << 20, rate_mib=150)
    assert small * 2 <= 16 << 20
    with pytest.raises(ParioError, match="not enough room"):
        suites.suite_block(2, 54, 60, None, mem_avail=64 << 30, disk_free=64 << 10, rate_mib=150)


def test_engine_spec_matches_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schemas" / "spec.schema.json").read_text())
    cases = cases_of(["--config", str(ROOT / "examples" / "job.toml")]) + cases_of(["-F", "-z", "-t", "4k"])
    spec.unique_names(cases)
    doc = engine_spec("r1", "/tmp", "pario.r1", "/tmp/st", cases)
    jsonschema.validate(doc, schema)
    assert all(not k.startswith("_") for c in doc["cases"] for k in c)
