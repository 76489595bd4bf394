"""pario's start-up stays cheap: `import pario.cli`, `pario --version`, `pario --help` and each
`pario COMMAND --help` load none of the heavy packages (numpy, plotting, templates, the tuner) nor
pario's own analysis, report, tune and advise code; a command loads them when it runs. Each case
runs in a fresh interpreter, so that nothing another test imported hides an import. The time this
saves is measured in benchmarks/startup/run.py, not here."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pario.cli import COMMANDS

# Loaded by no command line that only parses: the third-party packages by their top-level name,
# pario's own by their package.
HEAVY = ("numpy", "plotly", "jinja2", "optuna", "rich", "sqlite3",
         "pario.analysis", "pario.report", "pario.tune", "pario.advise", "pario.store", "pario.profile",
         "pario.buffer", "pario.run")

PROBE = """
import json, sys
from pario.cli import main
words = json.loads(sys.argv[1])
if words is not None:
    try:
        main(words)
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def loaded(words: list[str] | None) -> set[str]:
    """The modules a fresh interpreter holds after `import pario.cli` (and main(words))."""
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(words)], capture_output=True, text=True,
                         check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_import_loads_nothing_heavy():
    modules = loaded(None)
    assert heavy(modules) == []
    # nor any command's module: they are loaded when chosen
    assert sorted(m for m in modules if m.startswith("pario.cli.") and m != "pario.cli.args") == []


@pytest.mark.parametrize("words", [["--version"], ["--help"], []], ids=lambda w: " ".join(w) or "none")
def test_top_level_loads_no_command(words):
    modules = loaded(words)
    assert heavy(modules) == []
    assert sorted(m for m in modules if m.startswith("pario.cli.") and m != "pario.cli.args") == []


# What a command's --help may load besides its own module, and why: tune states the race's cap
# (tune/racing.py, which imports numpy only when it races) and takes bench's default ranks;
# profile takes its --buffer-size and --buffer-files checks from buffer.
ALLOWED = {"tune": {"pario.tune", "pario.tune.racing", "pario.cli.bench"}, "profile": {"pario.cli.buffer"}}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_of_a_command_loads_only_its_parser(command):
    modules = loaded([command, "--help"]) - ALLOWED.get(command, set())
    assert heavy(modules) == []
    assert sorted(m for m in modules if m in {f"pario.cli.{c}" for c in COMMANDS if c != command}) == []


WRAPPED = """
import json, os, sys
import pario.run.child as child

def exec_here(argv, env):  # instead of becoming the program: what pario loaded to start it
    print(json.dumps(sorted(sys.modules)))
    sys.stdout.flush()
    os._exit(0)

child.replace = exec_here
from pario.cli import main
main(json.loads(sys.argv[1]))
"""


def test_buffer_starts_its_program_without_the_catalogue_or_anything_heavy(tmp_path_factory):
    """`pario buffer -- PROG` becomes PROG having loaded no heavy package, no typed-row catalogue
    (plan.inputs and its dataclasses) and no Slurm module outside an allocation: the wrapper's start
    is the program's (benchmarks/startup)."""
    from profile_support import preload_lib

    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env["PARIO_PRELOAD"] = preload_lib(tmp_path_factory)
    out = subprocess.run([sys.executable, "-c", WRAPPED, json.dumps(["buffer", "--", "true"])], capture_output=True,
                         text=True, env=env, check=True)
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    assert sorted(m for m in heavy(modules) if not m.startswith(("pario.buffer", "pario.profile", "pario.run"))) == []
    assert sorted(m for m in modules if m in SPARED) == []


# What a wrapper (`pario buffer -- PROG`, `pario profile [-o LOG] -- PROG`, one process) does not
# load, each costing its start a few milliseconds of the 50 it may add (benchmarks/startup): the
# typed-row catalogue (plan.inputs, settings.catalogue and their dataclasses), the Slurm module
# outside an allocation, the schema validator (the parts of the run are merged without it), and the
# standard modules a wrapper does without (typing: names imported under TYPE_CHECKING; subprocess:
# run/child.py spawns; tempfile: platform/outfile.py's new_file and new_dir; shutil: cli/args.py
# reads the terminal's width; textwrap: help only; pathlib, with the urllib.parse and ipaddress it
# imports: the paths are strings, platform/outfile.py's path_text writes them as pathlib does).
SPARED = ("pario.plan.inputs", "pario.settings.catalogue", "pario.platform.slurm", "dataclasses", "jsonschema",
          "typing", "subprocess", "tempfile", "shutil", "textwrap", "pathlib", "urllib", "ipaddress")

