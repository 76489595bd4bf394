"""One validated settings object: MPI-IO hints, Open MPI MCA parameters, the Lustre layout and the
library knobs. Every dialect (settings.dialects) renders from it and parses back into it.

Keys, as `--set KEY=VALUE` takes them:
  NAME                  an MPI-IO hint (ROMIO, OMPIO info key or Cray MPICH; pario.settings.hints has them all)
  mca.NAME              an Open MPI MCA parameter (io_ompio_*, fcoll, fs_lustre_*, fbtl_posix_*)
  lustre.KEY            the Lustre layout (stripe_count, stripe_size, stripe_index, pool, ...);
  lustre.N.KEY          component N (0, 1, ...) of a composite (PFL) layout, with extent_end
  ceph.KEY              the same layout in CephFS's words (stripe_unit, stripe_count, object_size, pool)
  hdf5.KEY, pnetcdf.KEY, netcdf4.KEY, adios2.KEY   library knobs (the engine's `lib` keys)
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pario.model.errors import ParioError
from pario.settings import hints as hintlib
from pario.settings import knobs
from pario.settings import values as valuecheck
from pario.settings.catalogue import Setting

_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_bytes(text: str) -> int | None:
    """'4m', '4MiB', '4194304', '0x400000' -> bytes; None if not a size."""
    m = _SIZE.match(str(text))
    if m:
        return int(m.group(1)) * _SCALE[m.group(2).lower()]
    try:
        return int(str(text), 0)
    except ValueError:
        return None


@dataclass(frozen=True)
class Issue:
    level: str      # error | warning
    key: str
    message: str

    def line(self, where: str = "") -> str:
        return f"{where}{': ' if where else ''}{self.level}: {self.message}"


def normalize(row: Setting, value: str, syntax: str = "mpi",
              limit: str = "hint_value_chars") -> tuple[str | None, str | None]:
    """(normalized value, None) or (None, what is wrong with it): settings.values.check, the one
    check of a value against its row, with the engine's length limit of such a value."""
    return valuecheck.check(row, value, syntax, max_chars=knobs.limit(limit))


@dataclass
class Settings:
    hints: dict[str, str] = field(default_factory=dict)
    mca: dict[str, str] = field(default_factory=dict)
    layout: list[dict[str, str]] = field(default_factory=list)   # Lustre components, in order
    lib: dict[str, dict[str, str]] = field(default_factory=dict)

    def empty(self) -> bool:
        return not (self.hints or self.mca or self.layout or any(self.lib.values()))

    def to_dict(self) -> dict:
        out: dict = {}
        if self.hints:
            out["hints"] = dict(sorted(self.hints.items()))
        if self.mca:
            out["mca"] = dict(sorted(self.mca.items()))
        if self.layout:
            out["layout"] = [dict(sorted(c.items())) for c in self.layout]
        libs = {k: dict(sorted(v.items())) for k, v in sorted(self.lib.items()) if v}
        if libs:
            out["lib"] = libs
        return out

    @classmethod
    def from_dict(cls, doc: dict) -> Settings:
        return cls(dict(doc.get("hints") or {}), dict(doc.get("mca") or {}),
                   [dict(c) for c in doc.get("layout") or []],
                   {k: dict(v) for k, v in (doc.get("lib") or {}).items()})

    def pairs(self) -> list[tuple[str, str]]:
        """Every setting as a `--set` KEY=VALUE pair (parse(pairs()) == self)."""
        out = sorted(self.hints.items()) + [(f"mca.{k}", v) for k, v in sorted(self.mca.items())]
        for i, comp in enumerate(self.layout):
            pre = "lustre." if len(self.layout) == 1 else f"lustre.{i}."
            out += [("ceph." + k if k == "object_size" and len(self.layout) == 1 else pre + k, v)
                    for k, v in sorted(comp.items())]
        for lib, values in sorted(self.lib.items()):
            out += [(f"{lib}.{k}", v) for k, v in sorted(values.items())]
        return out

    def copy(self) -> Settings:
        return Settings.from_dict(self.to_dict())


def classify(key: str) -> tuple[str, str | None, str, int | None]:
    """(section, library or None, name, layout component) of a `--set` key."""
    head, _, rest = key.partition(".")
    if rest and head == "mca":
        return "mca", None, rest, None
    if rest and head == "ceph":
        return "layout", None, knobs.CEPH_LAYOUT.get(rest, rest), 0
    if rest and head in ("lustre", "layout"):
        index, _, name = rest.partition(".")
        if name and index.isdigit():
            return "layout", None, name, int(index)
        return "layout", None, rest, 0
    if rest and head in knobs.LIB:
        return "lib", head, rest, None
    if key in knobs.MCA and not hintlib.lookup(key):
        return "mca", None, key, None
    return "hints", None, key, None


def _known(section: str, lib: str | None) -> dict:
    return {"mca": knobs.MCA, "layout": knobs.LAYOUT}.get(section) or knobs.LIB.get(lib or "", {})


