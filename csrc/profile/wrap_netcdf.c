/* NetCDF wrappers (issue 29): files (nc_create/nc_open and their _par forms, the format, parallel
 * or not), variables (shape, record or not, chunking and whether it is the library's default,
 * compression), the nc_put_var and nc_get_var calls of every form (var, var1, vara, vars, varm;
 * typed and untyped), and for parallel files the access in effect per variable
 * (nc_var_par_access: independent, the library's default, or collective).
 *
 * A netCDF-4 file's I/O is HDF5's underneath: its H5D records show what HDF5 was asked, as the
 * MPI-IO and POSIX records show what reached the file system. NetCDF's headers are not needed
 * (its functions are declared below as netcdf.h declares them). Not wrapped: the string type's
 * puts and gets, and the nc_put_att family (metadata, said in csrc/profile/README.md). */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "profile/libs.h"

#ifndef NC_NOERR /* tests/c compiles this file after netcdf.h too: the declarations must agree */
#define NC_NOERR 0
#define NC_MAX_VAR_DIMS 1024
#define NC_CHUNKED 0
#define NC_CONTIGUOUS 1
#define NC_INDEPENDENT 0
#define NC_COLLECTIVE 1
#endif

int nc_create(const char *path, int cmode, int *ncidp);
int nc__create(const char *path, int cmode, size_t initialsz, size_t *chunksizehintp, int *ncidp);
int nc_open(const char *path, int mode, int *ncidp);
int nc__open(const char *path, int mode, size_t *chunksizehintp, int *ncidp);
int nc_close(int ncid);
int nc_enddef(int ncid);
int nc__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree, size_t r_align);
int nc_redef(int ncid);
int nc_sync(int ncid);
int nc_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimidsp, int *varidp);
int nc_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizesp);
int nc_var_par_access(int ncid, int varid, int par_access);

static struct {
  int ok;
  const char *(*libvers)(void);
  int (*inq_format)(int, int *);
  int (*inq_path)(int, size_t *, char *);
  int (*inq_var)(int, int, char *, int *, int *, int *, int *);
  int (*inq_dimlen)(int, int, size_t *);
  int (*inq_unlimdims)(int, int *, int *);
  int (*inq_type)(int, int, char *, size_t *);
  int (*inq_var_chunking)(int, int, int *, size_t *);
  int (*inq_var_deflate)(int, int, int *, int *, int *);
} nc;

#define OPT(field, name) nc.field = (__typeof__(nc.field))pario_lib_opt(PARIO_LIB_NETCDF, name)
static int nc_ready(void) {
  if (nc.ok) return nc.ok > 0;
  OPT(libvers, "nc_inq_libvers"); OPT(inq_format, "nc_inq_format"); OPT(inq_path, "nc_inq_path");
  OPT(inq_var, "nc_inq_var"); OPT(inq_dimlen, "nc_inq_dimlen"); OPT(inq_unlimdims, "nc_inq_unlimdims");
  OPT(inq_type, "nc_inq_type"); OPT(inq_var_chunking, "nc_inq_var_chunking"); OPT(inq_var_deflate, "nc_inq_var_deflate");
  if (nc.libvers) pario_lib_version_word(PARIO_LIB_NETCDF, nc.libvers()); /* "4.9.0 of Aug  7 2022 ..." */
  nc.ok = nc.inq_var && nc.inq_dimlen && nc.inq_path && nc.inq_type ? 1 : -1;
  return nc.ok > 0;
}

/* Inside a wrapped call (nc_create calls nc__create): nested calls are the library's own. */
static __thread int nc_inside;
/* A wrapper's head: the real call timed (t0, ret, t1), or passed through. */
#define NC_TIMED(fn, args) \
  PARIO_LIB_TIMED(PARIO_LIB_NETCDF, fn, args, nc_inside || !PARIO_LIB_ACTIVE() || !nc_ready(), nc_inside++, nc_inside--)

static struct pario_hmap files = PARIO_HMAP_INIT; /* file part of the ncid -> file record, parallel */
static struct pario_hmap vars = PARIO_HMAP_INIT;  /* (ncid, varid) -> records and what is known */
enum { F_PARALLEL };
enum { V_FACTS, V_DEFINED, V_CHUNKS_SET, V_ACCESS, V_NDIMS, V_TYPE_SIZE, V_PAR_CALLS, V_PARALLEL };
#define FILE_KEY(ncid) ((uint64_t)((unsigned)(ncid) >> 16)) /* a netCDF-4 group shares its file's */

