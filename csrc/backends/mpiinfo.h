/* The MPI_Info side of the backends that sit on MPI-IO (mpiio, hdf5, pnetcdf, netcdf4). */
#ifndef PARIO_MPIINFO_H
#define PARIO_MPIINFO_H

#include <mpi.h>

#include "pario/backend.h"

/* The case's hints as an MPI_Info, or MPI_INFO_NULL without hints; free with MPI_Info_free. */
MPI_Info pario_hints_info(const pario_case *cs);
/* Copy an MPI_Info's keys into out (up to PARIO_MAX_HINTS) and free it; source names the call. */
void pario_info_take(MPI_Info *info, pario_info *out, const char *source);

#endif
