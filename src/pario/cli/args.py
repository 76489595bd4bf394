"""argparse as pario uses it: every flag that takes a value converts and checks it with its typed
row (plan/inputs.py for bench, the rows of each command's module otherwise; settings.values does
the checking), and a mistake on the command line is one line and exit 2, not argparse's usage
block. tests/python/test_inputs.py checks that no flag of any command takes a value without a row.

    p.add_argument("-i", "--reps", type=typed(inputs.CASE["reps"]))
"""
from __future__ import annotations

import argparse
import os
import re
import sys

from pario.model.errors import ParioError

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:  # imported where a value is checked: `pario --version` and `pario --help` need neither
    from typing import Any, Callable, NoReturn

    from pario.settings.catalogue import Setting


def one_line(message: str) -> str:
    """The message with control characters shown as escapes: a name or value from a file may hold a
    newline or a carriage return, and the error is still one line."""
    return "".join(repr(ch)[1:-1] if ch < " " or "\x7f" <= ch <= "\x9f" or ch in "\u2028\u2029" else ch
                   for ch in message)


class UsageError(ParioError):
    """A command line argparse could not read: exit 2, one line."""


# IOR's long option names (its -h) and the pario flag of each: `--blockSize 1m` is IOR's -b.
IOR_NAMES = {"blocksize": "-b", "transfersize": "-t", "segmentcount": "-s", "numtasks": "-n", "repetitions": "-i",
             "fileperproc": "-F", "fsync": "-e", "keepfile": "-k", "api": "-a", "collective": "-c",
             "writefile": "-w", "readfile": "-r", "checkwrite": "-W", "checkread": "-R", "testfile": "-o",
             "reordertasks": "-C", "reordertasksconstant": "-Q", "randomoffset": "-z", "setalignment": "--lib",
             "deadlineforstonewalling": "-D", "fsyncperwrite": "-Y", "uniquedir": "-u",
             "useexistingtestfile": "-E", "maxtimeduration": "-T", "hintsfilename": "--hints-file",
             "memorypertask": "--buffer", "datapacket": "-G"}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The description and epilog as written (their tables and examples keep their columns), but
    never wider than the help's width (80 columns on a pipe or an 80-column terminal): a run of
    unindented lines wider than it is one paragraph, filled; a wider indented line keeps its left
    column and wraps its text under its right one (or below it, when that column is far right), and
    a command continues with a backslash. tests/python/test_help_width.py checks every command."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        # argparse asks shutil.get_terminal_size for the width, and its parsers make a formatter for
        # every flag they are given: the terminal's columns read as shutil reads them ($COLUMNS, else
        # stdout's terminal, else 80) spare each command's start the import of shutil (and of the
        # compression modules it loads)
        super().__init__(prog, indent_increment, max_help_position, _columns() if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # here: a command line that prints no help needs none

        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose and any(len(indent + line) > width for line in prose):
                out.extend(textwrap.wrap(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent,
                                         break_on_hyphens=False, break_long_words=False))
            else:
                out.extend(indent + line for line in prose)
            prose.clear()

        for line in text.splitlines():
            if line and not line[0].isspace():
                prose.append(line)
                continue
            flush()
            out.extend(_fit_line(indent + line, width))
        flush()
        return "\n".join(out)


def _columns() -> int:
    """shutil.get_terminal_size().columns, without shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stdout = sys.__stdout__
    if columns <= 0 and stdout is not None:
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _fit_line(line: str, width: int) -> list[str]:
    import textwrap

    if len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip())]
    if len(lead) > width - 30:   # the rest of a far-right column: under the text its first line moved
        line, lead = " " * 8 + line.lstrip(), " " * 8
        if len(line) <= width:
            return [line]
    two = re.match(r"(\s*\S.*?\S)(\s{2,})(\S.*)$", line)
    if two and not line.lstrip().startswith(("pario ", "$ ")):
        left, right = two.group(1), two.group(3)
        column = len(left) + len(two.group(2))
        if column <= width - 30:   # the right column wraps under itself
            return textwrap.wrap(right, width, initial_indent=left + two.group(2), subsequent_indent=" " * column,
                                 break_on_hyphens=False, break_long_words=False)
        return [left] + textwrap.wrap(right, width, initial_indent=lead + "    ", subsequent_indent=lead + "    ",
                                      break_on_hyphens=False, break_long_words=False)
    command = line.lstrip().startswith(("pario ", "$ "))
    if command and two:   # an example and what it does: the example whole (continued), its words below
        return _fit_line(two.group(1), width) + textwrap.wrap(
            two.group(3), width, initial_indent=lead + "    ", subsequent_indent=lead + "    ",
            break_on_hyphens=False, break_long_words=False)
    lines = textwrap.wrap(line.strip(), width - 2 if command else width, initial_indent=lead,
                          subsequent_indent=lead + "    ", break_on_hyphens=False, break_long_words=False)
    return [ln + " \\" for ln in lines[:-1]] + lines[-1:] if command else lines


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (its subparsers are of this class too), whose help
    fits its width (HelpFormatter), and whose unknown flags get a suggestion (IOR's names too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("formatter_class") in (None, argparse.HelpFormatter, argparse.RawDescriptionHelpFormatter):
            kwargs["formatter_class"] = HelpFormatter
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(args) if args is not None else None
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        prog = self.prog
        flag = message.partition("argument ")[2].partition(":")[0].split("/")[-1]
        if message.endswith(": expected one argument") and flag.startswith("--"):
            # argparse reads a value that begins with '-' ('--time -5m') as the next flag
            message += f" (if its value begins with '-', write {flag}=VALUE)"
        elif message.startswith("unrecognized arguments:"):
            sub = self._command()
            if sub is not None:
                prog = sub.prog
                unknown = next((w for w in message.split(":", 1)[1].split() if w.startswith("-")), "")
                message += _suggest(unknown, sub)
        elif message.startswith("the following arguments are required:"):
            missing = [a for a in self._actions if not a.option_strings and a.required
                       and str(a.metavar or a.dest) in message.split(":", 1)[1]]
            if missing:
                message = ("missing " + ", ".join(f"{a.metavar or a.dest} ({a.help})" for a in missing)
                           + "; " + " ".join(self.format_usage().split()))
        raise UsageError(f"{message} (`{prog} --help` lists what it takes)")

    def _command(self) -> argparse.ArgumentParser | None:
        """The subcommand's parser of the words this (root) parser read, if any."""
        words = getattr(self, "_words", None) or []
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                name = next((w for w in words if w in action.choices), None)
                return action.choices.get(name) if name else None
        return None


def _suggest(word: str, parser: argparse.ArgumentParser) -> str:
    """'; did you mean -b (IOR's blockSize)?' for an unknown flag, or ''."""
    import difflib

    name = word.split("=", 1)[0]
    flags = [s for a in parser._actions for s in a.option_strings]
    ior = IOR_NAMES.get(name.lstrip("-").lower())
    if ior and ior in flags:
        action = parser._option_string_actions[ior]
        return f"; did you mean {'/'.join(action.option_strings)} (IOR's {name.lstrip('-')})?"
    close = difflib.get_close_matches(name, [f for f in flags if f.startswith("--")], n=1, cutoff=0.6)
    if close:
        action = parser._option_string_actions[close[0]]
        return f"; did you mean {'/'.join(action.option_strings)}?"
    return ""


class Typed:
    """An argparse `type` made from a typed row: the value converted and checked, or argparse's one
    line naming the flag ("argument -i/--reps: 0 is out of range; give a value from 1 to ...").
    A row may be given as `make`, a function that returns it when a value is first checked: the
    commands that wrap a program start it sooner when their parser loads no catalogue."""

    def __init__(self, row: Setting | None = None, check: Callable[[str], Any] | None = None,
                 make: Callable[[], Setting] | None = None, name: str = "", own: OwnRow | None = None):
        self._row, self.check, self.make, self.own = row, check, make, own
        self.__name__ = row.name if row is not None else name or getattr(check, "__name__", "value")

    @property
    def row(self) -> Setting | None:
        if self._row is None and self.make is not None:
            self._row = self.make()
        return self._row

    def __call__(self, text: str) -> Any:
        if self.check is not None:
            try:
                return self.check(text)
            except ParioError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        if self.own is not None:  # a command's own flag: settings.values alone checks it
            from pario.settings import values

            value, why = values.parse(self.own, text, "pario", max_chars=values.TEXT_MAX)
            if why:
                raise argparse.ArgumentTypeError(f"{values.shown(text)} {why}")
            return value
        from pario.plan import inputs

        row = self.row
        assert row is not None
        value, why = inputs.check(row, text)
        if why:
            raise argparse.ArgumentTypeError(f"{inputs.shown(text)} {why}")
        return value


def typed(row: Setting) -> Typed:
    return Typed(row)


def checked(fn: Callable[[str], Any]) -> Typed:
    """A value whose check is a function (KEY=VALUE pairs, run ids): it raises ParioError."""
    return Typed(check=fn)


class OwnRow:
    """What settings.values.parse reads of a command's own row, without the catalogue's dataclass:
    importing dataclasses and plan.inputs was most of what `pario profile -o LOG` cost its start
    (benchmarks/startup)."""

    __slots__ = ("kind", "lo", "hi", "choices")

    def __init__(self, kind: str, lo: float | None, hi: float | None, choices: tuple[str, ...]) -> None:
        self.kind, self.lo, self.hi, self.choices = kind, lo, hi, choices


def row(name: str, kind: str, doc: str = "", lo: float | None = None, hi: float | None = None,
        choices: tuple[str, ...] = ()) -> Typed:
    """A flag of a command other than bench, declared where the command is: its value is checked by
    settings.values alone (at most TEXT_MAX characters; the engine's own limits belong to the plan's
    rows, typed()), its catalogue row made only when asked for (Typed.row)."""
    def make() -> Setting:
        from pario.settings.catalogue import Setting

        return Setting(name, kind, None, tuple(choices), doc, lo, hi)

    return Typed(make=make, name=name, own=OwnRow(kind, lo, hi, tuple(choices)))
