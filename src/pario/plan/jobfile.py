"""A TOML job file: a [defaults] table and [[case]] tables with the long flag names."""
from __future__ import annotations

import sys
from typing import Any

from pario.model.errors import ParioError
from pario.plan.cases import normalise

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older Pythons only
    import tomli as tomllib


def load_toml(path: str, flag: str = "--config") -> dict[str, Any]:
    """A TOML file (a job file, a tuning space file), or one line saying why not."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ParioError(f"{flag} {path}: cannot read it ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ParioError(f"{flag} {path}: not valid TOML ({exc})") from None


def load_config(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """([defaults], [case, ...]) of a job file, keys normalised."""
    doc = load_toml(path)
    if "preset" in doc:
        raise ParioError(f"--config {path} is a preset (it has a [preset] table): run it with "
                         f"`pario bench --preset {path}`")
    unknown = set(doc) - {"defaults", "case"}
    if unknown:
        raise ParioError(f"{path}: unknown table '{sorted(unknown)[0]}'; a job file has [defaults] and [[case]] tables")
    defaults = normalise(doc.get("defaults", {}), f"{path} [defaults]")
    cases = doc.get("case", [])
    if not isinstance(cases, list) or not cases:
        raise ParioError(f"{path}: no [[case]] tables; add at least one (see examples/job.toml)")
    return defaults, [normalise(c, f"{path} case {i + 1}") for i, c in enumerate(cases)]
