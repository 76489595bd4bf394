"""`pario tune`: the best settings for one case in few runs, proven better than the default beyond
the noise. space.py (what can be tuned here), prior.py (what the stack knowledge predicts),
search.py (optuna, rungs, controls, the incumbent), trials.py (a configuration as an engine run),
replay.py (the same search against a recorded grid), importance.py and verdict.py (the report's
figures)."""
