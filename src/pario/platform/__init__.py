"""Host facts: the file system, the MPI, the scratch directory, the device ceiling, the engine
binary, the page cache; and applying a Lustre layout. Facts are read here; nothing is judged."""
