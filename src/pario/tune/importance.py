"""Which knobs mattered: optuna's PED-ANOVA importance (Watanabe et al., IJCAI 2023) over the
session's measured trials. Knobs of a tree-shaped space are absent where they do not apply; here
every trial carries every knob, with the value "n/a" where it was inert, so that a knob whose
setting only exists under another (cb_nodes under collective calls) is judged with it.
PED-ANOVA asks how differently a knob's values are spread in the best trials than in all of them;
it needs no extra library (optuna's fANOVA needs scikit-learn)."""
from __future__ import annotations

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution
from optuna.trial import create_trial

from pario.model.tuning import TuningSession
from pario.tune.space import Space

METHOD = ("PED-ANOVA (optuna) over the trials' medians, pruned ones with their one repetition; inert "
          "knobs count as the value n/a; indicative with few trials")
MIN_TRIALS = 8
NA = "n/a"


def importance(session: TuningSession, space: Space) -> tuple[dict[str, float], str]:
    """({knob: share of importance}, method) or ({}, why there is none)."""
    default = space.default()
    rows = []
    seen_default = False
    for t in session.trials:
        if t.median is None or t.state not in ("complete", "pruned", "control"):
            continue
        if t.state == "control":
            if seen_default:
                continue
            seen_default = True
        eff = space.effective({**default, **t.settings})
        rows.append(({k.key: eff.get(k.key, NA) for k in space.knobs}, t.median))
    varied = [k.key for k in space.knobs if len({r[0][k.key] for r in rows}) > 1]
    if len(rows) < MIN_TRIALS or not varied:
        return {}, f"not computed: {len(rows)} measured trial(s), at least {MIN_TRIALS} needed"
    study = optuna.create_study(direction="maximize")
    dists: dict[str, BaseDistribution] = {k: CategoricalDistribution(sorted({r[0][k] for r in rows})) for k in varied}
    for params, value in rows:
        study.add_trial(create_trial(params={k: params[k] for k in varied}, distributions=dists, value=value))
    quantile = min(0.5, max(0.1, 3 / len(rows)))   # at least three trials make "the best"
    evaluator = optuna.importance.PedAnovaImportanceEvaluator(target_quantile=quantile, evaluate_on_local=False)
    try:
        scores = optuna.importance.get_param_importances(study, evaluator=evaluator)
    except (ValueError, RuntimeError) as exc:
        return {}, f"not computed: {exc}"
    return {k: float(v) for k, v in scores.items()}, METHOD + f" (best {quantile:.0%} of {len(rows)} trials)"
