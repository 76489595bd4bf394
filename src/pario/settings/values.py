"""The one check of a value against its row of a typed table (settings.catalogue.Setting: kind,
range, choices): MPI-IO hints, MCA parameters, the Lustre layout, library knobs, and pario's own
flags and job-file keys (plan/inputs.py) all go through `parse` or `check` here, so that every
command accepts and refuses the same values.

Who reads the value decides its syntax:
  "mpi"    the MPI library reads it verbatim (a hints file, --hint, MPI_Info, MPICH_MPIIO_HINTS):
           ROMIO, OMPIO and Cray MPICH read numbers with atoi, so a number must be a plain decimal
           integer in C int range ('16mb' is read as 16, '0x10' as 0, '1e6' as 1), and a choice
           is spelled as they compare it (lower or upper case).
  "pario"  pario reads it and hands on a plain number (--set, flags, job files, library knobs):
           sizes may carry a binary suffix (4k, 16m, 2g: powers of 1024 like IOR).
Kinds: int | bytes (a byte count the MPI reads into a C int; "mpi": decimal only) | size (a byte
count; suffixes always, as the engine, Open MPI's MCA and lfs read them) | float | bool | choice |
str | output (reported by the MPI, never set)."""
from __future__ import annotations

import math
import re

from pario.model.errors import did_you_mean

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:  # the rows are only read here: a wrapper's parser checks names with this module alone
    from typing import Any, Protocol

    from pario.settings.catalogue import Setting

    class Row(Protocol):
        """What parse reads of a row: a catalogue Setting, or a command's own flag (cli.args.row)."""

        @property
        def kind(self) -> str: ...
        @property
        def lo(self) -> float | None: ...
        @property
        def hi(self) -> float | None: ...
        @property
        def choices(self) -> tuple[str, ...]: ...

TEXT_MAX = 4096  # characters of any text a flag or key takes: a path's; a megabyte of text is a mistake
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1  # C int: what atoi, strtol into an int and std::stoi hold
INT64_MAX = (1 << 63) - 1
_DECIMAL = re.compile(r"^[+-]?\d+$")
_SIZE = re.compile(r"^(\d+)\s*([kmgt]?)(i?b)?$", re.IGNORECASE)
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
TRUE = ("true", "on", "yes", "1", "enable")
FALSE = ("false", "off", "no", "0", "disable")


def control_char(text: str) -> str | None:
    """The first control character of text, shown as an escape ('\\x00'), or None. No reader of
    pario's values takes one: C strings end at NUL, and a newline breaks every line-based format."""
    bad = next((ch for ch in text if ord(ch) < 32 or ord(ch) == 127), None)
    return None if bad is None else repr(bad)[1:-1]


