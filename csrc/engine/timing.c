/* One clock for all ranks: each rank's monotonic clock, shifted onto rank 0's by an offset
 * measured with ping-pongs (the round trip with the smallest delay wins), so that "earliest
 * open" and "latest close" across ranks compare like with like, also across hosts. */
#include <math.h>
#include <stdlib.h>

#include "common/clock.h"
#include "engine/timing.h"
#include "pario/errors.h"

static double offset = 0, origin = 0;

double pario_t(void) { return pario_now() + offset - origin; }

int pario_clock_sync(MPI_Comm comm, double *max_offset) {
  enum { TRIES = 5 };
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *offs = NULL;
  if (rank == 0) {
    offs = calloc((size_t)size, sizeof *offs);
    if (!offs) return pario_err(PARIO_E_NOMEM, "out of memory");
    for (int r = 1; r < size; r++) {
      double best = INFINITY;
      for (int k = 0; k < TRIES; k++) {
        double t0 = pario_now(), tr;
        MPI_Send(&t0, 1, MPI_DOUBLE, r, 7001, comm);
        MPI_Recv(&tr, 1, MPI_DOUBLE, r, 7002, comm, MPI_STATUS_IGNORE);
        double t1 = pario_now();
        if (t1 - t0 < best) {
          best = t1 - t0;
          offs[r] = (t0 + t1) / 2 - tr;
        }
      }
    }
  } else {
    for (int k = 0; k < TRIES; k++) {
      double t0;
      MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 7001, comm, MPI_STATUS_IGNORE);
      double tr = pario_now();
      MPI_Send(&tr, 1, MPI_DOUBLE, 0, 7002, comm);
    }
  }
  MPI_Scatter(offs, 1, MPI_DOUBLE, &offset, 1, MPI_DOUBLE, 0, comm);
  double mine = fabs(offset);
  MPI_Allreduce(&mine, max_offset, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (rank == 0) origin = pario_now();
  MPI_Bcast(&origin, 1, MPI_DOUBLE, 0, comm);
  free(offs);
  return 0;
}
