/* Parallel HDF5 through its MPI-IO driver: one dataset "data" (unsigned 64-bit) holding the
 * global array of layout.h; independent or collective transfers (H5FD_MPIO_COLLECTIVE);
 * collective metadata operations; alignment and chunking as "lib" settings; MPI_Info hints
 * through the file access property list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "backends/layout.h"
#include "backends/mpiinfo.h"
#include "pario/backend.h"
#include "pario/errors.h"

#if !defined(H5_HAVE_PARALLEL)
#error "pario's hdf5 backend needs a parallel HDF5 (Debian: libhdf5-openmpi-dev)"
#endif

/* The "lib" settings. Defaults are HDF5's (a fresh file access property list, HDF5 1.10.8),
 * except coll_metadata and chunk, which are pario's. */
static const char *const chunk_words[] = {"none", "block", NULL};
static const char *const chunk_opts[] = {"default", "one", "multi", NULL};
static const char *const libvers[] = {"earliest", "latest", NULL};
static const pario_option options[] = {
    {.name = "alignment", .type = PARIO_OPT_SIZE, PARIO_OPT_MIN(1), .dflt = "1",
     .help = "H5Pset_alignment: objects of at least align_threshold bytes start at a multiple of it (the stripe size)"},
    {.name = "align_threshold", .type = PARIO_OPT_SIZE, .dflt = "1",
     .help = "H5Pset_alignment threshold: smaller objects are not aligned (needs alignment)"},
    {.name = "chunk", .type = PARIO_OPT_DIMS, .choices = chunk_words, .dflt = "none",
     .help = "dataset storage: none (contiguous), block (a rank's block, or one transfer), or chunk dims in elements"},
    {.name = "coll_metadata", .type = PARIO_OPT_BOOL, .dflt = "true",
     .help = "H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write: metadata I/O as collectives"},
    {.name = "chunk_opt", .type = PARIO_OPT_CHOICE, .choices = chunk_opts, .dflt = "default",
     .help = "H5Pset_dxpl_mpio_chunk_opt: collective chunked I/O as one linked transfer or chunk by chunk"},
    {.name = "meta_block_size", .type = PARIO_OPT_SIZE, .dflt = "2048",
     .help = "H5Pset_meta_block_size: file metadata is allocated in blocks of this size"},
    {.name = "sieve_buf_size", .type = PARIO_OPT_SIZE, .dflt = "65536",
     .help = "H5Pset_sieve_buf_size: the data sieving buffer of contiguous datasets"},
    {.name = "libver", .type = PARIO_OPT_CHOICE, .choices = libvers, .dflt = "earliest",
     .help = "H5Pset_libver_bounds low bound: latest allows the newer, more compact file structures"},
    {0}};

typedef struct {
  pario_file pub;
  hid_t file, dset, fspace, dxpl;
  hid_t fapl; /* kept: info()/lib_info() run on rank 0 alone and H5Fget_access_plist is collective */
  pario_layout lay;
  int have_mode;
  H5D_mpio_actual_io_mode_t io_mode;
  H5D_mpio_actual_chunk_opt_mode_t chunk_mode;
  uint32_t cause_local, cause_global;
  int failed; /* a write or flush of this rank failed: see hdf5_close */
  char layout_name[32];
} h5file;

/* The innermost message of HDF5's error stack: the most specific reason. */
static herr_t last_msg(unsigned n, const H5E_error2_t *e, void *data) {
  if (n == 0 && e->desc) snprintf(data, 256, "%s (in %s)", e->desc, e->func_name ? e->func_name : "?");
  return 0;
}

static int h5_fail(const char *what, const char *path) {
  char msg[256] = "no details from HDF5";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, last_msg, msg);
  H5Eclear2(H5E_DEFAULT);
  return pario_err(PARIO_E_IO, "%s %s: %s", what, path, msg);
}

