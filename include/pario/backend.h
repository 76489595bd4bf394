/* The backend contract: one file per backend, one table, designated initializers, ABI first.
 *
 *   const pario_backend pario_backend_posix = {
 *     .abi = PARIO_BACKEND_ABI, .name = "posix", .caps = PARIO_CAP_ODIRECT,
 *     .open = posix_open, .xfer = posix_xfer, .close = posix_close, .sync = posix_sync };
 *
 * The engine calls a backend through csrc/backends/dispatch.h, where optional operations fall
 * back in one place (HDF5's H5FD* wrappers, fio's td_io_*).
 *
 * Transfers are expressed in the logical byte space of the file (or of the file view when the
 * case sets `view`): the engine computes every offset from the pattern before the timed loop,
 * and the timed loop calls only xfer/xfer_all. A library backend (HDF5, netCDF, ADIOS2) maps
 * (offset, len) onto its own dataset from the geometry in pario_open_args. */
#ifndef PARIO_BACKEND_H
#define PARIO_BACKEND_H

#include <stdint.h>
#include <mpi.h>
#include "pario/case.h"
#include "pario/options.h"

#define PARIO_BACKEND_ABI 2

enum {
  /* collective calls over the file's communicator: derived from the table's xfer_all by
     pario_backend_caps() (a table does not set it, so the fact is kept once) */
  PARIO_CAP_COLLECTIVE  = 1 << 0,
  PARIO_CAP_SHARED      = 1 << 1, /* several ranks may open one file together */
  PARIO_CAP_VIEW        = 1 << 2, /* file views: offsets in view space */
  PARIO_CAP_ODIRECT     = 1 << 3, /* honours odirect (needs aligned buffers and offsets) */
  PARIO_CAP_NONBLOCKING = 1 << 4, /* non-blocking transfers */
  PARIO_CAP_HINTS       = 1 << 5, /* takes MPI_Info hints and reports the effective ones */
  PARIO_CAP_NODATA      = 1 << 6, /* stores nothing (null backend): reads are not checked */
};

typedef enum { PARIO_WRITE = 0, PARIO_READ = 1 } pario_dir;

struct pario_backend;

/* An open file's public part, which every backend's handle embeds as its first member (HDF5's
 * H5FD_t pub), so that no backend keeps the path or the collective flag again:
 *
 *   typedef struct { pario_file pub; int fd; } pfile;
 *   static int posix_open(const pario_file *pub, pario_file **out) {
 *     pfile *f = malloc(sizeof *f); ... f->pub = *pub; *out = &f->pub; }
 *   static int posix_close(pario_file *fh) { pfile *f = (pfile *)fh; ... }
 *
 * The engine fills it before open (dispatch.c: pario_file_open); it stays valid until close. */
typedef struct pario_file {
  const struct pario_backend *be;
  const char *path;
  MPI_Comm comm;          /* the ranks that open this file together; MPI_COMM_SELF when alone */
  pario_dir dir;          /* PARIO_WRITE creates (truncating), PARIO_READ opens an existing file */
  const pario_case *cs;   /* the case: hints, odirect, view, lib settings, pattern geometry */
  const pario_geom *geom; /* this rank's place in the file: member, nmembers, grid, file size */
  int collective;         /* transfers are collective calls (xfer_all) on comm */
} pario_file;

/* Effective settings, as key/value strings, filled by a backend's info() after open. */
typedef struct {
  int n;
  char key[PARIO_MAX_HINTS][256];
  char val[PARIO_MAX_HINTS][256];
  const char *source; /* how they were obtained, e.g. "MPI_File_get_info" */
} pario_info;

typedef struct pario_backend {
  int abi;            /* PARIO_BACKEND_ABI: the registry rejects another value */
  const char *name;
  unsigned caps;
  const char *missing; /* NULL when built; else how to get it ("install libpnetcdf-dev ...") */
  /* required */
  int (*open)(const pario_file *pub, pario_file **out);
  int (*xfer)(pario_file *f, pario_dir dir, void *buf, uint64_t len, uint64_t offset);
  int (*close)(pario_file *f);
  /* optional (NULL = not offered) */
  int (*xfer_all)(pario_file *f, pario_dir dir, void *buf, uint64_t len, uint64_t offset);
  int (*sync)(pario_file *f);
  int (*info)(pario_file *f, pario_info *out);
  /* optional, library layers (csrc/backends/{hdf5,pnetcdf,netcdf4,adios2}.c) */
  int (*flush)(pario_file *f); /* complete every transfer started by xfer/xfer_all (non-blocking
                                  layers); the engine calls it at the end of each timed transfer
                                  loop and before checking a verify read */
  int (*lib_info)(pario_file *f, pario_info *out); /* settings the library reports it used */
  /* info and lib_info are called on rank 0 alone, after the transfer loop of the first write:
     they must not call anything collective */
  const char *(*version)(void);               /* library version string, e.g. "HDF5 1.10.8" */
  const pario_option *options; /* the "lib" settings it takes (options.h), ended by {0}; NULL: none */
  /* case checks beyond the caps and the option table (settings that depend on each other, pattern
     limits); 0 or a PARIO_E_SPEC error */
  int (*check)(const pario_case *cs);
  int (*remove)(const char *path); /* remove what open(PARIO_WRITE) created when it is not one
                                      file (an ADIOS2 BP directory); NULL = unlink(path) */
} pario_backend;

/* The backend of that name, or NULL (unknown, or a table of another ABI or without its required
 * operations). A backend that is not built is found: its `missing` says how to get it. */
const pario_backend *pario_backend_find(const char *name);
/* All backends known to this build, built or not; NULL-terminated. */
const pario_backend *const *pario_backend_all(void);
/* The backend's capabilities, PARIO_CAP_COLLECTIVE derived from xfer_all. */
unsigned pario_backend_caps(const pario_backend *be);

/* A library that cannot safely close a file after a failed transfer (HDF5 1.10: ranks of a failed
 * H5Fclose wait in different barriers, HDFGroup/hdf5#1183) leaves it open and says so here (why:
 * one line). Such a library must not be called again, not even by its own exit handlers at
 * MPI_Finalize: the engine writes the result document and then ends the job with MPI_Abort. */
void pario_backend_left_open(const char *why);
/* Why a file was left open on this rank, or NULL. */
const char *pario_backend_open_left(void);
/* For such a library, in its close: the ranks of f agree whether any of them failed (one
 * MPI_Allreduce on f->comm, also when none did). If one did, the file is left open (see above)
 * and emptied by its first member, as an open file keeps its blocks and the result document may
 * be on the same full file system (the run failed; its files are removed), and 1 is returned:
 * the caller must not close it. 0: close as usual. */
int pario_file_left_open_if_failed(const pario_file *f, int failed, const char *why);

#endif
