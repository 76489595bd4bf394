"""Text that pario did not write, parsed with bounds: JSON, TOML and XML become Python values or
one line saying what is wrong (strict UTF-8, no NaN, no nesting beyond MAX_DEPTH, no XML entities).
Pure: reading files is platform/documents.py, which bounds their size and checks schemas."""
from __future__ import annotations

import json
import re
import sys

from pario.model.errors import ParioError

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:  # the TOML and XML parsers are imported by the functions that read those formats
    import xml.etree.ElementTree as ET
    from typing import Any

MAX_DEPTH = 64  # deeper than any document pario writes or reads (profile logs nest 8 levels)


def decode(data: bytes, what: str) -> str:
    """UTF-8 text, or one line naming the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ParioError(f"{what}: line {line} is not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                         "is it a text file?") from None


def depth(doc: Any) -> int:
    """How deeply lists and dicts nest in doc (0 for a scalar), without recursion."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        elif not isinstance(node, (list, tuple)):
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in node if isinstance(child, (dict, list, tuple)))
    return deepest


def _check_depth(doc: Any, what: str, max_depth: int) -> None:
    if depth(doc) > max_depth:
        raise ParioError(f"{what} nests more than {max_depth} levels deep; no such document is that deep")


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text: str, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON text as Python values; NaN and Infinity (not JSON) and deep nesting are refused."""
    try:
        doc = json.loads(text, parse_constant=_constant)
    except RecursionError:
        raise ParioError(f"{what} nests more than {max_depth} levels deep; no such document is that deep") from None
    except json.JSONDecodeError as exc:
        raise ParioError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except ValueError as exc:  # NaN/Infinity, or an integer of thousands of digits
        raise ParioError(f"{what} is not valid JSON ({exc})") from None
    _check_depth(doc, what, max_depth)
    return doc


def _tomllib() -> Any:
    """This Python's TOML parser (tomllib, or its backport before 3.11), loaded when a TOML
    document is read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on older Pythons only
        import tomli as tomllib
    return tomllib


def __getattr__(name: str) -> Any:
    """`from pario.model.formats import tomllib` gives the parser without loading it with this module."""
    if name == "tomllib":
        return _tomllib()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_toml(text: str, what: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    tomllib = _tomllib()
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise ParioError(f"{what} nests more than {max_depth} levels deep; no job file is that deep") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParioError(f"{what}: not valid TOML ({exc})") from None
    _check_depth(doc, what, max_depth)
    return doc


def parse_xml(text: str, what: str, max_depth: int = MAX_DEPTH) -> ET.Element:
    """An XML document without DTD (no entities to expand), at most `max_depth` elements deep."""
    import xml.etree.ElementTree as ET

    if re.search(r"<!(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise ParioError(f"{what}: XML with a DOCTYPE or ENTITY declaration is not read; remove it")
    parser = ET.XMLPullParser(events=("start", "end"))
    level, root = 0, None
    try:
        parser.feed(text)
        parser.close()
        for event, elem in parser.read_events():  # type: ignore[misc]  # ("start"|"end", Element) here
            if event == "start":
                level += 1
                root = elem if root is None and isinstance(elem, ET.Element) else root
                if level > max_depth:
                    raise ParioError(f"{what}: XML elements nest more than {max_depth} deep; "
                                     "no settings file is that deep")
            else:
                level -= 1
    except ET.ParseError as exc:
        raise ParioError(f"{what}: not well-formed XML ({exc})") from None
    if root is None:
        raise ParioError(f"{what}: no XML element in it")
    return root
