/* Shared-file reduction across ranks (reduce_mpi.c), run inside MPI_Finalize. */
#ifndef PARIO_PROFILE_REDUCE_MPI_H
#define PARIO_PROFILE_REDUCE_MPI_H

#pragma GCC visibility push(hidden)

/* Records of one file from several ranks become one record (rank -1) on the file's owner rank;
 * collective over MPI_COMM_WORLD. */
void pario_mpi_reduce(void);

#pragma GCC visibility pop
#endif
