/* PnetCDF: one CDF-5 variable "data" (NC_UINT64) holding the global array of layout.h (btio: NAS
 * BTIO's record variable [NUM_DUMPS][Z][Y][X][FIVE_DBL], 8-byte integers rather than doubles so
 * that verify compares exact words; the bytes and their places are BTIO's).
 * Blocking collective (put_vara_all / put_varn_all) or independent transfers, or non-blocking
 * iput / bput (reads: iget) completed by ncmpi_wait_all (collective) or ncmpi_wait
 * (independent) every nb_batch requests and at the end of the transfer loop (flush).
 * Header and variable alignment go to PnetCDF as its MPI_Info hints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pnetcdf.h>

#include "backends/layout.h"
#include "backends/mpiinfo.h"
#include "pario/backend.h"
#include "pario/errors.h"

/* The "lib" settings. The defaults of the hints are what ncmpi_inq_file_info reports for a file
 * created without hints (PnetCDF 1.12.3). */
static const char *const modes[] = {"blocking", "iput", "bput", NULL};
static const pario_option options[] = {
    {.name = "mode", .type = PARIO_OPT_CHOICE, .choices = modes, .dflt = "blocking",
     .help = "blocking put/get_varn calls, or non-blocking iput/bput (reads: iget) completed by ncmpi_wait"},
    {.name = "nb_batch", .type = PARIO_OPT_INT, PARIO_OPT_MIN(0), .dflt = "0",
     .help = "non-blocking requests per wait; 0: one wait per phase (bput: at most 256 MiB buffered)"},
    {.name = "header_align", .type = PARIO_OPT_SIZE, .dflt = "512",
     .help = "nc_header_align_size: space reserved for the header (superseded by var_align)"},
    {.name = "var_align", .type = PARIO_OPT_SIZE, .dflt = "4",
     .help = "nc_var_align_size: variables start at a multiple of it (set it to the stripe size on Lustre)"},
    {.name = "header_read_chunk", .type = PARIO_OPT_SIZE, .dflt = "262144",
     .help = "nc_header_read_chunk_size: bytes per read of the header at open"},
    {0}};
/* lib setting -> PnetCDF's MPI_Info hint */
static const char *const info_keys[][2] = {{"header_align", "nc_header_align_size"},
                                           {"var_align", "nc_var_align_size"},
                                           {"header_read_chunk", "nc_header_read_chunk_size"}};

enum { BLOCKING, IPUT, BPUT };

typedef struct {
  pario_file pub;
  int ncid, varid;
  pario_layout lay;
  int mode;
  uint64_t batch, pending;
  void **pbuf;        /* buffers of pending reads: a new read into one of them waits first */
  int attached;
} ncfile;

static int nc_fail(int err, const char *what, const char *path) {
  int code = err == NC_ENOENT ? PARIO_E_NOENT : err == NC_EACCESS ? PARIO_E_PERM : PARIO_E_IO;
  return pario_err(code, "%s %s: %s", what, path, ncmpi_strerror(err));
}

static int mode_of(const pario_case *cs) {
  const char *v = pario_case_lib(cs, "mode");
  return !v || !strcmp(v, "blocking") ? BLOCKING : !strcmp(v, "iput") ? IPUT : !strcmp(v, "bput") ? BPUT : -1;
}

/* What the option table cannot say: settings that depend on each other. */
static int pnetcdf_check(const pario_case *cs) {
  if (pario_case_lib(cs, "nb_batch") && mode_of(cs) == BLOCKING)
    return pario_err(PARIO_E_SPEC, "case %s: pnetcdf nb_batch applies to mode iput or bput", cs->name);
  return 0;
}

static MPI_Info make_info(const pario_case *cs) {
  MPI_Info info = pario_hints_info(cs);
  if (info == MPI_INFO_NULL) MPI_Info_create(&info);
  for (size_t k = 0; k < sizeof info_keys / sizeof info_keys[0]; k++) {
    const char *v = pario_case_lib(cs, info_keys[k][0]);
    uint64_t x;
    char num[32];
    if (v && !pario_parse_size(v, &x)) {
      snprintf(num, sizeof num, "%llu", (unsigned long long)x);
      MPI_Info_set(info, info_keys[k][1], num);
    }
  }
  return info;
}