static struct pario_rec *file_rec(int ncid, const char *path, int *parallel) {
  struct pario_handle h;
  if (pario_hmap_get(&files, FILE_KEY(ncid), 0, &h)) {
    if (parallel) *parallel = (int)h.aux[F_PARALLEL];
    return h.file;
  }
  char name[PATH_MAX], abs[PATH_MAX];
  size_t len = 0;
  if (!path) {
    if (nc.inq_path(ncid, &len, NULL) != NC_NOERR || !len || len >= sizeof name || nc.inq_path(ncid, NULL, name) != NC_NOERR)
      snprintf(name, sizeof name, "?");
    path = name;
  }
  pario_abspath(path, abs, sizeof abs);
  h = (struct pario_handle){.k1 = FILE_KEY(ncid), .file = pario_rec_get(abs, PARIO_MOD_NETCDF_FILE)};
  if (h.file && pario_hmap_put(&files, &h) != 0) h.file = pario_rec_overflow(PARIO_MOD_NETCDF_FILE);
  if (parallel) *parallel = 0;
  return h.file;
}

static void file_opened(int ncid, const char *path, int idx, int parallel, int64_t t0, int64_t t1) {
  pario_hmap_del(&files, FILE_KEY(ncid), 0);
  struct pario_rec *r = file_rec(ncid, path, NULL);
  if (!r) return;
  struct pario_handle h = {.k1 = FILE_KEY(ncid), .file = r};
  h.aux[F_PARALLEL] = parallel;
  pario_hmap_put(&files, &h);
  pario_rec_open(r, idx, t0, t1);
  if (parallel) pario_rec_max(r, PARIO_NETCDF_FILE_PARALLEL, 1);
  static const char *const formats[] = {"?", "classic", "64bit_offset", "netcdf4", "netcdf4_classic", "cdf5"};
  int fmt = 0;
  if (nc.inq_format && nc.inq_format(ncid, &fmt) == NC_NOERR && fmt > 0 && fmt <= 5) {
    char props[64];
    snprintf(props, sizeof props, "format=%s", formats[fmt]);
    pario_rec_set_props(r, props);
  }
}

#define OPEN_WRAP(fn, idx, par, params, args)      \
  int fn params {                                  \
    NC_TIMED(fn, args);                            \
    if (ret == NC_NOERR) {                         \
      pario_lib_enter();                           \
      file_opened(*ncidp, path, idx, par, t0, t1); \
      pario_lib_leave();                           \
    }                                              \
    return ret;                                    \
  }
OPEN_WRAP(nc_create, PARIO_NETCDF_FILE_CREATES, 0, (const char *path, int cmode, int *ncidp), (path, cmode, ncidp))
OPEN_WRAP(nc__create, PARIO_NETCDF_FILE_CREATES, 0,
          (const char *path, int cmode, size_t initialsz, size_t *hint, int *ncidp), (path, cmode, initialsz, hint, ncidp))
OPEN_WRAP(nc_open, PARIO_NETCDF_FILE_OPENS, 0, (const char *path, int mode, int *ncidp), (path, mode, ncidp))
OPEN_WRAP(nc__open, PARIO_NETCDF_FILE_OPENS, 0, (const char *path, int mode, size_t *hint, int *ncidp),
          (path, mode, hint, ncidp))

#ifdef PARIO_HAVE_MPI
#include <mpi.h>
int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
#define PAR_WRAP(fn, idx) \
  OPEN_WRAP(fn, idx, 1, (const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp), \
            (path, mode, comm, info, ncidp))
PAR_WRAP(nc_create_par, PARIO_NETCDF_FILE_CREATES)
PAR_WRAP(nc_open_par, PARIO_NETCDF_FILE_OPENS)
#endif

int nc_close(int ncid) {
  PARIO_LIB_REAL(PARIO_LIB_NETCDF, nc_close);
  if (!real_nc_close) return -1;
  if (nc_inside || !PARIO_LIB_ACTIVE() || nc.ok <= 0) return real_nc_close(ncid);
  struct pario_handle h;
  int known = pario_hmap_get(&files, FILE_KEY(ncid), 0, &h);
  int64_t t0 = pario_ticks();
  nc_inside++; int ret = real_nc_close(ncid); nc_inside--;
  int64_t t1 = pario_ticks();
  if (ret == NC_NOERR && known) {
    pario_lib_enter();
    pario_rec_close(h.file, PARIO_NETCDF_FILE_CLOSES, t0, t1);
    pario_hmap_del(&files, FILE_KEY(ncid), 0);
    pario_lib_leave();
  }
  return ret;
}

