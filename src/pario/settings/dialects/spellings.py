"""Where one setting has two spellings: the Lustre layout and the striping hints (a simple layout
is striping_factor/striping_unit/start_iodevice), and the OMPIO info keys and their MCA parameters
(knobs.HINT_TO_MCA). Every dialect renders through these, so each spelling is translated once."""
from __future__ import annotations

from pario.model.units import exact
from pario.settings import knobs
from pario.settings.model import Settings

_LAYOUT_HINTS = {"stripe_count": "striping_factor", "stripe_size": "striping_unit", "stripe_index": "start_iodevice"}


def layout_of(settings: Settings) -> list[dict[str, str]]:
    """The Lustre layout asked for: explicit, else the one the striping hints ask for."""
    if settings.layout:
        return settings.layout
    comp = {lk: settings.hints[h] for lk, h in _LAYOUT_HINTS.items() if h in settings.hints}
    comp = {k: v for k, v in comp.items() if not (k == "stripe_index" and v == "-1")}
    return [comp] if comp else []


def hints_of(settings: Settings) -> dict[str, str]:
    """The MPI_Info hints, plus striping hints for a simple (one-component) layout."""
    out = dict(settings.hints)
    if len(settings.layout) == 1:
        for lk, hint in _LAYOUT_HINTS.items():
            if lk in settings.layout[0]:
                out.setdefault(hint, settings.layout[0][lk])
    return out


def mca_of(settings: Settings) -> dict[str, str]:
    out = {m: v for h, m in knobs.HINT_TO_MCA.items() if (v := hints_of(settings).get(h)) is not None}
    if hints_of(settings).get("collective_buffering") == "false":
        out["fcoll"] = "individual"
    out.update(settings.mca)
    return out


def human(n: str) -> str:
    """A byte count as lfs takes it: '1M', '4G', else the number."""
    return exact(int(n), "GMK")