static int define(ncfile *f) {
  int dims[PARIO_MAX_DIMS], err = 0, btio = f->lay.kind == PARIO_BTIO;
  /* BTIO's names; its record dimension is unlimited, a record appended per step */
  static const char *const btio_dims[] = {"NUM_DUMPS", "Z", "Y", "X", "FIVE_DBL"};
  for (int d = 0; d < f->lay.nd && !err; d++) {
    char name[16];
    snprintf(name, sizeof name, "d%d", d);
    MPI_Offset len = btio && d == 0 ? NC_UNLIMITED : (MPI_Offset)f->lay.gdims[d];
    err = ncmpi_def_dim(f->ncid, btio ? btio_dims[d] : name, len, &dims[d]);
  }
  if (!err) err = ncmpi_def_var(f->ncid, "data", NC_UINT64, f->lay.nd, dims, &f->varid);
  int old;
  if (!err) err = ncmpi_set_fill(f->ncid, NC_NOFILL, &old); /* every element is written */
  if (!err) err = ncmpi_enddef(f->ncid);
  return err ? nc_fail(err, "define the variable of", f->pub.path) : 0;
}

static int pnetcdf_open(const pario_file *a, pario_file **fh) {
  ncfile *f = calloc(1, sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  f->pub = *a;
  f->ncid = -1;
  f->mode = mode_of(a->cs);
  pario_layout_init(&f->lay, a->cs, a->geom);
  uint64_t b = 0;
  const char *v = pario_case_lib(a->cs, "nb_batch");
  if (v) b = strtoull(v, NULL, 10); /* checked: an integer >= 0 */
  /* default: one wait for the whole phase; btio: one wait_all per step, as BTIO's method 3 */
  f->batch = b ? b : f->lay.kind == PARIO_BTIO ? 1 : f->lay.ncalls ? f->lay.ncalls : 1;
  if (f->mode == BPUT && f->batch * f->lay.call > ((uint64_t)256 << 20)) /* bput copies: bound its buffer */
    f->batch = (((uint64_t)256 << 20) / f->lay.call) ? ((uint64_t)256 << 20) / f->lay.call : 1;
  MPI_Info info = make_info(a->cs);
  int err, rc = 0;
  if (a->dir == PARIO_WRITE) {
    err = ncmpi_create(a->comm, a->path, NC_CLOBBER | NC_64BIT_DATA, info, &f->ncid);
    if (err) f->ncid = -1;
    rc = err ? nc_fail(err, "ncmpi_create", a->path) : define(f);
  } else {
    err = ncmpi_open(a->comm, a->path, NC_NOWRITE, info, &f->ncid);
    if (err) f->ncid = -1, rc = nc_fail(err, "ncmpi_open", a->path);
    else if ((err = ncmpi_inq_varid(f->ncid, "data", &f->varid))) rc = nc_fail(err, "ncmpi_inq_varid data in", a->path);
  }
  MPI_Info_free(&info);
  if (!rc && !f->pub.collective && (err = ncmpi_begin_indep_data(f->ncid))) rc = nc_fail(err, "ncmpi_begin_indep_data", a->path);
  if (!rc && f->mode == BPUT && a->dir == PARIO_WRITE &&
      (err = ncmpi_buffer_attach(f->ncid, (MPI_Offset)(f->batch * f->lay.call))))
    rc = nc_fail(err, "ncmpi_buffer_attach", a->path);
  else if (!rc && f->mode == BPUT && a->dir == PARIO_WRITE)
    f->attached = 1;
  if (!rc && f->mode != BLOCKING && !(f->pbuf = calloc(f->batch, sizeof *f->pbuf)))
    rc = pario_err(PARIO_E_NOMEM, "out of memory");
  if (rc) {
    if (f->ncid >= 0) ncmpi_close(f->ncid);
    free(f->pbuf);
    free(f);
    return rc;
  }
  *fh = &f->pub;
  return 0;
}

static int wait_pending(ncfile *f) {
  if (!f->pending) return 0;
  f->pending = 0;
  int err = f->pub.collective ? ncmpi_wait_all(f->ncid, NC_REQ_ALL, NULL, NULL)
                          : ncmpi_wait(f->ncid, NC_REQ_ALL, NULL, NULL);
  return err ? nc_fail(err, f->pub.collective ? "ncmpi_wait_all" : "ncmpi_wait", f->pub.path) : 0;
}

/* A wait before reusing a buffer that a pending request still reads or fills: a read would be
 * overwritten; an iput would be byte-swapped in place a second time (bput copies). */
static int before_reuse(ncfile *f, pario_dir dir, const void *buf) {
  int rc;
  if (dir == PARIO_READ || f->mode == IPUT)
    for (uint64_t k = 0; k < f->pending; k++)
      if (f->pbuf[k] == buf && (rc = wait_pending(f))) return rc;
  return 0;
}

/* NAS BTIO's calls: per cell of this step, put_vara_all (method 2, blocking: one collective call
 * per cell) or iput_vara (method 3: all cells posted, then one wait_all per step, f->batch). */
static int xfer_btio(ncfile *f, pario_dir dir, void *buf, uint64_t offset) {
  uint64_t step = offset / f->lay.call;
  unsigned long long *p = buf;
  int rc = f->mode == BLOCKING ? 0 : before_reuse(f, dir, buf), err = 0, first = 0, posted = 0;
  int coll = f->pub.collective;
  const char *what = "", *failed = "";
  /* after an error a blocking collective call still goes on: the other ranks are in it */
  for (int c = 0; c < f->lay.cells && !rc && (!first || (coll && f->mode == BLOCKING)); c++) {
    pario_box box;
    MPI_Offset st[5], ct[5];
    int req;
    pario_layout_btio_box(&f->lay, step, c, &box);
    for (int d = 0; d < 5; d++) st[d] = (MPI_Offset)box.start[d], ct[d] = (MPI_Offset)box.count[d];
    if (f->mode == BLOCKING && dir == PARIO_WRITE) {
      what = coll ? "ncmpi_put_vara_ulonglong_all" : "ncmpi_put_vara_ulonglong";
      err = coll ? ncmpi_put_vara_ulonglong_all(f->ncid, f->varid, st, ct, p)
                 : ncmpi_put_vara_ulonglong(f->ncid, f->varid, st, ct, p);
    } else if (f->mode == BLOCKING) {
      what = coll ? "ncmpi_get_vara_ulonglong_all" : "ncmpi_get_vara_ulonglong";
      err = coll ? ncmpi_get_vara_ulonglong_all(f->ncid, f->varid, st, ct, p)
                 : ncmpi_get_vara_ulonglong(f->ncid, f->varid, st, ct, p);
    } else if (dir == PARIO_READ) {
      what = "ncmpi_iget_vara_ulonglong";
      err = ncmpi_iget_vara_ulonglong(f->ncid, f->varid, st, ct, p, &req);
    } else if (f->mode == IPUT) {
      what = "ncmpi_iput_vara_ulonglong";
      err = ncmpi_iput_vara_ulonglong(f->ncid, f->varid, st, ct, p, &req);
    } else {
      what = "ncmpi_bput_vara_ulonglong";
      err = ncmpi_bput_vara_ulonglong(f->ncid, f->varid, st, ct, p, &req);
    }
    p += pario_box_elems(&box, 5);
    if (err && !first) first = err, failed = what;
    posted += f->mode != BLOCKING && !err;
  }
  /* the step's requests: one pending unit, waited for even after an error */
  if (posted) f->pbuf[f->pending++] = buf;
  if (first) {
    char w[128];
    snprintf(w, sizeof w, "%s at step %llu of", failed, (unsigned long long)step);
    return nc_fail(first, w, f->pub.path);
  }
  return !rc && posted && f->pending == f->batch ? wait_pending(f) : rc;
}

static int xfer(ncfile *f, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  if (f->lay.kind == PARIO_BTIO) return xfer_btio(f, dir, buf, offset);
  pario_box box[PARIO_MAX_BOXES];
  MPI_Offset st[PARIO_MAX_BOXES][PARIO_MAX_DIMS], ct[PARIO_MAX_BOXES][PARIO_MAX_DIMS];
  MPI_Offset *sp[PARIO_MAX_BOXES], *cp[PARIO_MAX_BOXES];
  int nb = pario_layout_boxes(&f->lay, offset, len, box), err, rc;
  for (int k = 0; k < nb; k++) {
    for (int d = 0; d < f->lay.nd; d++) st[k][d] = (MPI_Offset)box[k].start[d], ct[k][d] = (MPI_Offset)box[k].count[d];
    sp[k] = st[k];
    cp[k] = ct[k];
  }
  unsigned long long *p = buf;
  const char *what;
  if (f->mode == BLOCKING) {
    if (dir == PARIO_WRITE) {
      what = f->pub.collective ? "ncmpi_put_varn_ulonglong_all" : "ncmpi_put_varn_ulonglong";
      err = f->pub.collective ? ncmpi_put_varn_ulonglong_all(f->ncid, f->varid, nb, sp, cp, p)
                          : ncmpi_put_varn_ulonglong(f->ncid, f->varid, nb, sp, cp, p);
    } else {
      what = f->pub.collective ? "ncmpi_get_varn_ulonglong_all" : "ncmpi_get_varn_ulonglong";
      err = f->pub.collective ? ncmpi_get_varn_ulonglong_all(f->ncid, f->varid, nb, sp, cp, p)
                          : ncmpi_get_varn_ulonglong(f->ncid, f->varid, nb, sp, cp, p);
    }
  } else {
    int req;
    if ((rc = before_reuse(f, dir, buf))) return rc; /* the engine reuses its buffers */
    if (dir == PARIO_READ) {
      what = "ncmpi_iget_varn_ulonglong";
      err = ncmpi_iget_varn_ulonglong(f->ncid, f->varid, nb, sp, cp, p, &req);
    } else if (f->mode == IPUT) {
      what = "ncmpi_iput_varn_ulonglong";
      err = ncmpi_iput_varn_ulonglong(f->ncid, f->varid, nb, sp, cp, p, &req);
    } else {
      what = "ncmpi_bput_varn_ulonglong";
      err = ncmpi_bput_varn_ulonglong(f->ncid, f->varid, nb, sp, cp, p, &req);
    }
    if (!err) {
      f->pbuf[f->pending++] = buf;
      if (f->pending == f->batch && (rc = wait_pending(f))) return rc;
    }
  }
  if (err) {
    char w[128];
    snprintf(w, sizeof w, "%s at element %llu of", what, (unsigned long long)(offset / PARIO_ELEM));
    return nc_fail(err, w, f->pub.path);
  }
  return 0;
}

static int pnetcdf_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  return xfer((ncfile *)fh, dir, buf, len, offset);
}

