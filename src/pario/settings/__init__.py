"""One model of settings (MPI-IO hints, MCA parameters, Lustre layout, library knobs), its dialects,
its equivalence rules and the comparison of what was requested with what took effect."""
from pario.settings.dialects import DIALECTS, parse, render, sniff
from pario.settings.equivalence import Applied, canonical, explain, view
from pario.settings.model import Issue, Settings, build, from_pairs, merge, parse_bytes

__all__ = ["Issue", "Settings", "build", "from_pairs", "merge", "parse_bytes", "DIALECTS", "parse", "render",
           "sniff", "Applied", "canonical", "explain", "view"]