/* What the option table cannot say: settings that depend on each other. */
static int hdf5_check(const pario_case *cs) {
  if (pario_case_lib(cs, "align_threshold") && !pario_case_lib(cs, "alignment"))
    return pario_err(PARIO_E_SPEC, "case %s: hdf5 align_threshold needs alignment", cs->name);
  return 0;
}

static hid_t make_fapl(const pario_file *a) {
  const pario_case *cs = a->cs;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  MPI_Info info = pario_hints_info(cs);
  H5Pset_fapl_mpio(fapl, a->comm, info); /* HDF5 duplicates comm and info */
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  const char *v = pario_case_lib(cs, "coll_metadata");
  if (!v || !strcmp(v, "true")) { /* default on: the setting the HDF5 group recommends at scale */
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
  }
  uint64_t x, thr = 1;
  if ((v = pario_case_lib(cs, "alignment")) && !pario_parse_size(v, &x)) {
    if ((v = pario_case_lib(cs, "align_threshold"))) pario_parse_size(v, &thr);
    H5Pset_alignment(fapl, (hsize_t)thr, (hsize_t)x);
  }
  if ((v = pario_case_lib(cs, "meta_block_size")) && !pario_parse_size(v, &x)) H5Pset_meta_block_size(fapl, (hsize_t)x);
  if ((v = pario_case_lib(cs, "sieve_buf_size")) && !pario_parse_size(v, &x)) H5Pset_sieve_buf_size(fapl, (size_t)x);
  if ((v = pario_case_lib(cs, "libver")) && !strcmp(v, "latest")) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  return fapl;
}

static hid_t make_dcpl(h5file *f, const pario_case *cs) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  /* like NC_NOFILL: every element is written by the benchmark, a fill pass would double writes */
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  const char *v = pario_case_lib(cs, "chunk");
  uint64_t chunk[PARIO_MAX_DIMS];
  if (v && strcmp(v, "none") && !pario_layout_chunk(&f->lay, v, chunk)) {
    hsize_t c[PARIO_MAX_DIMS];
    for (int d = 0; d < f->lay.nd; d++) c[d] = (hsize_t)chunk[d];
    H5Pset_chunk(dcpl, f->lay.nd, c);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY); /* parallel HDF5 requires early allocation */
    snprintf(f->layout_name, sizeof f->layout_name, "chunked");
  } else {
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    snprintf(f->layout_name, sizeof f->layout_name, "contiguous");
  }
  return dcpl;
}

