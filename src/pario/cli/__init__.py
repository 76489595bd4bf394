"""pario's command line: the table of commands, and main().

COMMANDS below is the one place a command is registered: its name (also the name of its module in
this package) and the one line `pario --help` lists it with. main() imports only the module of the
command asked for; `pario --help` and `pario --version` import none (the completion script and the
tests build the whole parser with build_parser()). Each command's module has

    def register(subparsers) -> None   adds the command's parser, subparsers.add_parser("NAME", description=...)
                                       (its help comes from COMMANDS), and p.set_defaults(run=run)
    def run(args) -> int               what the command does; its exit status

To add a command: write src/pario/cli/NAME.py with these two functions and add a row to COMMANDS
(the row's order is the order of `pario --help`). The module's top level imports only what its
parser needs (argparse, pario.cli.args, the typed rows of pario.plan.inputs); whatever the command
runs (rich, numpy, plotly, jinja2, optuna, the store, the analysis, report, tune and advise
packages) is imported inside run() or the functions it calls, so that `pario NAME --help` and every
other command stay fast: tests/python/test_startup.py fails otherwise. A command that wraps a
program (buffer, profile) goes further, since its start is the program's: its flags are checked by
settings.values alone (cli.args.row: no catalogue is loaded), and buffer execs the program when
nothing is left to do after it (benchmarks/startup has the figures).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from pario import __version__

# name -> the line `pario --help` lists it with, in that order
COMMANDS: dict[str, str] = {
    "bench": "measure I/O strategies on this file system and MPI (IOR-style flags)",
    "tune": "find the best settings for one case, proven beyond the noise",
    "results": "list, show and compare stored runs; import IOR results",
    "profile": "profile an unmodified program's I/O (LD_PRELOAD + PMPI)",
    "buffer": "coalesce an unmodified program's small writes (LD_PRELOAD)",
    "advise": "what to change in a job's I/O, ranked by time at stake",
    "predict": "what a pattern costs on a described system; settings to try first",
    "report": "one offline HTML page with plots of runs, profiles, findings",
    "stack": "file system, layout, MPI, MPI-IO implementation, hints in effect, libraries",
    "settings": "render settings in every dialect; check a hints file",
    "completion": "print the bash or zsh completion script of pario",
}

_EVERY = "*"  # build_parser()'s default: every command's parser


class _Registering:
    """The subparsers action as a command's register() sees it: the help line is the table's."""

    def __init__(self, action) -> None:
        self.action = action

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        return self.action.add_parser(name, help=COMMANDS[name], **kwargs)


def build_parser(chosen: str | None = _EVERY) -> argparse.ArgumentParser:
    """pario's parser: with every command's flags (the default); with only the command `chosen`
    (the others are not needed: its own parser reports what is wrong in its words); or, chosen
    None, every command listed by name and help (`pario --help`, a name that is no command)."""
    from pario.cli.args import Parser

    parser = Parser(
        prog="pario", description="Parallel I/O toolkit for HPC: measure, inspect, tune and profile I/O.")
    parser.add_argument("--version", action="version", version=f"pario {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, line in COMMANDS.items():
        if chosen in (_EVERY, name):
            importlib.import_module(f"{__name__}.{name}").register(_Registering(sub))
        elif chosen is None:
            sub.add_parser(name, help=line)
    return parser


def _chosen(words: list[str]) -> str | None:
    """The command a command line asks for: its first word, or the first after --version (pario's
    one option that takes no value and prints no list of commands), if it names a command. None
    otherwise (`pario --help bench`, `pario -- bench`, a misspelt command: every command is listed)."""
    for word in words:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
        if not (len(word) > 2 and "--version".startswith(word)):
            return None
    return None


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


def _end_now(code: int) -> None:
    """End the process without the interpreter's teardown, for a command that has said nothing is
    left to do (args.end_now: `pario profile` once its log is written): freeing every module and
    object cost it 15 ms of CPU, a third of what it adds to the program (benchmarks/startup).
    stdout and stderr are flushed first; the ordinary exit is kept (this returns) if anything may
    still need it: an atexit handler (a temporary directory's cleanup registers one), another
    thread, or a stream that cannot be flushed (the ordinary exit reports it). The handlers are
    counted by CPython's private atexit._ncallbacks(): where it does not exist (another interpreter,
    a later CPython) nothing says none is registered, so the ordinary exit is kept."""
    import atexit

    threading = sys.modules.get("threading")
    handlers = getattr(atexit, "_ncallbacks", None)
    if not callable(handlers) or handlers() or (threading is not None and threading.active_count() > 1):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def main(argv=None) -> int:
    from pario.model.errors import ParioError, Stopped

    args = None  # a command line argparse refuses has no args: its words say whether --json was asked
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_chosen(words))
        args = parser.parse_args(join_values(words))
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
        code = int(args.run(args) or 0)
        if argv is None and getattr(args, "end_now", False):  # the program (console script, python -m pario)
            _end_now(code)
        return code
    except ParioError as exc:
        import json

        from pario.cli.args import one_line

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
