/* One clock for all ranks: this rank's monotonic clock aligned on rank 0's. */
#ifndef PARIO_ENGINE_TIMING_H
#define PARIO_ENGINE_TIMING_H

#include <mpi.h>

/* Measure this rank's offset to rank 0 (collective over comm); max_offset: the largest. */
int pario_clock_sync(MPI_Comm comm, double *max_offset);
/* Seconds since the engine's start on rank 0's clock. */
double pario_t(void);

#endif
