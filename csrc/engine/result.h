/* The result document (schemas/result.schema.json), written by rank 0. */
#ifndef PARIO_ENGINE_RESULT_H
#define PARIO_ENGINE_RESULT_H

#include <mpi.h>

#include "engine/groups.h"
#include "engine/placement.h"
#include "engine/reduce.h"
#include "engine/spec.h"

typedef struct {
  const pario_run *run;
  const pario_world *world;
  const pario_placement *placement; /* where each rank ran (rank 0 holds all) */
  char started[64];
  char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING];
  char mpi_standard[16];
  double clock_offset_max;
  int ncases; /* cases recorded so far */
  pario_case_rec *cases;
  const char *status; /* running, complete, partial, failed */
  int err_code, err_rank, err_case;
  char err_msg[1024];
  const char *err_op;
} pario_result;

/* Write the document atomically; 0 or a PARIO_E_ code (message in pario_err_msg()). */
int pario_result_save(const pario_result *res, const char *path);

#endif
