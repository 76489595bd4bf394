/* MPI_Init (the rank), MPI_Finalize (the modules' collective work) and MPI_Abort (the log written
 * first: the MPI then ends every rank, this one included, often by a signal), through PMPI.
 * libmpi is not linked: the MPI symbols are weak references (mpi_weak.h), so this file's
 * wrappers only ever run inside MPI programs. */
#include <mpi.h>

#include "intercept/intercept.h"
#include "intercept/modules.h"
#include "intercept/mpi_weak.h"

WEAK(PMPI_Init)
WEAK(PMPI_Init_thread)
WEAK(PMPI_Finalize)
WEAK(PMPI_Abort)
WEAK(PMPI_Comm_rank)
WEAK(PMPI_Comm_size)

static void learn_rank(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &pario_proc.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &pario_proc.nprocs);
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) learn_rank();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int req, int *prov) {
  int rc = PMPI_Init_thread(argc, argv, req, prov);
  if (rc == MPI_SUCCESS) learn_rank();
  return rc;
}

int MPI_Finalize(void) {
  pario_proc.mpi_finalized = 1;
  pario_modules_mpi_finalize();
  return PMPI_Finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  pario_proc.mpi_aborted = 1;
  pario_proc.mpi_abort_code = errorcode;
  pario_modules_stop("mpi_abort", 1, 0);
  return PMPI_Abort(comm, errorcode);
}
