/* How the engine calls a backend: the one place where optional operations fall back (an absent
 * flush or sync does nothing, an absent info reports nothing, an absent remove is unlink), as
 * HDF5's H5FD* wrappers and fio's td_io_* do, and where a file's public part is filled. */
#ifndef PARIO_BACKENDS_DISPATCH_H
#define PARIO_BACKENDS_DISPATCH_H

#include "pario/backend.h"

typedef int (*pario_xfer_fn)(pario_file *f, pario_dir dir, void *buf, uint64_t len, uint64_t offset);

/* Open with be: pub is completed (be, collective = the case's collective) and handed to the
 * backend; *out is its handle. 0 or a PARIO_E_ code. */
int pario_file_open(const pario_backend *be, pario_file *pub, pario_file **out);
/* The transfer call of f: xfer_all when its transfers are collective, else xfer. Looked up once
 * per loop, not per call. */
static inline pario_xfer_fn pario_file_xfer_fn(const pario_file *f) {
  return f->collective ? f->be->xfer_all : f->be->xfer;
}
/* Complete what xfer started (non-blocking layers); 0 when the backend has nothing to complete. */
static inline int pario_file_flush(pario_file *f) { return f->be->flush ? f->be->flush(f) : 0; }
int pario_file_sync(pario_file *f);
int pario_file_close(pario_file *f);
/* Effective settings (MPI-IO hints) and what a library reports it did: 0 when filled, 1 when the
 * backend reports nothing. */
int pario_file_info(pario_file *f, pario_info *out);
int pario_file_lib_info(pario_file *f, pario_info *out);
/* Remove what an open for writing created at path (a directory for ADIOS2): 0 or -1 (errno). */
int pario_backend_remove(const pario_backend *be, const char *path);

#endif