static int hdf5_open(const pario_file *a, pario_file **fh) {
  h5file *f = calloc(1, sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors come back as one line, not a stack dump */
  f->pub = *a;
  pario_layout_init(&f->lay, a->cs, a->geom);
  hid_t fapl = f->fapl = make_fapl(a);
  int rc = 0;
  if (a->dir == PARIO_WRITE) {
    f->file = H5Fcreate(a->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f->file < 0) {
      rc = h5_fail("H5Fcreate", a->path);
    } else {
      hsize_t dims[PARIO_MAX_DIMS];
      for (int d = 0; d < f->lay.nd; d++) dims[d] = (hsize_t)f->lay.gdims[d];
      hid_t space = H5Screate_simple(f->lay.nd, dims, NULL);
      hid_t dcpl = make_dcpl(f, a->cs);
      f->dset = H5Dcreate2(f->file, "data", H5T_STD_U64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      H5Pclose(dcpl);
      H5Sclose(space);
      if (f->dset < 0) rc = h5_fail("H5Dcreate2", a->path);
    }
  } else {
    f->file = H5Fopen(a->path, H5F_ACC_RDONLY, fapl);
    if (f->file < 0) rc = h5_fail("H5Fopen", a->path);
    else if ((f->dset = H5Dopen2(f->file, "data", H5P_DEFAULT)) < 0) rc = h5_fail("H5Dopen2 data", a->path);
  }
  if (!rc) {
    f->fspace = H5Dget_space(f->dset);
    f->dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(f->dxpl, f->pub.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    const char *v = pario_case_lib(a->cs, "chunk_opt");
    if (v && !strcmp(v, "one")) H5Pset_dxpl_mpio_chunk_opt(f->dxpl, H5FD_MPIO_CHUNK_ONE_IO);
    if (v && !strcmp(v, "multi")) H5Pset_dxpl_mpio_chunk_opt(f->dxpl, H5FD_MPIO_CHUNK_MULTI_IO);
  }
  if (rc) {
    if (f->dset > 0) H5Dclose(f->dset);
    if (f->file > 0) H5Fclose(f->file);
    H5Pclose(fapl);
    free(f);
    return rc;
  }
  *fh = &f->pub;
  return 0;
}

static int hdf5_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  h5file *f = (h5file *)fh;
  pario_box box[PARIO_MAX_BOXES];
  int nb = pario_layout_boxes(&f->lay, offset, len, box);
  for (int k = 0; k < nb; k++) {
    hsize_t start[PARIO_MAX_DIMS], count[PARIO_MAX_DIMS];
    for (int d = 0; d < f->lay.nd; d++) start[d] = (hsize_t)box[k].start[d], count[d] = (hsize_t)box[k].count[d];
    H5Sselect_hyperslab(f->fspace, k ? H5S_SELECT_OR : H5S_SELECT_SET, start, NULL, count, NULL);
  }
  hsize_t n = (hsize_t)(len / PARIO_ELEM);
  hid_t mspace = H5Screate_simple(1, &n, NULL);
  herr_t e = dir == PARIO_WRITE ? H5Dwrite(f->dset, H5T_NATIVE_UINT64, mspace, f->fspace, f->dxpl, buf)
                                : H5Dread(f->dset, H5T_NATIVE_UINT64, mspace, f->fspace, f->dxpl, buf);
  H5Sclose(mspace);
  if (e < 0) {
    char what[96];
    snprintf(what, sizeof what, "%s at element %llu of", dir == PARIO_WRITE ? "H5Dwrite" : "H5Dread",
             (unsigned long long)(offset / PARIO_ELEM));
    if (dir == PARIO_READ) return h5_fail(what, f->pub.path);
    f->failed = 1; /* named now, while the file system is as the write found it (see hdf5_close) */
    return pario_err_space(h5_fail(what, f->pub.path), f->pub.path, 0);
  }
  if (f->pub.collective && !f->have_mode) { /* what HDF5 actually did with the first collective call */
    f->have_mode = 1;
    H5Pget_mpio_actual_io_mode(f->dxpl, &f->io_mode);
    H5Pget_mpio_actual_chunk_opt_mode(f->dxpl, &f->chunk_mode);
    H5Pget_mpio_no_collective_cause(f->dxpl, &f->cause_local, &f->cause_global);
  }
  return 0;
}

static int hdf5_sync(pario_file *fh) {
  h5file *f = (h5file *)fh;
  if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) >= 0) return 0;
  f->failed = 1;
  return pario_err_space(h5_fail("H5Fflush", f->pub.path), f->pub.path, 0);
}

/* After a failed write (a full disk), HDF5 1.10's H5Dclose/H5Fclose flush the metadata, fail
 * again, and leave the ranks in different barriers (HDFGroup/hdf5#1183, fixed in later HDF5):
 * only pario's watchdog ended such a job. So the ranks of the file first agree whether any of them
 * failed (one MPI_Allreduce, also on success: it is part of the timed close), and if one did,
 * nothing of the file is closed: it is left open (pario_backend_left_open) and the engine ends the
 * job with MPI_Abort once the result document, with the failing rank's error, is written. */
static int hdf5_close(pario_file *fh) {
  h5file *f = (h5file *)fh;
  int rc = 0;
  if (pario_file_left_open_if_failed(fh, f->failed, "hdf5: a write failed, and HDF5 cannot close the file "
                                                    "safely after it (HDFGroup/hdf5#1183)"))
    return 0; /* the failing rank's error is its write's; the others learn it when the phase agrees */
  H5Pclose(f->dxpl);
  H5Pclose(f->fapl);
  H5Sclose(f->fspace);
  if (H5Dclose(f->dset) < 0) rc = h5_fail("H5Dclose", f->pub.path);
  if (H5Fclose(f->file) < 0 && !rc) rc = h5_fail("H5Fclose", f->pub.path);
  free(f);
  return rc;
}

