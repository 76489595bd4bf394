"""pario predict: what an I/O pattern will cost on a system pario cannot run on yet, which limit
binds, and which settings to try first. A sum of costs and a minimum of ceilings, each mechanism
named (predict/mechanisms.py), over a system file (predict/system.py) and a bench case
(predict/pattern.py). `for_pattern` is the API the other commands use (advise, tune, presets)."""
from __future__ import annotations

from typing import Any


def for_pattern(system: Any, pattern: Any):
    """The Prediction of one phase: `system` a System or a system file's path, `pattern` a Pattern
    (predict.pattern.from_case builds one from a bench case). Its .seconds, .low, .high (the
    interval), .binding (the limit that binds), .flags (what the model does not capture)."""
    from pario.predict import model
    from pario.predict import system as systems
    sys_ = systems.load(system) if isinstance(system, str) else system
    return model.predict(sys_, pattern)
