"""Reading what users hand pario, which is untrusted: profile logs, IOR output, job files, hints
and settings files, Darshan logs, stored documents. One bounded reader for all of them: a regular
file only (a FIFO would block, /dev/zero never ends), at most a given size, nested at most a given
depth, decoded strictly, then checked against its schema (schemas/*.schema.json, with jsonschema)
before anything uses it. Every refusal is one line naming the file and, for a document, the first
violation with its path in the document (`processes[0].modules.posix.records[2].c[5]: ...`).

    doc = load_json(path, "profile log", schema="profile-log", limit=1 << 30)
    text = read_text(path, "hints file", limit=1 << 20)
"""
from __future__ import annotations

import json
import os
import stat
from functools import cache

from pario.model.errors import ParioError
from pario.model.formats import MAX_DEPTH, decode, depth, parse_json, parse_toml, parse_xml

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_DEPTH", "TEXT_LIMIT", "decode", "depth", "load_json", "parse_json", "parse_toml", "parse_xml",
           "read_bytes", "read_text", "regular_file", "schema", "validate", "violation", "where_in"]

KIB, MIB = 1 << 10, 1 << 20
TEXT_LIMIT = 1 * MIB    # a hints, settings or job file: a few kilobytes in practice
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # paths as strings: pathlib costs
_SCHEMA_DIRS = (os.path.join(_PACKAGE, "schemas"),                          # a wrapper's start (outfile.py)
                os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "schemas"))   # a source tree
_SEEN_CHARS = 60


def _size(n: int) -> str:
    """'5 GiB', '1.5 MiB', '64 KiB', '12 bytes' (units.short: '5.12e+03 MiB' was printed for 5 GiB)."""
    from pario.model.units import short

    return short(int(n)) if n >= KIB else f"{n} bytes"


def regular_file(path: str | os.PathLike, what: str, limit: int) -> os.stat_result:
    """The file's stat when it is a readable regular file of at most `limit` bytes, else one line."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ParioError(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise ParioError(f"{what} {path}: cannot read it ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ParioError(f"{what} {path} is a directory; give the file itself")
    if not stat.S_ISREG(st.st_mode):
        raise ParioError(f"{what} {path} is not a regular file (a device, pipe or socket); give a file")
    if st.st_size > limit:
        raise ParioError(f"{what} {path} is {_size(st.st_size)}, more than the {_size(limit)} pario reads "
                         f"of such a file; is it the right file?")
    return st


def read_bytes(path: str | os.PathLike, what: str, limit: int = TEXT_LIMIT) -> bytes:
    regular_file(path, what, limit)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)  # a file that grew since stat is still bounded
    except OSError as exc:
        raise ParioError(f"{what} {path}: cannot read it ({exc.strerror})") from None
    if len(data) > limit:
        raise ParioError(f"{what} {path} is more than the {_size(limit)} pario reads of such a file")
    return data


def read_text(path: str | os.PathLike, what: str, limit: int = TEXT_LIMIT, max_lines: int | None = None) -> str:
    """A UTF-8 text file of at most `limit` bytes (and `max_lines` lines)."""
    text = decode(read_bytes(path, what, limit), f"{what} {path}")
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise ParioError(f"{what} {path}: line {line} holds a NUL byte; is it a text file?")
    if max_lines is not None and text.count("\n") > max_lines:
        raise ParioError(f"{what} {path} has {text.count(chr(10))} lines, more than the {max_lines} "
                         "pario reads of such a file; is it the right file?")
    return text


def load_json(path: str | os.PathLike, what: str, schema: str | None = None, limit: int = 64 * MIB,
              max_depth: int = MAX_DEPTH) -> Any:
    """A JSON file, bounded, parsed and (with `schema`) validated: schemas/<schema>.schema.json."""
    where = f"{what} {path}"
    doc = parse_json(decode(read_bytes(path, what, limit), where), where, max_depth)
    if schema:
        validate(doc, schema, where)
    return doc


# ---- schemas -------------------------------------------------------------------------------------

@cache
def schema(name: str) -> dict[str, Any]:
    """schemas/<name>.schema.json, installed with the package (or from the source tree)."""
    for directory in _SCHEMA_DIRS:
        path = os.path.join(directory, f"{name}.schema.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)
    raise ParioError(f"the schema {name}.schema.json is not installed with pario; reinstall pario (make setup)",
                     exit_code=3)


def _inline(node: Any, defs: dict[str, Any], level: int = 0) -> Any:
    """The schema with its local "$ref"s to $defs replaced by what they name: jsonschema resolves
    every $ref at every instance, which doubles the time of a large document (pario's schemas are
    not recursive; a deeper chain is left as a $ref)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and level < 16:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            target = _inline(defs[ref[len("#/$defs/"):]], defs, level + 1)
            return {**target, **_inline(rest, defs, level)} if rest else target
        return {k: _inline(v, defs, level) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs, level) for v in node]
    return node


@cache
def _validator(name: str, part: str | None = None) -> Any:
    import jsonschema  # imported here: only commands that read documents pay for it

    doc = schema(name)
    defs = doc.get("$defs", {})
    if part:  # one of the schema's $defs (the document's own kind says which)
        doc = {**defs[part], "$schema": doc.get("$schema")}
    doc = {**_inline(doc, defs), "$defs": defs}
    cls = jsonschema.validators.validator_for(doc)
    return cls(doc)


def where_in(path: Any) -> str:
    """A path in a document as users read it: processes[0].modules.posix."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= _SEEN_CHARS else text[:_SEEN_CHARS - 3] + "..."


_JSON_TYPE = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
              float: "a number", type(None): "null"}


def violation(error: Any) -> str:
    """One jsonschema error as a phrase: what is there and what belongs there."""
    kind, value, expected = error.validator, error.instance, error.validator_value
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return f"is {_JSON_TYPE.get(type(value), type(value).__name__)} ({_shown(value)}), expected {wanted}"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        word = {"minimum": "at least", "exclusiveMinimum": "above", "maximum": "at most",
                "exclusiveMaximum": "below"}[kind]
        return f"is {_shown(value)}, must be {word} {expected}"
    if kind == "const":
        return f"is {_shown(value)}, must be {_shown(expected)}"
    if kind == "enum":
        return f"is {_shown(value)}, must be one of {', '.join(_shown(e) for e in expected)}"
    if kind == "required":
        return "has no " + error.message.replace(" is a required property", "")
    if kind in ("minItems", "maxItems", "minLength", "maxLength"):
        noun = "items" if "Items" in kind else "characters"
        return f"has {len(value)} {noun}; {'at least' if kind.startswith('min') else 'at most'} {expected} needed"
    if kind == "additionalProperties":
        return error.message.split(" (")[0] if len(error.message) > 120 else error.message
    message = error.message
    return message if len(message) <= 120 else message[:117] + "..."


def validate(doc: Any, name: str, what: str, part: str | None = None) -> None:
    """Refuse doc with the first violation of schemas/<name>.schema.json (or of its $defs `part`,
    where the document's own kind says which: the violation then names the right branch), and its path."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(name, part).iter_errors(doc))
    if error is not None:
        raise ParioError(f"{what}: {where_in(error.absolute_path)} {violation(error)}")
