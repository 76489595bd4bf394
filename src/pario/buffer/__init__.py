"""pario buffer: running an unmodified program with the write-coalescing buffer of
libpario-preload.so (run.py). Reading its stats files is pario.analysis.buffer_stats; showing
them, pario.report.terminal.buffer."""
