"""pario profile: running an unmodified program under libpario-preload.so (run.py). Reading
and analysing the logs is pario.analysis.profile; showing them, pario.report.terminal.profile."""
