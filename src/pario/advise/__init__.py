"""`pario advise`: findings over an application's I/O, ranked by the time they cost.

job.py        the normalised job model that both readers fill (read_pario.py: pario profile logs;
              darshan_log.py: Darshan logs through PyDarshan, read in a child process)
facts.py      the file system under each file (the log's own facts, the paths here, or --stack)
costs.py      what a pattern costs on this system: stored runs, else a short calibration (calibrate.py)
rules/        the rules, pure functions over the job, one module per family, one registry
fixes.py      fixes as something to run (settings in the user's dialect, lfs setstripe, pario buffer)
advisor.py    detect, cost, rank; verify.py runs the job's pattern as it is and with the fix
"""