static int pnetcdf_flush(pario_file *fh) { return wait_pending((ncfile *)fh); }

static int pnetcdf_sync(pario_file *fh) {
  ncfile *f = (ncfile *)fh;
  int err = ncmpi_sync(f->ncid);
  return err ? nc_fail(err, "ncmpi_sync", f->pub.path) : 0;
}

static int pnetcdf_close(pario_file *fh) {
  ncfile *f = (ncfile *)fh;
  int rc = wait_pending(f), err;
  if (f->attached && (err = ncmpi_buffer_detach(f->ncid)) && !rc) rc = nc_fail(err, "ncmpi_buffer_detach", f->pub.path);
  if ((err = ncmpi_close(f->ncid)) && !rc) rc = nc_fail(err, "ncmpi_close", f->pub.path);
  free(f->pbuf);
  free(f);
  return rc;
}

/* PnetCDF's hints as it uses them: the MPI-IO ones and its own (alignment, header chunk). */
static int pnetcdf_info(pario_file *fh, pario_info *out) {
  ncfile *f = (ncfile *)fh;
  MPI_Info info;
  out->n = 0;
  if (ncmpi_inq_file_info(f->ncid, &info)) return 1;
  pario_info_take(&info, out, "ncmpi_inq_file_info");
  return 0;
}

