/* ADIOS2, BP5 engine: one global array variable "data" (uint64) of layout.h, each rank putting
 * its own blocks (one block per box of each call), read back through ADIOS2 (random access).
 * BP5 performance parameters (aggregation, buffering, ...) are "lib" settings, passed to
 * adios2_set_parameter as given; ADIOS2 checks their values at open.
 *
 * Puts are synchronous (the data is copied into BP5's buffer, since the engine reuses its own
 * buffers); BP5 writes at EndStep, which flush() calls at the end of the transfer loop, so the
 * transfer time holds the real I/O as with the other layers. A BP5 "file" is a directory:
 * remove() deletes the files BP5 puts there and the directory itself. With fsync (-e) the data
 * reaches storage inside the timed phase as with the other layers: BP5 has no sync call of its own
 * and writes its files itself (data at EndStep, metadata at close), so close() flushes every file
 * BP5 left in the directory once adios2_close has returned, the ranks sharing them out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <adios2_c.h>

#include "backends/layout.h"
#include "pario/backend.h"
#include "pario/errors.h"

/* BP5 parameters (ADIOS2 docs, engines/bp5.rst, whose defaults these are); ADIOS2 ignores their
 * case and checks their values at open (sizes take its units, "128MB"; booleans On/Off too). */
static const char *const agg_types[] = {"TwoLevelShm", "EveryoneWrites", "EveryoneWritesSerial", "DataSizeBased", NULL};
static const char *const buffer_types[] = {"chunk", "malloc", NULL};
#define BP5(n, t, ...) {.name = n, .type = PARIO_OPT_##t, .flags = PARIO_OPT_LIBRARY_CHECKS, __VA_ARGS__}
static const pario_option options[] = {
    BP5("NumAggregators", INT, PARIO_OPT_MIN(1), .help = "processes that write to storage (default: one per node)"),
    BP5("AggregatorRatio", INT, PARIO_OPT_MIN(1), .help = "every Nth process aggregates (instead of NumAggregators)"),
    BP5("NumSubFiles", INT, PARIO_OPT_MIN(1), .help = "data files in the output directory (default: NumAggregators)"),
    BP5("AggregationType", CHOICE, .choices = agg_types, .dflt = "TwoLevelShm", .help = "how data reaches the aggregators"),
    BP5("StripeSize", SIZE, .dflt = "4096", .help = "each process's data starts at a multiple of it in the subfiles"),
    BP5("MaxShmSize", SIZE, .dflt = "4294762496", .help = "TwoLevelShm shared memory per aggregator (>= 2x a step's write + 1 KB)"),
    BP5("BufferVType", CHOICE, .choices = buffer_types, .dflt = "chunk", .help = "buffer as a list of chunks or one malloc'd block"),
    BP5("BufferChunkSize", SIZE, .dflt = "134217728", .help = "chunk buffer: bytes per chunk (worth raising toward 2 GiB)"),
    BP5("MinDeferredSize", SIZE, .dflt = "4194304", .help = "chunk buffer: smaller deferred puts are copied"),
    BP5("InitialBufferSize", SIZE, PARIO_OPT_MIN(16384), .dflt = "16384", .help = "malloc buffer: initial size"),
    BP5("GrowthFactor", FLOAT, PARIO_OPT_MIN(1), .dflt = "1.05", .help = "malloc buffer: growth factor"),
    BP5("AsyncOpen", BOOL, .dflt = "true", .help = "open the subfiles asynchronously"),
    BP5("AsyncWrite", BOOL, .dflt = "false", .help = "write the data asynchronously after EndStep"),
    BP5("StatsLevel", INT, PARIO_OPT_MIN(0), PARIO_OPT_MAX(1), .dflt = "1", .help = "min/max of every block in the metadata"),
    BP5("DirectIO", BOOL, .dflt = "false", .help = "O_DIRECT with the POSIX transport (not on parallel file systems)"),
    BP5("DirectIOAlignOffset", SIZE, .dflt = "512", .help = "O_DIRECT file offset alignment"),
    BP5("DirectIOAlignBuffer", SIZE, .help = "O_DIRECT memory alignment (default: DirectIOAlignOffset)"),
    BP5("UseSelectiveMetadataAggregation", BOOL, .dflt = "true", .help = "multi-phase metadata aggregation"),
    BP5("OneLevelGatherRanksLimit", INT, PARIO_OPT_MIN(1), .dflt = "6000", .help = "above it, metadata is gathered in two stages"),
    BP5("Threads", INT, PARIO_OPT_MIN(0), .dflt = "0", .help = "reader threads per process (0: the engine chooses, at most 16)"),
    BP5("OpenTimeoutSecs", FLOAT, PARIO_OPT_MIN(0), .dflt = "0", .help = "a reader waits this long for the file to appear"),
    BP5("BurstBufferPath", STRING, .help = "node-local burst buffer directory (BP4; BP5 does not support it)"),
    BP5("BurstBufferDrain", BOOL, .help = "drain the burst buffer to the file system (BP4)"),
    BP5("NodeLocal", BOOL, .dflt = "false", .help = "the file system is node-local"),
    BP5("Profile", BOOL, .dflt = "true", .help = "write profiling.json beside the data"),
    BP5("EnableWriterRerouting", BOOL, .dflt = "false", .help = "DataSizeBased: reroute writers to chains that finished"),
    BP5("ReroutingThresholdFactor", FLOAT, PARIO_OPT_MIN(0), .dflt = "0.3", .help = "rerouting stops when a subfile grew by this fraction"),
    {0}};
