/* NetCDF-4 (HDF5 files) with parallel I/O: nc_create_par / nc_open_par, one variable "data"
 * (NC_UINT64) holding the global array of layout.h, collective or independent access
 * (nc_var_par_access), NOFILL by default, contiguous or chunked storage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>
#include <netcdf_par.h>

#include "backends/layout.h"
#include "backends/mpiinfo.h"
#include "pario/backend.h"
#include "pario/errors.h"

/* The "lib" settings; netCDF takes the alignment as C ints. */
static const char *const chunk_words[] = {"none", "block", NULL};
static const char *const fills[] = {"nofill", "fill", NULL};
static const pario_option options[] = {
    {.name = "chunk", .type = PARIO_OPT_DIMS, .choices = chunk_words, .dflt = "none",
     .help = "variable storage: none (contiguous), block (a rank's block, or one transfer), or chunk dims in elements"},
    {.name = "fill", .type = PARIO_OPT_CHOICE, .choices = fills, .dflt = "nofill",
     .help = "nc_def_var_fill: fill writes every element once more before the data (pario's default: nofill)"},
    {.name = "alignment", .type = PARIO_OPT_SIZE, PARIO_OPT_MIN(1), PARIO_OPT_MAX(2147483647),
     .help = "nc_set_alignment: objects of at least align_threshold bytes start at a multiple (netCDF: none)"},
    {.name = "align_threshold", .type = PARIO_OPT_SIZE, PARIO_OPT_MAX(2147483647),
     .help = "nc_set_alignment threshold: smaller objects are not aligned (needs alignment)"},
    {0}};

typedef struct {
  pario_file pub;
  int ncid, varid;
  pario_layout lay;
  int chunked, fill;
  int failed; /* a write or sync of this rank failed: see netcdf4_close */
} n4file;

static int n4_fail(int err, const char *what, const char *path) {
  int code = err == ENOENT ? PARIO_E_NOENT : err == EACCES || err == NC_EPERM ? PARIO_E_PERM : PARIO_E_IO;
  return pario_err(code, "%s %s: %s", what, path, nc_strerror(err));
}

/* What the option table cannot say: settings that depend on each other. */
static int netcdf4_check(const pario_case *cs) {
  if (pario_case_lib(cs, "align_threshold") && !pario_case_lib(cs, "alignment"))
    return pario_err(PARIO_E_SPEC, "case %s: netcdf4 align_threshold needs alignment", cs->name);
  return 0;
}

static int define(n4file *f, const pario_case *cs) {
  int dims[PARIO_MAX_DIMS], err = 0;
  for (int d = 0; d < f->lay.nd && !err; d++) {
    char name[16];
    snprintf(name, sizeof name, "d%d", d);
    err = nc_def_dim(f->ncid, name, (size_t)f->lay.gdims[d], &dims[d]);
  }
  if (!err) err = nc_def_var(f->ncid, "data", NC_UINT64, f->lay.nd, dims, &f->varid);
  const char *v = pario_case_lib(cs, "chunk");
  uint64_t c64[PARIO_MAX_DIMS];
  size_t c[PARIO_MAX_DIMS];
  if (!err && v && strcmp(v, "none") && !pario_layout_chunk(&f->lay, v, c64)) {
    for (int d = 0; d < f->lay.nd; d++) c[d] = (size_t)c64[d];
    err = nc_def_var_chunking(f->ncid, f->varid, NC_CHUNKED, c);
    f->chunked = 1;
  } else if (!err) {
    err = nc_def_var_chunking(f->ncid, f->varid, NC_CONTIGUOUS, NULL);
  }
  v = pario_case_lib(cs, "fill");
  f->fill = v && !strcmp(v, "fill");
  /* NOFILL: every element is written by the benchmark; a fill pass would write it twice */
  if (!err) err = nc_def_var_fill(f->ncid, f->varid, f->fill ? NC_FILL : NC_NOFILL, NULL);
  if (!err) err = nc_enddef(f->ncid);
  return err ? n4_fail(err, "define the variable of", f->pub.path) : 0;
}