/* The hints MPI-IO took for the file HDF5 opened (its MPI_File, through the VFD handle). */
static int hdf5_info(pario_file *fh, pario_info *out) {
  h5file *f = (h5file *)fh;
  void *handle = NULL;
  out->n = 0;
  herr_t e = H5Fget_vfd_handle(f->file, f->fapl, &handle); /* the MPI_File: local, no copy */
  MPI_Info info;
  if (e < 0 || !handle || MPI_File_get_info(*(MPI_File *)handle, &info) != MPI_SUCCESS) {
    H5Eclear2(H5E_DEFAULT);
    return 1;
  }
  pario_info_take(&info, out, "MPI_File_get_info (H5Fget_vfd_handle)");
  return 0;
}

static void put(pario_info *out, const char *k, const char *v) {
  if (out->n >= PARIO_MAX_HINTS) return;
  snprintf(out->key[out->n], sizeof out->key[0], "%s", k);
  snprintf(out->val[out->n], sizeof out->val[0], "%s", v);
  out->n++;
}

static int hdf5_lib_info(pario_file *fh, pario_info *out) {
  static const char *const modes[] = {"no_collective", "chunk_independent", "chunk_collective", "chunk_mixed",
                                      "contiguous_collective"};
  static const char *const chunk_modes[] = {"no_chunk_optimization", "link_chunk", "multi_chunk"};
  h5file *f = (h5file *)fh;
  char v[256];
  out->n = 0;
  out->source = "H5Pget_mpio_actual_io_mode, H5Pget_mpio_no_collective_cause, the file access property list";
  put(out, "layout", f->layout_name);
  hid_t fapl = f->fapl;
  hsize_t thr = 0, al = 0;
  H5Pget_alignment(fapl, &thr, &al);
  hbool_t cmo = 0, cmw = 0;
  H5Pget_all_coll_metadata_ops(fapl, &cmo);
  H5Pget_coll_metadata_write(fapl, &cmw);
  snprintf(v, sizeof v, "%llu", (unsigned long long)al);
  put(out, "alignment", v);
  snprintf(v, sizeof v, "%llu", (unsigned long long)thr);
  put(out, "align_threshold", v);
  put(out, "coll_metadata_ops", cmo ? "true" : "false");
  put(out, "coll_metadata_write", cmw ? "true" : "false");
  if (f->have_mode) {
    int m = (int)f->io_mode;
    put(out, "actual_io_mode", m >= 0 && m <= 4 ? modes[m] : "unknown");
    m = (int)f->chunk_mode;
    put(out, "actual_chunk_opt_mode", m >= 0 && m <= 2 ? chunk_modes[m] : "unknown");
    snprintf(v, sizeof v, "0x%x", (unsigned)f->cause_global);
    put(out, "no_collective_cause", v); /* 0 = collective I/O was done; bits: H5D_mpio_no_collective_cause_t */
  }
  return 0;
}

static const char *hdf5_version(void) {
  static char v[64];
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  snprintf(v, sizeof v, "%u.%u.%u", maj, min, rel);
  return v;
}

const pario_backend pario_backend_hdf5 = {
    .abi = PARIO_BACKEND_ABI,
    .name = "hdf5",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_VIEW | PARIO_CAP_HINTS,
    .open = hdf5_open,
    .xfer = hdf5_xfer,
    .xfer_all = hdf5_xfer,
    .close = hdf5_close,
    .sync = hdf5_sync,
    .info = hdf5_info,
    .lib_info = hdf5_lib_info,
    .version = hdf5_version,
    .options = options,
    .check = hdf5_check,
};