#undef BP5

typedef struct {
  pario_file pub;
  adios2_adios *adios;
  adios2_io *io;
  adios2_engine *eng;
  adios2_variable *var;
  pario_layout lay;
  int in_step;
  int sync_at_close; /* -e: flush BP5's files to storage once it has closed them */
} a2file;

static int a2_fail(const char *what, const char *path) {
  return pario_err(PARIO_E_IO, "%s %s failed (ADIOS2 printed the reason on stderr)", what, path);
}

static int adios2_check(const pario_case *cs) {
  if (cs->nhints) return pario_err(PARIO_E_SPEC, "case %s: adios2 takes no MPI-IO hints; use lib (BP5 parameters)", cs->name);
  return 0;
}

static int adios2_open_(const pario_file *a, pario_file **fh) {
  a2file *f = calloc(1, sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  f->pub = *a;
  pario_layout_init(&f->lay, a->cs, a->geom);
  int rc = 0;
  if (!(f->adios = adios2_init_mpi(a->comm)) || !(f->io = adios2_declare_io(f->adios, "pario"))) {
    rc = a2_fail("adios2_init_mpi for", a->path);
    goto out;
  }
  adios2_set_engine(f->io, "BP5");
  for (int k = 0; k < a->cs->nlib; k++)
    if (adios2_set_parameter(f->io, a->cs->lib_key[k], a->cs->lib_val[k])) {
      rc = pario_err(PARIO_E_SPEC, "adios2: parameter %s=%s was refused", a->cs->lib_key[k], a->cs->lib_val[k]);
      goto out;
    }
  if (a->dir == PARIO_WRITE) {
    size_t shape[PARIO_MAX_DIMS], zero[PARIO_MAX_DIMS] = {0}, one[PARIO_MAX_DIMS];
    for (int d = 0; d < f->lay.nd; d++) shape[d] = (size_t)f->lay.gdims[d], one[d] = 1;
    f->var = adios2_define_variable(f->io, "data", adios2_type_uint64_t, (size_t)f->lay.nd, shape, zero, one,
                                    adios2_constant_dims_false);
    if (!f->var) {
      rc = a2_fail("adios2_define_variable data for", a->path);
      goto out;
    }
    if (!(f->eng = adios2_open(f->io, a->path, adios2_mode_write))) {
      rc = a2_fail("adios2_open (write)", a->path);
      goto out;
    }
    adios2_step_status st;
    if (adios2_begin_step(f->eng, adios2_step_mode_append, -1.0f, &st)) {
      rc = a2_fail("adios2_begin_step", a->path);
      goto out;
    }
    f->in_step = 1;
  } else {
    if (!(f->eng = adios2_open(f->io, a->path, adios2_mode_readRandomAccess))) {
      rc = a2_fail("adios2_open (read)", a->path);
      goto out;
    }
    if (!(f->var = adios2_inquire_variable(f->io, "data"))) {
      rc = pario_err(PARIO_E_IO, "%s: no variable \"data\" (not written by pario's adios2 backend?)", a->path);
      goto out;
    }
  }
out:
  if (rc) {
    if (f->eng) adios2_close(f->eng);
    if (f->adios) adios2_finalize(f->adios);
    free(f);
    return rc;
  }
  *fh = &f->pub;
  return 0;
}

static int adios2_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  a2file *f = (a2file *)fh;
  pario_box box[PARIO_MAX_BOXES];
  int nb = pario_layout_boxes(&f->lay, offset, len, box);
  uint64_t *p = buf;
  for (int k = 0; k < nb; k++) {
    size_t st[PARIO_MAX_DIMS], ct[PARIO_MAX_DIMS];
    for (int d = 0; d < f->lay.nd; d++) st[d] = (size_t)box[k].start[d], ct[d] = (size_t)box[k].count[d];
    if (adios2_set_selection(f->var, (size_t)f->lay.nd, st, ct)) return a2_fail("adios2_set_selection", f->pub.path);
    /* sync: BP5 copies the data now (the engine reuses its buffers) or reads it now (verify) */
    adios2_error e = dir == PARIO_WRITE ? adios2_put(f->eng, f->var, p, adios2_mode_sync)
                                        : adios2_get(f->eng, f->var, p, adios2_mode_sync);
    if (e) {
      char w[96];
      snprintf(w, sizeof w, "%s at element %llu of", dir == PARIO_WRITE ? "adios2_put" : "adios2_get",
               (unsigned long long)(offset / PARIO_ELEM));
      return a2_fail(w, f->pub.path);
    }
    p += pario_box_elems(&box[k], f->lay.nd);
  }
  return 0;
}

