"""Every command's --help fits 80 columns (bench's was wider on 42 lines, tune's on 13, advise's on 12):
the parsers are walked, so a command or flag added later is checked too. And what a mistyped command
line gets: an unknown flag a suggestion (IOR's long names too: `--blocksize 1m` is -b), a missing
positional its name and the usage, under the subcommand's --help."""
from __future__ import annotations

import argparse

import pytest

from pario.cli import build_parser, main


def parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def test_every_help_fits_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    seen = 0
    for path, parser in parsers(build_parser()):
        wide = [line for line in parser.format_help().splitlines() if len(line) > 80]
        assert not wide, f"pario {' '.join(path)} --help: " + "\n".join(wide)
        seen += 1
    assert seen > 20


def test_a_command_in_the_help_continues_with_a_backslash():
    from pario.cli.args import HelpFormatter

    fmt = HelpFormatter("pario", width=60)
    text = fmt._fill_text("  pario bench --pattern btio -a pnetcdf -c --lib mode=iput --class W -n 4 -w -W", 60, "")
    lines = text.splitlines()
    assert len(lines) == 2 and lines[0].endswith(" \\") and max(map(len, lines)) <= 60
    assert " ".join(w for ln in lines for w in ln.split() if w != "\\") == \
        "pario bench --pattern btio -a pnetcdf -c --lib mode=iput --class W -n 4 -w -W"


@pytest.mark.parametrize("argv,said", [
    (["bench", "--blocksize", "1m"], "did you mean -b/--block (IOR's blocksize)?"),
    (["bench", "--blockSize=1m"], "did you mean -b/--block (IOR's blockSize)?"),
    (["bench", "--transfr", "1m"], "did you mean -t/--transfer?"),
    (["tune", "--trails", "8"], "did you mean --trials?"),
])
def test_an_unknown_flag_gets_a_suggestion_under_its_command(capsys, argv, said):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and f"`pario {argv[0]} --help`" in err, err


def test_a_missing_run_id_is_named(capsys):
    """`pario results compare 5` said 'the following arguments are required: b'."""
    assert main(["results", "compare", "5"]) == 2
    err = capsys.readouterr().err
    assert "missing B (run id B)" in err and "results compare" in err and "A B" in err, err
    assert "required: b" not in err