def check_one(key: str, value: str, syntax: str = "mpi") -> tuple[tuple | None, Issue | None]:
    """((section, lib, name, component, normalized value), None) or (None, the error). `syntax`
    (settings.values): "mpi" for hint values the MPI reads as written (files in any dialect),
    "pario" where pario converts them first (`--set`: sizes such as 16m become 16777216)."""
    section, lib, name, comp = classify(key)
    if section == "hints":
        why = hintlib.name_problem(name)
        if why:
            return None, Issue("error", key, why)
        hint = hintlib.lookup(name)
        if hint is None:
            extra = hintlib.did_you_mean(name, list(hintlib.CATALOGUE) + [f"mca.{m}" for m in knobs.MCA])
            return None, Issue("error", key, f"unknown setting '{key}'{extra}; `pario settings keys` lists them")
        if syntax == "mpi":  # as the MPI reads it: the one validator's own words (settings.hints.mpi_value)
            norm, message = hintlib.mpi_value(name, value)
            return ((section, lib, name, comp, norm), None) if message is None else \
                (None, Issue("error", key, message))
        norm, why = normalize(hint, value, syntax)
    else:
        table = _known(section, lib)
        knob = table.get(name)
        if knob is None:
            prefix = key[: len(key) - len(name)]
            extra = hintlib.did_you_mean(name, list(table))
            extra = extra.replace("(did you mean ", f"(did you mean {prefix}") if extra else ""
            return None, Issue("error", key, f"unknown setting '{key}'{extra}; `pario settings keys` lists them")
        norm, why = normalize(knob, value, "pario", "lib_value_chars")
        if norm is not None and section == "layout" and name in ("stripe_size", "object_size") and int(norm) % 65536:
            why = ("must be a multiple of 64 KiB (lfs setstripe -S; CephFS's stripe_unit too)" if name == "stripe_size"
                   else "must be a multiple of 64 KiB (CephFS)")
        if why is None and norm is not None and section == "layout" and name == "extent_end":
            end = "-1" if norm.lower() in ("eof", "-1") else parse_bytes(norm)
            norm, why = (str(end), None) if end is not None else (None, "must be a size (e.g. 64m) or eof")
    if why:
        return None, Issue("error", key, f"{key}={value!r} {why}")
    return (section, lib, name, comp, norm), None


def not_a_hint(key: str) -> Issue:
    return Issue("error", key, f"'{key}' is not an MPI-IO hint: a ROMIO hints file holds MPI_Info keys only "
                               "(`pario settings render` writes each kind of setting in its own dialect)")


def build(pairs: Iterable[tuple[str, str]], syntax: str = "mpi",
          hints_only: bool = False) -> tuple[Settings, list[Issue]]:
    """Settings from KEY=VALUE pairs, and the errors of the pairs left out. `hints_only`: a dialect
    the MPI reads (a ROMIO hints file) holds hints and nothing else."""
    settings, issues = Settings(), []
    for key, value in pairs:
        ok, issue = check_one(key.strip(), value, syntax)
        if ok is not None and hints_only and ok[0] != "hints":
            ok, issue = None, not_a_hint(key.strip())
        if ok is None:
            if issue:
                issues.append(issue)
            continue
        section, lib, name, comp, norm = ok
        if section == "hints":
            settings.hints[name] = norm
        elif section == "mca":
            settings.mca[name] = norm
        elif section == "lib":
            settings.lib.setdefault(lib, {})[name] = norm
        else:
            while len(settings.layout) <= comp:
                settings.layout.append({})
            settings.layout[comp][name] = norm
    issues += layout_issues(settings.layout)
    return settings, issues


def layout_issues(layout: list[dict[str, str]]) -> list[Issue]:
    out = []
    for i, comp in enumerate(layout):
        if not comp:
            out.append(Issue("error", f"lustre.{i}", f"layout component {i} is empty; number components from 0"))
        if "stripe_count" in comp and "overstripe_count" in comp:
            out.append(Issue("error", f"lustre.{i}", "give stripe_count (-c) or overstripe_count (-C), not both"))
        if len(layout) > 1 and i < len(layout) - 1 and "extent_end" not in comp:
            out.append(Issue("error", f"lustre.{i}.extent_end",
                             f"component {i} of a composite layout needs extent_end (e.g. 64m)"))
        unit, obj = comp.get("stripe_size"), comp.get("object_size")
        if unit and obj and unit.isdigit() and obj.isdigit() and int(unit) and int(obj) % int(unit):
            out.append(Issue("error", "ceph.object_size", f"object_size {obj} is not a multiple of the stripe "
                                                          f"size {unit} (CephFS refuses it)"))
        if comp.get("mdt") == "true" and i:
            out.append(Issue("error", f"lustre.{i}.mdt", "data on MDT is the first component only"))
    return out


def parse_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise ParioError(f"--set {text!r}: write it as KEY=VALUE, e.g. --set romio_cb_write=enable "
                         "or --set lustre.stripe_count=4")
    return key.strip(), value.strip()


def from_pairs(texts: Iterable[str]) -> Settings:
    """Settings from `--set` texts; the first error is raised as one line."""
    settings, issues = build((parse_pair(t) for t in texts), syntax="pario")
    errors = [i for i in issues if i.level == "error"]
    if errors:
        raise ParioError(f"--set {errors[0].message}")
    return settings


def merge(base: Settings, over: Settings) -> Settings:
    """`over` wins key by key (like ROMIO: explicit info wins over the hints file)."""
    out = base.copy()
    out.hints.update(over.hints)
    out.mca.update(over.mca)
    for i, comp in enumerate(over.layout):
        while len(out.layout) <= i:
            out.layout.append({})
        out.layout[i].update(comp)
    for lib, values in over.lib.items():
        out.lib.setdefault(lib, {}).update(values)
    return out