/* End of the transfer loop: BP5 writes the step (aggregation and all) here. */
static int adios2_flush_(pario_file *fh) {
  a2file *f = (a2file *)fh;
  if (f->pub.dir != PARIO_WRITE || !f->in_step) return 0;
  f->in_step = 0;
  return adios2_end_step(f->eng) ? a2_fail("adios2_end_step", f->pub.path) : 0;
}

/* -e: the step ends here (BP5 writes the data now); the files are flushed once BP5 has closed them. */
static int adios2_sync_(pario_file *fh) {
  a2file *f = (a2file *)fh;
  if (f->pub.dir == PARIO_WRITE) f->sync_at_close = 1;
  return adios2_flush_(fh);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* fsync every file of the BP5 directory: rank r of the communicator takes the r-th, (r+size)-th, ...
 * of the names in sorted order (every rank lists the same directory), so the aggregators' subfiles
 * are flushed side by side. Returns 0 or a PARIO_E_ code naming the file. */
static int sync_files(const char *path, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  DIR *d = opendir(path);
  if (!d) return pario_err(PARIO_E_IO, "-e: cannot list %s to sync it: %s", path, strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  struct dirent *e;
  while (!rc && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (n == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
      if (!grown) rc = pario_err(PARIO_E_NOMEM, "out of memory");
      else names = grown;
    }
    if (!rc && !(names[n++] = strdup(e->d_name))) rc = pario_err(PARIO_E_NOMEM, "out of memory");
  }
  closedir(d);
  if (!rc) qsort(names, n, sizeof *names, by_name);
  char p[4608];
  for (size_t k = (size_t)rank; !rc && k < n; k += (size_t)size) {
    snprintf(p, sizeof p, "%s/%s", path, names[k]);
    int fd = open(p, O_RDONLY);
    if (fd < 0 || (fsync(fd) && errno != EINVAL && errno != EROFS))
      rc = pario_err(PARIO_E_IO, "-e: fsync %s failed: %s", p, strerror(errno));
    if (fd >= 0) close(fd);
  }
  for (size_t k = 0; k < n; k++) free(names[k]);
  free(names);
  return rc;
}

static int adios2_close_(pario_file *fh) {
  a2file *f = (a2file *)fh;
  int rc = adios2_flush_(fh);
  if (adios2_close(f->eng) && !rc) rc = a2_fail("adios2_close", f->pub.path);
  if (f->sync_at_close) { /* every rank has closed: the directory holds all BP5 wrote (rank 0's last) */
    MPI_Barrier(f->pub.comm);
    if (!rc) rc = sync_files(f->pub.path, f->pub.comm);
  }
  if (adios2_finalize(f->adios) && !rc) rc = a2_fail("adios2_finalize for", f->pub.path);
  free(f);
  return rc;
}

static int adios2_lib_info(pario_file *fh, pario_info *out) {
  a2file *f = (a2file *)fh;
  out->n = 0;
  out->source = "adios2_engine_get_type, adios2_get_parameter";
  size_t n = 255;
  char type[256] = "";
  if (!adios2_engine_get_type(type, &n, f->eng)) {
    type[n < 255 ? n : 255] = 0;
    snprintf(out->key[out->n], 256, "engine");
    snprintf(out->val[out->n++], 256, "%s", type);
  }
  for (const pario_option *o = options; o->name && out->n < PARIO_MAX_HINTS; o++) {
    char v[256];
    size_t len = 0;
    /* what the IO object holds: the parameters ADIOS2 accepted */
    if (adios2_get_parameter(NULL, &len, f->io, o->name) || len == 0 || len > 255) continue;
    if (adios2_get_parameter(v, &len, f->io, o->name)) continue;
    v[len] = 0;
    snprintf(out->key[out->n], 256, "%s", o->name);
    snprintf(out->val[out->n++], 256, "%s", v);
  }
  return 0;
}

/* A BP5 output is a directory of files (data.N, md.0, md.idx, mmd.0, profiling.json): remove
 * the files in it, then it. Only this one level: BP5 creates no subdirectories. */
static int adios2_remove(const char *path) {
  struct stat st;
  if (lstat(path, &st)) return -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  struct dirent *e;
  char p[4608];
  int rc = 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    if (unlink(p)) rc = -1;
  }
  closedir(d);
  return rmdir(path) || rc ? -1 : 0;
}

static const char *adios2_version_(void) { return ADIOS2_VERSION_STR; }

const pario_backend pario_backend_adios2 = {
    .abi = PARIO_BACKEND_ABI,
    .name = "adios2",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_VIEW,
    .open = adios2_open_,
    .xfer = adios2_xfer,
    .close = adios2_close_,
    .flush = adios2_flush_,
    .sync = adios2_sync_,
    .lib_info = adios2_lib_info,
    .version = adios2_version_,
    .options = options,
    .check = adios2_check,
    .remove = adios2_remove,
};
