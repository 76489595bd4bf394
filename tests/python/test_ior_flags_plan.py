"""IOR's -Y, -D, -u, -E, -T as job-file keys (the same rows as the flags) and where they cannot apply."""
import pytest

from engine_support import ROOT
from pario.cli import build_parser
from pario.cli.args import UsageError
from pario.cli.bench import request_of
from pario.model.errors import ParioError
from pario.plan.bench import plan
from pario.plan.validate import check_all


def cases_of(argv, ranks=4):
    args = build_parser().parse_args(["bench", *argv])
    cases = plan(request_of(args), ranks, None, free_disk=100 << 30)[0]
    check_all(cases, ranks)
    return cases


def test_example_job_file_takes_the_keys():
    by_name = {c["name"]: c for c in cases_of(["--config", str(ROOT / "examples" / "ior-flags.toml")])}
    assert by_name["fsync-each-write"]["fsync_per_write"] is True
    assert by_name["stonewall-mpiio"]["deadline_us"] == 2_500_000 and by_name["stonewall-mpiio"]["wearout"] is True
    assert by_name["fpp-rank-dirs"]["unique_dir"] is True and by_name["fpp-rank-dirs"]["max_time_ms"] == 30_000
    assert not any(k in by_name["fsync-each-write"] for k in ("deadline_us", "unique_dir", "use_existing"))


def test_flags_override_and_refusals_name_the_file(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('[[case]]\nname = "x"\nbackend = "hdf5"\nfsync_per_write = true\n')
    with pytest.raises(ParioError, match=r"job.toml.*-Y .*posix and -a mpiio"):
        cases_of(["--config", str(job)])
    (case,) = cases_of(["-a", "posix", "-w", "-D", "0.25", "-T", "1.5", "-E"])
    assert (case["deadline_us"], case["max_time_ms"], case["use_existing"]) == (250_000, 90_000, True)


@pytest.mark.parametrize("flag, value", [("-D", "0"), ("-D", "-1"), ("-D", "abc"), ("-T", "0"), ("-T", "x")])
def test_bad_values_are_one_line(flag, value):
    with pytest.raises(UsageError, match=f"argument {flag}") as err:
        cases_of(["-a", "posix", "-w", flag, value])
    assert "\n" not in str(err.value)
