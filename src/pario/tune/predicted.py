"""pario predict where tune has no measurement of the system yet: `pario tune --system FILE`
orders its first guesses by predicted time and leaves out those predicted far slower than the
default (each guess made into the engine case tune would run, tune/trials.py apply())."""
from __future__ import annotations

from typing import Any

# a guess predicted this many times slower than the case as given is not run first
PRUNE = 3.0


def order_guesses(system_path: str, space: Any, base: dict[str, Any], guesses: list[tuple[dict, str]],
                  ) -> tuple[list[tuple[dict, str]], str]:
    """(the guesses fastest predicted first, without those predicted PRUNE x slower than the default;
    one sentence saying what was done)."""
    from pario.predict import system as systems
    from pario.predict.model import predict
    from pario.predict.pattern import from_case
    from pario.tune.trials import apply

    sys_ = systems.load(system_path)
    ctx = space.ctx
    hosts = max(1, ctx.hosts)
    run = {"nodes": hosts, "ranks_per_node": max(1, ctx.ranks // hosts)}

    def seconds(config: dict) -> float:
        case, _, _ = apply(space, base, config, 1)
        op = ctx.objective if ctx.objective in ("write", "read") else None
        return predict(sys_, from_case(case, run, op)).seconds

    default = seconds(space.default())
    timed = [(seconds(config), config, why) for config, why in guesses]
    kept = sorted((t for t in timed if t[0] <= default * PRUNE), key=lambda t: t[0])
    pruned = len(timed) - len(kept)
    ordered = [(config, why + (f" (predicted {default / s:.2g}x the default)" if why and s else ""))
               for s, config, why in kept]
    note = (f"pario predict ({sys_.name}, {system_path}) ordered the {len(kept)} first guesses by predicted time"
            + (f" and left out {pruned} predicted more than {PRUNE:g}x slower than the default" if pruned else ""))
    return ordered, note
