"""pario's command line. Each subcommand is a module of this package with
`register(subparsers)` (adds its parser and `set_defaults(run=run)`) and `run(args) -> int`."""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from pario import __version__
from pario.cli.args import Parser, one_line
from pario.model.errors import ParioError, Stopped

# Subcommand modules, in the order `pario --help` lists them.
COMMANDS = ["bench", "tune", "results", "profile", "buffer", "advise", "predict", "report", "stack", "settings",
            "completion"]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="pario", description="Parallel I/O toolkit for HPC: measure, inspect, tune and profile I/O.")
    parser.add_argument("--version", action="version", version=f"pario {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


# Options whose value is itself a command line ("-t 30 -p debug"): argparse would take such a value
# for one of pario's own short options (-t is --transfer), so `--sbatch-args VALUE` is joined into
# `--sbatch-args=VALUE` before parsing.
COMMAND_LINE_VALUES = ("--sbatch-args",)


def join_values(argv: list[str]) -> list[str]:
    out: list[str] = []
    it = iter(argv)
    for word in it:
        if word == "--":
            out.append(word)
            out += list(it)
            break
        flag = [f for f in COMMAND_LINE_VALUES if len(word) > 3 and f.startswith(word)]
        if flag and "=" not in word:
            value = next(it, None)
            out.append(f"{flag[0]}={value}" if value is not None else word)
        else:
            out.append(word)
    return out


def _asked_json(words: list[str]) -> tuple[bool, str | None]:
    """(--json given, the command) of a command line argparse refused: its error is a document too."""
    given = words[:words.index("--")] if "--" in words else words
    command = next((w for w in given if w in COMMANDS), None)
    return "--json" in given, command


def main(argv=None) -> int:
    parser = build_parser()
    args = None  # a command line argparse refuses has no args: its words say whether --json was asked
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(join_values(words))
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
        return int(args.run(args) or 0)
    except ParioError as exc:
        print(f"pario: error: {one_line(str(exc))}", file=sys.stderr)
        as_json, command = _asked_json(words)
        if args is not None:
            as_json = getattr(args, "json", False)
            # `command` is the subcommand's name, except for profile, whose REMAINDER takes the dest
            command = args.command if isinstance(getattr(args, "command", None), str) else command
        if as_json:  # a script reading stdout gets a document too (schemas/error.schema.json)
            print(json.dumps({"schema": "pario.error/1", "command": command,
                              "error": one_line(str(exc)), "exit_code": exc.exit_code}))
        return exc.exit_code
    except Stopped as exc:  # before anything was measured (a run that measured is stored and returns)
        print(f"pario: stopped by {exc.name}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("pario: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`pario ... | head`): end as a command that SIGPIPE stopped would, quietly
        # (the cleanup of whatever was running has been done on the way out); stdout goes to /dev/null so
        # that the interpreter's own flush at exit does not fail again
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 128 + 13
