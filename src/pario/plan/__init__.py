"""From what a user asked (flags, job files, a stored run) to the engine cases to run: suites,
validation, reuse planning. Pure but for reading job and hints files."""
