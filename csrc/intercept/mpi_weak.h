/* MPI symbols are weak references: the library loads into programs without MPI (cp, python),
 * and the MPI wrappers run only where the program itself links an MPI. */
#ifndef PARIO_INTERCEPT_MPI_WEAK_H
#define PARIO_INTERCEPT_MPI_WEAK_H
#include <mpi.h>

#include "intercept/calls.h"

#define DO_PRAGMA(x) _Pragma(#x)
#define WEAK(f) DO_PRAGMA(weak f)

/* Wrapping an MPI call under its PMPI_ name (Open MPI's Fortran bindings call those directly):
 * the MPI's own function beneath this library, looked up once into `real` (missing: said once by
 * name, and the call fails as the MPI's would); PARIO_MPI_ALIAS makes the MPI_ name the same
 * function, so a C program's call passes the wrapper once, at no extra call. */
#define PARIO_MPI_REAL(fn)                                                      \
  static __typeof__(fn) *real;                                                  \
  if (!real) real = (__typeof__(fn) *)pario_real_lookup(#fn);                   \
  if (!real) return MPI_ERR_OTHER
#define PARIO_MPI_ALIAS(fn) extern __typeof__(P##fn) fn __attribute__((alias("P" #fn)));
#ifdef OPEN_MPI
WEAK(ompi_mpi_comm_world) WEAK(ompi_mpi_byte) WEAK(ompi_mpi_int)
#endif

#endif