#define FILE_WRAP(fn, idx, params, args)                                   \
  int fn params {                                                          \
    NC_TIMED(fn, args);                                                    \
    if (ret == NC_NOERR) {                                                 \
      pario_lib_enter();                                                   \
      struct pario_rec *r = file_rec(ncid, NULL, NULL);                    \
      if (r) pario_rec_meta(r, idx, t0, t1);                               \
      pario_lib_leave();                                                   \
    }                                                                      \
    return ret;                                                            \
  }
FILE_WRAP(nc_enddef, PARIO_NETCDF_FILE_ENDDEFS, (int ncid), (ncid))
FILE_WRAP(nc__enddef, PARIO_NETCDF_FILE_ENDDEFS, (int ncid, size_t a, size_t b, size_t c, size_t d), (ncid, a, b, c, d))
FILE_WRAP(nc_redef, PARIO_NETCDF_FILE_REDEFS, (int ncid), (ncid))
FILE_WRAP(nc_sync, PARIO_NETCDF_FILE_SYNCS, (int ncid), (ncid))

/* ---- variables ---- */
/* The variable's entry (what the wrappers learnt of it: defined here, chunking set, access). */
static struct pario_handle var_entry(int ncid, int varid) {
  struct pario_handle h;
  if (!pario_hmap_get(&vars, (uint64_t)(unsigned)ncid, (uint64_t)varid, &h))
    h = (struct pario_handle){.k1 = (uint64_t)(unsigned)ncid, .k2 = (uint64_t)varid};
  return h;
}

int nc_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimidsp, int *varidp) {
  PARIO_LIB_REAL(PARIO_LIB_NETCDF, nc_def_var);
  if (!real_nc_def_var) return -1;
  nc_inside++; int ret = real_nc_def_var(ncid, name, xtype, ndims, dimidsp, varidp); nc_inside--;
  if (ret == NC_NOERR && !nc_inside && PARIO_LIB_ACTIVE() && nc_ready()) {
    pario_lib_enter();
    struct pario_handle h = {.k1 = (uint64_t)(unsigned)ncid, .k2 = (uint64_t)*varidp};
    h.aux[V_DEFINED] = 1;
    pario_hmap_put(&vars, &h);
    pario_lib_leave();
  }
  return ret;
}

int nc_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizesp) {
  PARIO_LIB_REAL(PARIO_LIB_NETCDF, nc_def_var_chunking);
  if (!real_nc_def_var_chunking) return -1;
  nc_inside++; int ret = real_nc_def_var_chunking(ncid, varid, storage, chunksizesp); nc_inside--;
  if (ret == NC_NOERR && !nc_inside && PARIO_LIB_ACTIVE() && nc_ready()) {
    pario_lib_enter();
    struct pario_handle h = var_entry(ncid, varid);
    h.aux[V_CHUNKS_SET] = 1;
    pario_hmap_put(&vars, &h);
    pario_lib_leave();
  }
  return ret;
}

int nc_var_par_access(int ncid, int varid, int par_access) {
  PARIO_LIB_REAL(PARIO_LIB_NETCDF, nc_var_par_access);
  if (!real_nc_var_par_access) return -1;
  nc_inside++; int ret = real_nc_var_par_access(ncid, varid, par_access); nc_inside--;
  if (ret == NC_NOERR && !nc_inside && PARIO_LIB_ACTIVE() && nc_ready()) {
    pario_lib_enter();
    int nvars = varid < 0 ? 0 : 1; /* NC_GLOBAL (-1): every variable of the group */
    if (varid < 0 && nc.inq_var) {
      int xt, nd, dims[NC_MAX_VAR_DIMS], na;
      while (nvars < 65536 && nc.inq_var(ncid, nvars, NULL, &xt, &nd, dims, &na) == NC_NOERR) nvars++;
    }
    for (int v = varid < 0 ? 0 : varid; v < (varid < 0 ? nvars : varid + 1); v++) {
      struct pario_handle h = var_entry(ncid, v);
      h.aux[V_ACCESS] = par_access == NC_COLLECTIVE;
      if (h.var) pario_rec_add(h.var, PARIO_NETCDF_VAR_PAR_ACCESS, 1);
      else h.aux[V_PAR_CALLS]++; /* counted when the variable's record is made */
      pario_hmap_put(&vars, &h);
    }
    pario_lib_leave();
  }
  return ret;
}

