"""Sizes, the one family of parsers and formatters: powers of 1024 like IOR ("4k", "1m", "2g").

Parsers: `parse_size` (strict: a flag or job-file size, errors name where it came from) and
`parse_bytes` (lenient: a settings value, None when it is not a size). Formatters, each kept
for the place that shows it: `exact` (the largest unit that divides, for flags, labels and lfs),
`human` (4 significant digits, for notes), `short` (whole or one decimal, for `pario stack`)
and `tenths` (one decimal, for `pario profile show`)."""
from __future__ import annotations

import re

from pario.model.errors import ParioError

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from typing import Any

KIB, MIB, GIB, TIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40
_SCALE = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}
_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
# (binary unit name, bytes), largest first
_BINARY = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))


def parse_size(text: Any, what: str = "size") -> int:
    """'4k' -> 4096. Integers pass through. Zero or negative is rejected."""
    if isinstance(text, bool):
        raise ParioError(f"{what}: expected a size like 4k, 1m or 2g, got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        m = _SIZE.match(str(text))
        if not m:
            raise ParioError(f"{what}: {text!r} is not a size; write e.g. 4k, 1m, 256m or 2g (powers of 1024)")
        value = int(m.group(1)) * _SCALE[m.group(2).lower()]
    if value <= 0:
        raise ParioError(f"{what}: must be greater than zero, got {text!r}")
    return value


def parse_duration(text: str, what: str = "duration") -> float:
    """Seconds from 900, 900s, 20m or 1h (a positive number, s/m/h)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text or "")
    if not m or float(m.group(1)) <= 0:
        raise ParioError(f"{what} {text!r}: give a duration such as 900s, 20m or 1h")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def parse_bytes(text: str) -> int | None:
    """'4m', '4MiB', '4194304', '0x400000' -> bytes; None if not a size."""
    m = _SIZE.match(str(text))
    if m:
        return int(m.group(1)) * _SCALE[m.group(2).lower()]
    try:
        return int(str(text), 0)
    except ValueError:
        return None


def count(n: Any, word: str, plural: str | None = None) -> str:
    """'1 rank', '2 ranks', '1 directory', '3 directories', '1,000 writes': a number with its noun."""
    if isinstance(n, (int, float)) and not isinstance(n, bool):
        many = plural or (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else
                          word + "es" if word.endswith(("s", "sh", "ch", "x")) else word + "s")
        shown = f"{n:,}" if isinstance(n, int) and abs(n) >= 10000 else f"{n:g}" if isinstance(n, float) else str(n)
        return f"{shown} {word if n == 1 else many}"
    return f"{n} {plural or word + 's'}"   # '?' or a text: the plural, as before


def exact(n: int, letters: str = "gmk") -> str:
    """The largest unit that divides n: 4194304 -> '4m'; else the bytes. `letters` spells G, M
    and K: 'gmk' as IOR's flags take them, 'GMk' in table labels, 'GMK' for `lfs setstripe`."""
    for letter, mult in zip(letters, (GIB, MIB, KIB)):
        if n >= mult and n % mult == 0:
            return f"{n // mult}{letter}"
    return str(n)


def human(n: float) -> str:
    """'1.5 GiB', '256 MiB', '512 B': four significant digits, up to TiB."""
    for unit, mult in _BINARY:
        if n >= mult:
            return f"{n / mult:.4g} {unit}"
    return f"{int(n)} B"


def seconds(x: float | None) -> str:
    """'123 s', '2.48 s', '36.0 ms', '40 us', '0'; '-' for no figure."""
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f} s"
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} us" if x else "0"


def short(n: Any) -> str:
    """'4 MiB', '1.5 GiB', '512 B' (whole numbers and anything above 100 without decimals);
    '?' for what is not an integer (a fact that could not be read)."""
    if not isinstance(n, int):
        return "?"
    for unit, scale in _BINARY:
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) or value >= 100 else f"{value:.1f} {unit}"
    return f"{n} B"


def tenths(n: float | None) -> str:
    """'1.0 MiB', '512 B', '0' for none: one decimal, up to GiB."""
    if not n:
        return "0"
    for unit, scale in _BINARY[1:]:
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"