static int pnetcdf_lib_info(pario_file *fh, pario_info *out) {
  static const char *const modes[] = {"blocking", "iput", "bput"};
  ncfile *f = (ncfile *)fh;
  MPI_Offset hsize = 0, hext = 0, voff = 0;
  out->n = 0;
  out->source = "ncmpi_inq_header_size, ncmpi_inq_header_extent, ncmpi_inq_varoffset";
  ncmpi_inq_header_size(f->ncid, &hsize);
  ncmpi_inq_header_extent(f->ncid, &hext);
  ncmpi_inq_varoffset(f->ncid, f->varid, &voff);
  const char *k[] = {"mode", "nb_batch", "header_size", "header_extent", "var_offset"};
  snprintf(out->val[0], 256, "%s", modes[f->mode]);
  snprintf(out->val[1], 256, "%llu", (unsigned long long)(f->mode == BLOCKING ? 0 : f->batch));
  snprintf(out->val[2], 256, "%lld", (long long)hsize);
  snprintf(out->val[3], 256, "%lld", (long long)hext);
  snprintf(out->val[4], 256, "%lld", (long long)voff);
  for (int i = 0; i < 5; i++) snprintf(out->key[i], 256, "%s", k[i]);
  out->n = 5;
  return 0;
}

static const char *pnetcdf_version(void) {
  static char v[64];
  /* ncmpi_inq_libvers gives e.g. "1.12.3 of March 29, 2022": keep the number */
  snprintf(v, sizeof v, "%s", ncmpi_inq_libvers());
  char *sp = strchr(v, ' ');
  if (sp) *sp = 0;
  return v;
}

const pario_backend pario_backend_pnetcdf = {
    .abi = PARIO_BACKEND_ABI,
    .name = "pnetcdf",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_VIEW | PARIO_CAP_HINTS | PARIO_CAP_NONBLOCKING,
    .open = pnetcdf_open,
    .xfer = pnetcdf_xfer,
    .xfer_all = pnetcdf_xfer,
    .close = pnetcdf_close,
    .sync = pnetcdf_sync,
    .info = pnetcdf_info,
    .flush = pnetcdf_flush,
    .lib_info = pnetcdf_lib_info,
    .version = pnetcdf_version,
    .options = options,
    .check = pnetcdf_check,
};
