"""argparse as pario uses it: every flag that takes a value converts and checks it with its typed
row (plan/inputs.py for bench, the rows of each command's module otherwise; settings.values does
the checking), and a mistake on the command line is one line and exit 2, not argparse's usage
block. tests/python/test_inputs.py checks that no flag of any command takes a value without a row.

    p.add_argument("-i", "--reps", type=typed(inputs.CASE["reps"]))
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from pario.model.errors import ParioError

if TYPE_CHECKING:  # imported where a value is checked: `pario --version` and `pario --help` need neither
    from pario.settings.catalogue import Setting


def one_line(message: str) -> str:
    """The message with control characters shown as escapes: a name or value from a file may hold a
    newline or a carriage return, and the error is still one line."""
    return "".join(repr(ch)[1:-1] if ch < " " or "\x7f" <= ch <= "\x9f" or ch in "\u2028\u2029" else ch
                   for ch in message)


class UsageError(ParioError):
    """A command line argparse could not read: exit 2, one line."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (its subparsers are of this class too)."""

    def error(self, message: str) -> NoReturn:
        flag = message.partition("argument ")[2].partition(":")[0].split("/")[-1]
        if message.endswith(": expected one argument") and flag.startswith("--"):
            # argparse reads a value that begins with '-' ('--time -5m') as the next flag
            message += f" (if its value begins with '-', write {flag}=VALUE)"
        raise UsageError(f"{message} (`{self.prog} --help` lists what it takes)")


class Typed:
    """An argparse `type` made from a typed row: the value converted and checked, or argparse's one
    line naming the flag ("argument -i/--reps: 0 is out of range; give a value from 1 to ...").
    A row may be given as `make`, a function that returns it when a value is first checked: the
    commands that wrap a program start it sooner when their parser loads no catalogue (run_row)."""

    def __init__(self, row: Setting | None = None, check: Callable[[str], Any] | None = None,
                 make: Callable[[], Setting] | None = None, name: str = ""):
        self._row, self.check, self.make = row, check, make
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


def row(name: str, kind: str, doc: str = "", lo: float | None = None, hi: float | None = None,
        choices: tuple[str, ...] = ()) -> Typed:
    """A flag of a command other than bench, declared where the command is (made when a value is
    first checked)."""
    def make() -> Setting:
        from pario.settings.catalogue import Setting

        return Setting(name, kind, None, tuple(choices), doc, lo, hi)

    return Typed(make=make, name=name)


def run_row(name: str) -> Typed:
    """typed(plan.inputs.RUN[name]), the row looked up when a value is first checked: for the
    commands that wrap a program (buffer, profile), whose start is the program's."""
    def make() -> Setting:
        from pario.plan.inputs import RUN

        return RUN[name]

    return Typed(make=make, name=name)
