"""One model of settings (MPI-IO hints, MCA parameters, Lustre layout, library knobs), its dialects,
its equivalence rules and the comparison of what was requested with what took effect.

The names below are loaded when first used (`from pario.settings import Settings`): a module that
needs only the catalogue, the knobs or the value checks (`from pario.settings import knobs`, as
every command's parser does) does not load the dialects and the equivalence rules with them."""
from __future__ import annotations

from pario.model.lazy import exports

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from pario.settings.dialects import DIALECTS, parse, render, sniff
    from pario.settings.equivalence import Applied, canonical, explain, view
    from pario.settings.model import Issue, Settings, build, from_pairs, merge, parse_bytes

_HOME = {**dict.fromkeys(["DIALECTS", "parse", "render", "sniff"], "pario.settings.dialects"),
         **dict.fromkeys(["Applied", "canonical", "explain", "view"], "pario.settings.equivalence"),
         **dict.fromkeys(["Issue", "Settings", "build", "from_pairs", "merge", "parse_bytes"], "pario.settings.model")}

__all__ = ["Issue", "Settings", "build", "from_pairs", "merge", "parse_bytes", "DIALECTS", "parse", "render",
           "sniff", "Applied", "canonical", "explain", "view"]

__getattr__ = exports(__name__, _HOME)
