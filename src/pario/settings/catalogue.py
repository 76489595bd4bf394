"""One row of the settings catalogue: an MPI-IO hint, an Open MPI MCA parameter, a Lustre layout
field or a library knob, described the same way (name, type, range, default, who honours it),
so that validation, `pario settings keys`, rendering and a tuner's search space read one shape.

The engine's `--list` will describe each backend's options as {"name", "type", "min", "max",
"choices", "default", "help"}: `Setting.from_listing` reads that shape, so the library knobs can
come from the engine instead of settings/knobs.py by changing one function (knobs.library_options)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str                        # int | bytes | float | bool | choice | str | output (reported, not set)
    default: str | None = None
    choices: tuple[str, ...] = ()
    doc: str = ""
    lo: float | None = None       # smallest valid value of an int/bytes/float setting
    hi: float | None = None
    impls: tuple[str, ...] = ()      # MPI-IO implementations that honour a hint (romio, ompio, cray)
    alias_of: str | None = None   # canonical name when this is an alias (OMPIO stripe_size)

    @classmethod
    def from_listing(cls, row: dict[str, Any]) -> Setting:
        """A row of the engine's option listing: {"name", "type", "min", "max", "choices", "default", "help"}."""
        default = row.get("default")
        return cls(name=str(row["name"]), kind=str(row.get("type") or "str"),
                   default=None if default is None else str(default).lower() if isinstance(default, bool)
                   else str(default),
                   choices=tuple(str(c) for c in row.get("choices") or ()), doc=str(row.get("help") or ""),
                   lo=row.get("min"), hi=row.get("max"))

    @property
    def values(self) -> tuple[str, ...]:
        """The values a choice or a boolean takes; () for the others."""
        return self.choices or (("true", "false") if self.kind == "bool" else ())


def hint(name: str, kind: str, impls: tuple[str, ...], default: str | None = None, choices: tuple[str, ...] = (),
         doc: str = "", alias_of: str | None = None, lo: float | None = None,
         hi: float | None = None) -> Setting:
    """An MPI-IO hint row (the tables of settings/hints.py)."""
    if lo is None and kind == "bytes":
        lo = 0
    return Setting(name, kind, default, tuple(choices), doc, lo, hi, tuple(impls), alias_of)


def knob(name: str, kind: str, default: str | None = None, choices: tuple[str, ...] = (), doc: str = "",
         lo: float | None = None, hi: float | None = None) -> Setting:
    """An MCA parameter, layout field or library knob row (the tables of settings/knobs.py)."""
    if lo is None and kind == "bytes":
        lo = 0
    return Setting(name, kind, default, tuple(choices), doc, lo, hi)