PROFILED = """
import json, sys
from pario.cli import main
code = main(json.loads(sys.argv[1]))
print(json.dumps(sorted(sys.modules)))
sys.exit(code)
"""


@pytest.mark.parametrize("flags", [[], ["-o", "true.log"], ["-n", "2"]], ids=["default log", "-o LOG", "-n 2"])
def test_profile_runs_its_program_and_writes_the_log_without_the_catalogue_or_anything_heavy(tmp_path, tmp_path_factory,
                                                                                              flags):
    """`pario profile [-o LOG | -n 2] -- PROG`, from its start to its log written, loads no heavy
    package and none of SPARED: its flags are checked by settings.values alone, mpirun's command
    line is made without the Slurm module and dataclasses (platform.mpi's MPI is a plain class), the
    run's parts are merged by the log reader alone. (-n asks `mpirun --version` which MPI it is:
    through subprocess.)"""
    from profile_support import preload_lib

    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env["PARIO_PRELOAD"] = preload_lib(tmp_path_factory)
    words = ["profile", *flags, "--", "true"]
    out = subprocess.run([sys.executable, "-c", PROFILED, json.dumps(words)], capture_output=True, text=True,
                         env=env, cwd=tmp_path, check=True)
    assert f"profile of {'2 processes' if '-n' in flags else '1 process'} written to" in out.stderr, out.stderr
    modules = set(json.loads(out.stdout.splitlines()[-1]))
    mine = ("pario.buffer", "pario.profile", "pario.run", "pario.analysis.profile.logread",
            "pario.analysis.profile.launch")
    assert sorted(m for m in heavy(modules) if not m.startswith(mine) and m not in ("pario.analysis",
                                                                                 "pario.analysis.profile")) == []
    assert sorted(m for m in modules if m in SPARED and not (m == "subprocess" and "-n" in flags)) == []


@pytest.mark.parametrize("words", [["--help", "bench"], ["-h", "tune"], ["--he", "results"]], ids=" ".join)
def test_help_before_a_command_lists_every_command(words, capsys):
    """Only the chosen command's parser is built, unless pario's own help comes first."""
    from pario.cli import main

    with pytest.raises(SystemExit):
        main(words)
    out = capsys.readouterr().out
    assert all(f"    {name}" in out for name in COMMANDS), out


def test_a_word_that_is_no_command_is_refused_with_every_command_named(capsys):
    from pario.cli import main

    assert main(["--", "bench"]) == 2
    assert main(["bnech"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("invalid choice" in line for line in err)
    assert all(all(repr(name) in line for name in COMMANDS) for line in err), err


END_NOW = """
import atexit, sys
from pario.cli import _end_now
if sys.argv[1] == "handler":
    atexit.register(lambda: print("handler ran"))
if sys.argv[1] == "no counter":   # an interpreter without CPython's private atexit._ncallbacks
    del atexit._ncallbacks
print("said", end="")
_end_now(7)
print(" and returned")
"""


@pytest.mark.parametrize("case", ["nothing left", "handler", "no counter"])
def test_a_command_that_says_nothing_is_left_ends_without_the_teardown_unless_something_needs_it(case):
    """cli._end_now: stdout flushed, then the process ends with the command's code; with an atexit
    handler registered (or another thread) it returns and the ordinary exit runs the handler; where
    the handlers cannot be counted (no atexit._ncallbacks) it returns too."""
    out = subprocess.run([sys.executable, "-c", END_NOW, case], capture_output=True, text=True)
    if case == "handler":
        assert (out.returncode, out.stdout) == (0, "said and returned\nhandler ran\n")
    elif case == "no counter":
        assert (out.returncode, out.stdout, out.stderr) == (0, "said and returned\n", "")
    else:
        assert (out.returncode, out.stdout) == (7, "said")


def test_profile_as_the_program_ends_with_the_program_status_and_its_log_written(tmp_path, tmp_path_factory):
    """`python -m pario profile` (main() as the program: it ends without the teardown) exits with
    the program's status, having written its log and said so."""
    from profile_support import preload_lib

    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env["PARIO_PRELOAD"] = preload_lib(tmp_path_factory)
    out = subprocess.run([sys.executable, "-m", "pario", "profile", "-o", "sh.log", "--", "sh", "-c", "exit 3"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    assert "profile of 1 process written to sh.log" in out.stderr and "exited with status 3" in out.stderr
    assert json.loads((tmp_path / "sh.log").read_text())["kind"] == "job"