/* Facts of a variable, at its first data call (the definitions are complete then). */
static int var_of(int ncid, int varid, struct pario_handle *h, int *parallel) {
  *h = var_entry(ncid, varid);
  if (h->aux[V_FACTS]) { /* known: no look-up of its file on the per-call path */
    *parallel = (int)h->aux[V_PARALLEL];
    return h->var != NULL;
  }
  struct pario_rec *f = file_rec(ncid, NULL, parallel);
  h->file = f;
  char name[256] = "?";
  int xtype = 0, nd = 0, dimids[NC_MAX_VAR_DIMS], natts = 0, nunlim = 0, unlim[NC_MAX_VAR_DIMS];
  if (!f || nc.inq_var(ncid, varid, name, &xtype, &nd, dimids, &natts) != NC_NOERR) return 0;
  h->var = pario_lib_rec(f->path, name, PARIO_MOD_NETCDF_VAR);
  if (!h->var) return 0;
  size_t tsize = 0;
  nc.inq_type(ncid, xtype, NULL, &tsize);
  if (!nc.inq_unlimdims || nc.inq_unlimdims(ncid, &nunlim, unlim) != NC_NOERR) nunlim = 0;
  int record = 0;
  char props[768];
  size_t len = (size_t)snprintf(props, sizeof props, "dims=");
  for (int k = 0; k < nd && len < sizeof props; k++) {
    int u = 0;
    for (int j = 0; j < nunlim; j++) u |= unlim[j] == dimids[k];
    record |= u;
    size_t n = 0;
    nc.inq_dimlen(ncid, dimids[k], &n);
    len += u ? (size_t)snprintf(props + len, sizeof props - len, "%sunlimited", k ? "x" : "")
             : (size_t)snprintf(props + len, sizeof props - len, "%s%zu", k ? "x" : "", n);
  }
  if (!nd) len = (size_t)snprintf(props, sizeof props, "dims=scalar");
  int storage = NC_CONTIGUOUS, shuffle = 0, deflate = 0, level = 0;
  size_t chunks[NC_MAX_VAR_DIMS];
  if (nc.inq_var_chunking && nc.inq_var_chunking(ncid, varid, &storage, chunks) != NC_NOERR) storage = NC_CONTIGUOUS;
  int64_t chunk_bytes = 0;
  if (storage == NC_CHUNKED && nd > 0) {
    chunk_bytes = (int64_t)tsize;
    len += (size_t)snprintf(props + len, sizeof props - len, ";chunk=");
    for (int k = 0; k < nd && len < sizeof props; k++) {
      chunk_bytes *= (int64_t)chunks[k];
      len += (size_t)snprintf(props + len, sizeof props - len, "%s%zu", k ? "x" : "", chunks[k]);
    }
  }
  if (nc.inq_var_deflate && nc.inq_var_deflate(ncid, varid, &shuffle, &deflate, &level) != NC_NOERR) deflate = 0;
  pario_rec_set_props(h->var, props);
  pario_lock(&h->var->lock);
  h->var->touched = 1;
  h->var->i[PARIO_NETCDF_VAR_NDIMS] = nd;
  h->var->i[PARIO_NETCDF_VAR_RECORD] = record;
  h->var->i[PARIO_NETCDF_VAR_TYPE_SIZE] = (int64_t)tsize;
  h->var->i[PARIO_NETCDF_VAR_CHUNKED] = storage == NC_CHUNKED && nd > 0;
  h->var->i[PARIO_NETCDF_VAR_DEFAULT_CHUNKS] = storage == NC_CHUNKED && nd > 0 && h->aux[V_DEFINED] && !h->aux[V_CHUNKS_SET];
  h->var->i[PARIO_NETCDF_VAR_CHUNK_SIZE] = chunk_bytes;
  h->var->i[PARIO_NETCDF_VAR_DEFLATE_LEVEL] = deflate ? level : 0;
  h->var->i[PARIO_NETCDF_VAR_SHUFFLE] = shuffle != 0;
  h->var->i[PARIO_NETCDF_VAR_PAR_ACCESS] += h->aux[V_PAR_CALLS];
  pario_unlock(&h->var->lock);
  h->aux[V_FACTS] = 1;
  h->aux[V_PARALLEL] = *parallel;
  h->aux[V_NDIMS] = nd;
  h->aux[V_TYPE_SIZE] = (int64_t)tsize;
  if (pario_hmap_put(&vars, h) != 0) h->var = pario_rec_overflow(PARIO_MOD_NETCDF_VAR);
  return 1;
}

