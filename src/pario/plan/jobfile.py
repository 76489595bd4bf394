"""A TOML job file: a [defaults] table and [[case]] tables with the long flag names."""
from __future__ import annotations

from typing import Any

from pario.model.errors import ParioError
from pario.plan import inputs
from pario.plan.cases import normalise
from pario.platform import documents

JOB_FILE_LINES = 100000  # a job file of thousands of cases still fits


def load_toml(path: str, flag: str = "--config") -> dict[str, Any]:
    """A TOML file (a job file, a tuning space file), read bounded (platform.documents), or one line
    saying why not."""
    what = "job file" if flag == "--config" else f"{flag} file"
    text = documents.read_text(path, what, max_lines=JOB_FILE_LINES)
    return documents.parse_toml(text, f"{what} {path}")


def load_config(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """([defaults], [case, ...]) of a job file, read bounded (platform.documents), every key and
    value checked by its row (plan/inputs.py) before anything else happens."""
    doc = load_toml(path)
    if "preset" in doc:
        raise ParioError(f"--config {path} is a preset (it has a [preset] table): run it with "
                         f"`pario bench --preset {path}`")
    unknown = set(doc) - {"defaults", "case"}
    if unknown:
        raise ParioError(f"{path}: unknown table '{inputs.shown(sorted(unknown)[0])[1:-1]}'; "
                         "a job file has [defaults] and [[case]] tables")
    defaults = normalise(doc.get("defaults", {}), f"{path} [defaults]")
    cases = doc.get("case", [])
    if not isinstance(cases, list) or not cases:
        raise ParioError(f"{path}: no [[case]] tables; add at least one (see examples/job.toml)")
    return defaults, [normalise(c, f"{path} case {i + 1}") for i, c in enumerate(cases)]