static int netcdf4_open(const pario_file *a, pario_file **fh) {
  n4file *f = calloc(1, sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  f->pub = *a;
  f->ncid = -1;
  pario_layout_init(&f->lay, a->cs, a->geom);
  MPI_Info info = pario_hints_info(a->cs);
  const char *v = pario_case_lib(a->cs, "alignment");
  uint64_t al = 0, thr = 1;
  if (v && !pario_parse_size(v, &al)) {
    if ((v = pario_case_lib(a->cs, "align_threshold"))) pario_parse_size(v, &thr);
    nc_set_alignment((int)thr, (int)al); /* global in netCDF: applies to files created next */
  }
  int err, rc = 0;
  if (a->dir == PARIO_WRITE) {
    err = nc_create_par(a->path, NC_NETCDF4 | NC_CLOBBER, a->comm, info, &f->ncid);
    if (err) f->ncid = -1;
    rc = err ? n4_fail(err, "nc_create_par", a->path) : define(f, a->cs);
  } else {
    err = nc_open_par(a->path, NC_NOWRITE, a->comm, info, &f->ncid);
    if (err) f->ncid = -1, rc = n4_fail(err, "nc_open_par", a->path);
    else if ((err = nc_inq_varid(f->ncid, "data", &f->varid))) rc = n4_fail(err, "nc_inq_varid data in", a->path);
  }
  if (al) nc_set_alignment(0, 0);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (!rc && (err = nc_var_par_access(f->ncid, f->varid, f->pub.collective ? NC_COLLECTIVE : NC_INDEPENDENT)))
    rc = n4_fail(err, "nc_var_par_access", a->path);
  if (rc) {
    if (f->ncid >= 0) nc_close(f->ncid);
    free(f);
    return rc;
  }
  *fh = &f->pub;
  return 0;
}

/* A call of several boxes (a view over a k-D block) is several calls: every member has the
 * same number of boxes per call, so collective calls still match across ranks. */
static int netcdf4_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  n4file *f = (n4file *)fh;
  pario_box box[PARIO_MAX_BOXES];
  int nb = pario_layout_boxes(&f->lay, offset, len, box);
  unsigned long long *p = buf;
  for (int k = 0; k < nb; k++) {
    size_t st[PARIO_MAX_DIMS], ct[PARIO_MAX_DIMS];
    for (int d = 0; d < f->lay.nd; d++) st[d] = (size_t)box[k].start[d], ct[d] = (size_t)box[k].count[d];
    int err = dir == PARIO_WRITE ? nc_put_vara_ulonglong(f->ncid, f->varid, st, ct, p)
                                 : nc_get_vara_ulonglong(f->ncid, f->varid, st, ct, p);
    if (err) {
      char w[96];
      snprintf(w, sizeof w, "%s at element %llu of", dir == PARIO_WRITE ? "nc_put_vara" : "nc_get_vara",
               (unsigned long long)(offset / PARIO_ELEM));
      if (dir == PARIO_READ) return n4_fail(err, w, f->pub.path);
      f->failed = 1; /* named now, before netcdf4_close empties the file */
      return pario_err_space(n4_fail(err, w, f->pub.path), f->pub.path, 0);
    }
    p += pario_box_elems(&box[k], f->lay.nd);
  }
  return 0;
}

static int netcdf4_sync(pario_file *fh) {
  n4file *f = (n4file *)fh;
  int err = nc_sync(f->ncid);
  if (!err) return 0;
  f->failed = 1;
  return pario_err_space(n4_fail(err, "nc_sync", f->pub.path), f->pub.path, 0);
}

/* NetCDF-4 closes through H5Fclose: after a failed write, as hdf5.c says, it is not called. */
static int netcdf4_close(pario_file *fh) {
  n4file *f = (n4file *)fh;
  if (pario_file_left_open_if_failed(fh, f->failed, "netcdf4: a write failed, and its HDF5 cannot close the "
                                                    "file safely after it (HDFGroup/hdf5#1183)"))
    return 0;
  int err = nc_close(f->ncid);
  int rc = err ? n4_fail(err, "nc_close", f->pub.path) : 0;
  free(f);
  return rc;
}

static int netcdf4_lib_info(pario_file *fh, pario_info *out) {
  n4file *f = (n4file *)fh;
  int storage = 0, nofill = 0;
  size_t c[PARIO_MAX_DIMS];
  out->source = "nc_inq_var_chunking, nc_inq_var_fill";
  nc_inq_var_chunking(f->ncid, f->varid, &storage, c);
  nc_inq_var_fill(f->ncid, f->varid, &nofill, NULL);
  snprintf(out->key[0], 256, "storage");
  snprintf(out->val[0], 256, "%s", storage == NC_CHUNKED ? "chunked" : storage == NC_CONTIGUOUS ? "contiguous" : "other");
  snprintf(out->key[1], 256, "fill");
  snprintf(out->val[1], 256, "%s", nofill ? "nofill" : "fill");
  snprintf(out->key[2], 256, "par_access");
  snprintf(out->val[2], 256, "%s", f->pub.collective ? "collective" : "independent");
  out->n = 3;
  if (storage == NC_CHUNKED) {
    int n = 0;
    for (int d = 0; d < f->lay.nd; d++) n += snprintf(out->val[3] + n, 256 - (size_t)n, "%s%zu", d ? "," : "", c[d]);
    snprintf(out->key[3], 256, "chunk");
    out->n = 4;
  }
  return 0;
}

static const char *netcdf4_version(void) {
  static char v[64];
  snprintf(v, sizeof v, "%s", nc_inq_libvers()); /* "4.9.0 of ..." */
  char *sp = strchr(v, ' ');
  if (sp) *sp = 0;
  return v;
}

const pario_backend pario_backend_netcdf4 = {
    .abi = PARIO_BACKEND_ABI,
    .name = "netcdf4",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_VIEW | PARIO_CAP_HINTS,
    .open = netcdf4_open,
    .xfer = netcdf4_xfer,
    .xfer_all = netcdf4_xfer,
    .close = netcdf4_close,
    .sync = netcdf4_sync,
    .lib_info = netcdf4_lib_info,
    .version = netcdf4_version,
    .options = options,
    .check = netcdf4_check,
};