def _atoi(text: str) -> int:
    """What C's atoi makes of text: leading blanks, a sign, then digits up to the first other character."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _meant(text: str) -> int | None:
    """The number text probably means ('16mb' -> 16777216, '0x10' -> 16, '1e6' -> 1000000)."""
    m = _SIZE.match(text)
    if m:
        return int(m.group(1)) * _SCALE[m.group(2).lower()]
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        real = float(text)
    except ValueError:
        return None
    return int(real) if math.isfinite(real) and real == int(real) else None


DIGITS_MAX = 40   # no setting holds a number this long (2^127 has 39 digits); Python's int() refuses 4300


def _integer(text: str, kind: str, syntax: str) -> tuple[int | None, str | None]:
    digits = sum(c.isdigit() for c in text)
    if digits > DIGITS_MAX:   # a 100,000-digit value ended in a traceback (int()'s own limit)
        return None, f"has {digits:,} digits: out of range for any setting"
    if _DECIMAL.match(text):
        return int(text), None
    if syntax == "mpi":
        meant = _meant(text)
        how = f"; write {meant}" if meant is not None and meant != _atoi(text) else \
            "; write the number in plain decimal digits"
        return None, f"is read as {_atoi(text)} by the MPI (ROMIO and OMPIO parse integers with atoi){how}"
    if kind in ("bytes", "size"):
        m = _SIZE.match(text)
        if m:
            return int(m.group(1)) * _SCALE[m.group(2).lower()], None
        return None, "is not a size; write e.g. 4k, 1m, 256m or 2g (powers of 1024) or a number of bytes"
    return None, "needs an integer"


def _range(number: float, lo: float | None, hi: float | None) -> str | None:
    if (lo is None or number >= lo) and (hi is None or number <= hi):
        return None
    if lo is not None and hi is not None:
        span = f"from {lo:g} to {hi:g}" if isinstance(lo, float) or isinstance(hi, float) else f"from {lo} to {hi}"
    elif lo is not None:
        span = f"at least {lo:g}" if isinstance(lo, float) else f"at least {lo}"
    else:
        span = f"at most {hi:g}" if isinstance(hi, float) else f"at most {hi}"
    return f"is out of range; give a value {span}"


def parse(row: Row, value: Any, syntax: str = "pario", max_chars: int | None = None) -> tuple[Any, str | None]:
    """(the typed value, None) or (None, what is wrong: a phrase that follows the value).
    int/bytes/size -> int, float -> float, bool -> bool, choice -> the row's spelling, str -> str.
    `value` is the text a user typed, or a TOML/JSON value (an int where a number belongs)."""
    kind = row.kind
    if kind == "output":
        return None, "is reported by ROMIO, not set; remove it"
    if isinstance(value, (dict, list, tuple)):
        shape = "table" if isinstance(value, dict) else "list"
        return None, f"must be {_NOUN.get(kind, 'a value')}, not a {shape}"
    if isinstance(value, str):
        bad = control_char(value)
        if bad:
            return None, f"holds the control character {bad}; remove it"
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        low = str(value).strip().lower() if isinstance(value, str) else None
        if low in TRUE:
            return True, None
        if low in FALSE:
            return False, None
        return None, "must be true or false"
    if isinstance(value, bool):
        return None, f"must be {_NOUN.get(kind, 'a value')}, not {str(value).lower()}"
    if kind in ("int", "bytes", "size"):
        if isinstance(value, float):  # int(nan) raises: finiteness first
            return None, "needs an integer" if not math.isfinite(value) or value != int(value) else \
                f"needs an integer (write {int(value)})"
        if isinstance(value, int):
            number: int | None = value
        elif isinstance(value, str):
            text = value.strip()
            if not text:
                return None, "needs a value"
            number, why = _integer(text, kind, syntax)
            if why:
                return None, why
        else:
            return None, f"needs {_NOUN[kind]}"
        assert number is not None
        lo, hi = row.lo, row.hi
        if syntax == "mpi" or kind == "bytes":  # atoi into a C int: beyond it the MPI reads another number
            lo = INT_MIN if lo is None else max(lo, INT_MIN)
            hi = INT_MAX if hi is None else min(hi, INT_MAX)
        elif kind == "int":  # strtol into an int, std::stoi: a C int unless the row says otherwise
            lo = INT_MIN if lo is None else lo
            hi = INT_MAX if hi is None else hi
        else:  # a byte count the engine reads into a signed 64-bit offset
            hi = INT64_MAX if hi is None else hi
        why = _range(number, lo, hi)
        return (None, why) if why else (number, None)
    if kind == "float":
        if isinstance(value, (int, float)):
            real = float(value)
        elif isinstance(value, str) and _FLOAT.match(value.strip()):
            real = float(value.strip())
        else:
            return None, "needs a number"
        if not math.isfinite(real):
            return None, "needs a finite number"
        why = _range(real, row.lo, row.hi)
        return (None, why) if why else (real, None)
    if not isinstance(value, str):
        return None, f"must be {_NOUN.get(kind, 'a string')}, not {value!r}"
    text = value.strip()
    if kind == "choice":
        for choice in row.choices:
            # ROMIO compares with strcmp against the lower- and the upper-case spelling ("enable", "ENABLE")
            if text in (choice, choice.upper()) or (syntax != "mpi" and text.lower() == choice.lower()):
                return choice, None
        close = [c for c in row.choices if c.lower() == text.lower()]
        if close:
            return None, (f"is spelled {close[0]} for the MPI: ROMIO compares it with strcmp against "
                          f"{close[0]} or {close[0].upper()} only, and ignores anything else")
        return None, f"must be one of {', '.join(row.choices)}{did_you_mean(text, row.choices)}"
    if not text:
        return None, "needs a value"
    if max_chars is not None and len(text) > max_chars:
        return None, f"is {len(text)} characters long; at most {max_chars} are passed on"
    return text, None


def shown(value: Any) -> str:
    """A value as a message quotes it: strings quoted and cut, numbers as they are."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "a list"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def describe(row: Setting) -> str:
    """What a row takes, as a phrase after 'is': 'one of a, b', 'a size in bytes (e.g. 1048576 or 1m)'."""
    if row.kind == "choice" or row.kind == "bool":
        return f"one of {', '.join(row.values)}"
    if row.kind in ("bytes", "size"):
        span = f" of at least {row.lo:g}" if row.lo else ""
        return f"a size in bytes{span} (e.g. 1048576 or 1m)"
    if row.kind in ("int", "float"):
        noun = "an integer" if row.kind == "int" else "a number"
        if row.lo is not None and row.hi is not None:
            return f"{noun} from {row.lo:g} to {row.hi:g}"
        if row.lo is not None:
            return f"{noun} of at least {row.lo:g}"
        return noun + (f" of at most {row.hi:g}" if row.hi is not None else "")
    return "a string"


_NOUN = {"int": "an integer", "bytes": "a number of bytes", "size": "a size", "float": "a number",
         "bool": "true or false", "choice": "one of its choices", "str": "a string"}


def check(row: Setting, value: Any, syntax: str = "pario",
          max_chars: int | None = None) -> tuple[str | None, str | None]:
    """(the value as the reader gets it, None) or (None, what is wrong). Numbers become plain decimal
    text (16m -> 16777216), booleans true/false, choices the row's spelling."""
    typed, why = parse(row, value, syntax, max_chars)
    if why:
        return None, why
    if isinstance(typed, bool):
        return ("true" if typed else "false"), None
    if isinstance(typed, float):
        text = str(value).strip() if isinstance(value, str) else repr(typed)
        return text, None
    return str(typed), None
