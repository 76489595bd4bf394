"""Running the engine: launchers (mpirun, srun), the watchdog, one bench run from a typed request
to a RunRecord. Nothing here prints: a RunObserver (model.events) is told what happens."""
