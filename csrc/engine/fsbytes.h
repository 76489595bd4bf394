/* The bytes each rank moved to and from the file system during a phase, counted at the POSIX
 * calls themselves, below whatever I/O library made them (ROMIO, OMPIO, HDF5, ADIOS2, or the posix
 * backend). With collective buffering only the aggregators write: this shows which ranks did,
 * whatever the hints asked or MPI_File_get_info echoes. */
#ifndef PARIO_ENGINE_FSBYTES_H
#define PARIO_ENGINE_FSBYTES_H

#include <stdint.h>

/* Start counting: calls on regular files of the file system that holds `path` (a case's file
 * or directory). Forgets what it knew of open descriptors. 0 when that file system cannot be
 * named (nothing is counted), else 1. */
int pario_fsbytes_arm(const char *path);
/* Stop counting; the bytes written and read since the arm, by this process. */
void pario_fsbytes_disarm(uint64_t *written, uint64_t *read);

#endif
