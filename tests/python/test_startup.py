"""pario's start-up stays cheap: `import pario.cli`, `pario --version`, `pario --help` and each
`pario COMMAND --help` load none of the heavy packages (numpy, plotting, templates, the tuner) nor
pario's own analysis, report, tune and advise code; a command loads them when it runs. Each case
runs in a fresh interpreter, so that nothing another test imported hides an import. The time this
saves is measured in benchmarks/startup/run.py, not here."""
from __future__ import annotations

import json
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