static int64_t whole_var(int ncid, int varid) {
  int xt, nd = 0, dims[NC_MAX_VAR_DIMS], na;
  if (nc.inq_var(ncid, varid, NULL, &xt, &nd, dims, &na) != NC_NOERR) return 0;
  int64_t n = 1;
  for (int k = 0; k < nd; k++) {
    size_t len = 0;
    nc.inq_dimlen(ncid, dims[k], &len);
    n *= (int64_t)len;
  }
  return n;
}

/* form: 0 var (all of it), 1 var1 (one element), 2 vara/vars/varm (count) */
static void data_call(int ncid, int varid, int kind, int form, const size_t *count, int64_t esize, int64_t t0,
                      int64_t t1) {
  pario_lib_enter();
  struct pario_handle h;
  int parallel = 0;
  if (var_of(ncid, varid, &h, &parallel)) {
    int64_t elems = 1;
    if (form == 0) elems = whole_var(ncid, varid);
    else if (form == 2)
      for (int k = 0; count && k < h.aux[V_NDIMS]; k++) elems *= (int64_t)count[k];
    pario_lib_io(h.file, h.var, kind, elems * (esize ? esize : h.aux[V_TYPE_SIZE]), t0, t1);
    if (parallel) {
      int idx = kind ? (h.aux[V_ACCESS] ? PARIO_NETCDF_VAR_COLL_WRITES : PARIO_NETCDF_VAR_INDEP_WRITES)
                     : (h.aux[V_ACCESS] ? PARIO_NETCDF_VAR_COLL_READS : PARIO_NETCDF_VAR_INDEP_READS);
      pario_rec_add(h.var, idx, 1);
    }
  }
  pario_lib_leave();
}

#define NC_WRAP(NAME, PARAMS, ARGS, FORM, COUNT, KIND, ESIZE)                      \
  int NAME PARAMS {                                                                \
    NC_TIMED(NAME, ARGS);                                                          \
    if (ret == NC_NOERR) data_call(ncid, varid, KIND, FORM, COUNT, ESIZE, t0, t1);  \
    return ret;                                                                     \
  }
#define NC_WRAP_(...) NC_WRAP(__VA_ARGS__)

#define P_VAR(B) (int ncid, int varid, B)
#define P_VAR1(B) (int ncid, int varid, const size_t *index, B)
#define P_VARA(B) (int ncid, int varid, const size_t *start, const size_t *count, B)
#define P_VARS(B) (int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride, B)
#define P_VARM(B) \
  (int ncid, int varid, const size_t *start, const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap, B)
#define A_VAR (ncid, varid, buf)
#define A_VAR1 (ncid, varid, index, buf)
#define A_VARA (ncid, varid, start, count, buf)
#define A_VARS (ncid, varid, start, count, stride, buf)
#define A_VARM (ncid, varid, start, count, stride, imap, buf)
#define E_VAR 0, NULL
#define E_VAR1 1, NULL
#define E_VARA 2, count
#define E_VARS 2, count
#define E_VARM 2, count

#define NC_TYPED(F, f, TN, T)                                                                      \
  NC_WRAP_(nc_put_##f##_##TN, P_##F(const T *buf), A_##F, E_##F, PARIO_KIND_WRITE, sizeof(T))      \
  NC_WRAP_(nc_get_##f##_##TN, P_##F(T *buf), A_##F, E_##F, PARIO_KIND_READ, sizeof(T))
#define NC_FORM(F, f)                                                                                \
  NC_TYPED(F, f, text, char) NC_TYPED(F, f, schar, signed char) NC_TYPED(F, f, uchar, unsigned char) \
  NC_TYPED(F, f, short, short) NC_TYPED(F, f, int, int) NC_TYPED(F, f, long, long)                   \
  NC_TYPED(F, f, float, float) NC_TYPED(F, f, double, double) NC_TYPED(F, f, ubyte, unsigned char)   \
  NC_TYPED(F, f, ushort, unsigned short) NC_TYPED(F, f, uint, unsigned int)                          \
  NC_TYPED(F, f, longlong, long long) NC_TYPED(F, f, ulonglong, unsigned long long)                  \
  NC_WRAP_(nc_put_##f, P_##F(const void *buf), A_##F, E_##F, PARIO_KIND_WRITE, 0)                   \
  NC_WRAP_(nc_get_##f, P_##F(void *buf), A_##F, E_##F, PARIO_KIND_READ, 0)

NC_FORM(VAR, var)
NC_FORM(VAR1, var1)
NC_FORM(VARA, vara)
NC_FORM(VARS, vars)
NC_FORM(VARM, varm)
