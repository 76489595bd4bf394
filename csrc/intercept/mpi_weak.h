/* MPI symbols are weak references: the library loads into programs without MPI (cp, python),
 * and the MPI wrappers run only where the program itself links an MPI. */
#ifndef PARIO_INTERCEPT_MPI_WEAK_H
#define PARIO_INTERCEPT_MPI_WEAK_H
#include <mpi.h>

#define DO_PRAGMA(x) _Pragma(#x)
#define WEAK(f) DO_PRAGMA(weak f)
#ifdef OPEN_MPI
WEAK(ompi_mpi_comm_world) WEAK(ompi_mpi_byte) WEAK(ompi_mpi_int)
#endif

#endif
