/* MPI_Init (the rank), MPI_Finalize (the modules' collective work) and MPI_Abort (the log written
 * first: the MPI then ends every rank, this one included, often by a signal).
 * libmpi is not linked: the MPI symbols are weak references (mpi_weak.h), so this file's
 * wrappers only ever run inside MPI programs.
 *
 * Open MPI's Fortran bindings (mpi_init_, mpi_finalize_, mpi_abort_ of libmpi_mpifh and the
 * mpi module) call PMPI_Init, PMPI_Finalize and PMPI_Abort, not the MPI_ names a C profiler
 * wraps: a Fortran program was taken for one that never called MPI_Init. So the PMPI_ names are
 * wrapped here (as Darshan does), each calling the MPI's own through dlsym(RTLD_NEXT), and the
 * MPI_ names are aliases of them: a C program's MPI_Init passes here once, a Fortran one's too. */
#include <mpi.h>

#include "intercept/calls.h"
#include "intercept/intercept.h"
#include "intercept/modules.h"
#include "intercept/mpi_weak.h"

WEAK(PMPI_Comm_rank)
WEAK(PMPI_Comm_size)

static void learn_rank(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &pario_proc.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &pario_proc.nprocs);
}

int PMPI_Init(int *argc, char ***argv) {
  PARIO_MPI_REAL(PMPI_Init);
  int rc = real(argc, argv);
  if (rc == MPI_SUCCESS) learn_rank();
  return rc;
}

int PMPI_Init_thread(int *argc, char ***argv, int req, int *prov) {
  PARIO_MPI_REAL(PMPI_Init_thread);
  int rc = real(argc, argv, req, prov);
  if (rc == MPI_SUCCESS) learn_rank();
  return rc;
}

int PMPI_Finalize(void) {
  PARIO_MPI_REAL(PMPI_Finalize);
  pario_proc.mpi_finalized = 1;
  pario_modules_mpi_finalize();
  return real();
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  PARIO_MPI_REAL(PMPI_Abort);
  pario_proc.mpi_aborted = 1;
  pario_proc.mpi_abort_code = errorcode;
  pario_modules_stop("mpi_abort", 1, 0);
  return real(comm, errorcode);
}

PARIO_MPI_ALIAS(MPI_Init)
PARIO_MPI_ALIAS(MPI_Init_thread)
PARIO_MPI_ALIAS(MPI_Finalize)
PARIO_MPI_ALIAS(MPI_Abort)
