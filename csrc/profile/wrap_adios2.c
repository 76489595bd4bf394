/* ADIOS2 wrappers (issue 29), its C API (the Fortran bindings call it too): engines opened
 * (adios2_open: the engine type, the aggregation parameters set on the IO), steps
 * (adios2_begin_step, adios2_end_step and the time in it, where deferred puts are written),
 * adios2_put/adios2_get per variable (deferred or sync, the bytes of the variable's selection),
 * perform_puts/gets, flush and close (and the time in them).
 *
 * The C++ API (adios2::Engine::Put) calls the library's core directly, not these functions: a
 * C++ program's ADIOS2 calls are not seen, and the log says so (libs.c). ADIOS2's headers are not
 * needed: its handles are opaque pointers and its enums are declared below as adios2_c_types.h
 * has them. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/libs.h"

typedef struct adios2_io adios2_io;
typedef struct adios2_engine adios2_engine;
typedef struct adios2_variable adios2_variable;
typedef int adios2_error_t; /* adios2_error: 0 is adios2_error_none */
#define A2_OK 0
enum { A2_MODE_WRITE = 1, A2_MODE_READ = 2, A2_MODE_APPEND = 3, A2_MODE_DEFERRED = 4, A2_MODE_SYNC = 5,
       A2_MODE_RANDOM = 6 };
#define A2_MAX_DIMS 32

adios2_engine *adios2_open(adios2_io *io, const char *name, int mode);
adios2_error_t adios2_begin_step(adios2_engine *engine, int mode, float timeout_seconds, int *status);
adios2_error_t adios2_end_step(adios2_engine *engine);
adios2_error_t adios2_put(adios2_engine *engine, adios2_variable *variable, const void *data, int launch);
adios2_error_t adios2_put_by_name(adios2_engine *engine, const char *name, const void *data, int launch);
adios2_error_t adios2_get(adios2_engine *engine, adios2_variable *variable, void *data, int launch);
adios2_error_t adios2_get_by_name(adios2_engine *engine, const char *name, void *data, int launch);
adios2_error_t adios2_perform_puts(adios2_engine *engine);
adios2_error_t adios2_perform_data_write(adios2_engine *engine);
adios2_error_t adios2_perform_gets(adios2_engine *engine);
adios2_error_t adios2_flush(adios2_engine *engine);
adios2_error_t adios2_close(adios2_engine *engine);

static struct {
  int ok;
  adios2_error_t (*engine_type)(char *, size_t *, const adios2_io *);
  adios2_error_t (*get_parameter)(char *, size_t *, const adios2_io *, const char *);
  adios2_error_t (*var_name)(char *, size_t *, const adios2_variable *);
  adios2_error_t (*var_type)(int *, const adios2_variable *);
  adios2_error_t (*var_ndims)(size_t *, const adios2_variable *);
  adios2_error_t (*var_count)(size_t *, const adios2_variable *);
  adios2_error_t (*var_shape)(size_t *, const adios2_variable *);
  adios2_variable *(*inquire)(adios2_io *, const char *);
} a2;

#define OPT(field, name) a2.field = (__typeof__(a2.field))pario_lib_opt(PARIO_LIB_ADIOS2, name)
static int a2_ready(void) {
  if (a2.ok) return a2.ok > 0;
  OPT(engine_type, "adios2_engine_type"); OPT(get_parameter, "adios2_get_parameter");
  OPT(var_name, "adios2_variable_name"); OPT(var_type, "adios2_variable_type"); OPT(var_ndims, "adios2_variable_ndims");
  OPT(var_count, "adios2_variable_count"); OPT(var_shape, "adios2_variable_shape");
  OPT(inquire, "adios2_inquire_variable");
  a2.ok = a2.var_name && a2.var_type && a2.var_ndims && a2.var_count ? 1 : -1;
  return a2.ok > 0;
}

/* Inside a wrapped call: the C API's own nested calls are not the program's. */
static __thread int a2_inside;
static struct pario_hmap engines = PARIO_HMAP_INIT; /* engine -> its file record and IO */
static struct pario_hmap vars = PARIO_HMAP_INIT;    /* (engine, variable) -> records */
enum { E_IO };
enum { V_NDIMS, V_TYPE_SIZE, V_STRING };

static int64_t type_size(int t) {
  static const int64_t sizes[] = {0, 4, 8, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 16}; /* string .. long double */
  return t >= 0 && t < (int)(sizeof sizes / sizeof *sizes) ? sizes[t] : 0;
}

static int64_t param(adios2_io *io, const char *key, char *text, size_t cap, size_t *len) {
  char v[64];
  size_t n = 0;
  if (!a2.get_parameter || a2.get_parameter(NULL, &n, io, key) != A2_OK || !n || n >= sizeof v ||
      a2.get_parameter(v, &n, io, key) != A2_OK)
    return 0;
  v[n] = 0;
  if (*len < cap) *len += (size_t)snprintf(text + *len, cap - *len, ";%s=%s", key, v);
  return atoll(v);
}

adios2_engine *adios2_open(adios2_io *io, const char *name, int mode) {
  PARIO_LIB_REAL(PARIO_LIB_ADIOS2, adios2_open);
  if (!real_adios2_open) return NULL;
  if (a2_inside || !PARIO_LIB_ACTIVE() || !a2_ready()) return real_adios2_open(io, name, mode);
  int64_t t0 = pario_ticks();
  a2_inside++;
  adios2_engine *e = real_adios2_open(io, name, mode);
  a2_inside--;
  int64_t t1 = pario_ticks();
  if (!e) return e;
  pario_lib_enter();
  char abs[PATH_MAX], props[512], type[64] = "?";
  pario_abspath(name, abs, sizeof abs);
  struct pario_handle h = {.k1 = (uint64_t)(uintptr_t)e, .file = pario_rec_get(abs, PARIO_MOD_ADIOS2_FILE)};
  h.aux[E_IO] = (int64_t)(uintptr_t)io;
  if (h.file) {
    size_t n = 0;
    if (a2.engine_type && a2.engine_type(NULL, &n, io) == A2_OK && n && n < sizeof type && a2.engine_type(type, &n, io) == A2_OK)
      type[n] = 0;
    static const char *const modes[] = {"?", "write", "read", "append", "?", "?", "read_random_access"};
    size_t len = (size_t)snprintf(props, sizeof props, "engine=%s;mode=%s", type, mode >= 0 && mode <= 6 ? modes[mode] : "?");
    int64_t aggs = param(io, "NumAggregators", props, sizeof props, &len);
    int64_t ratio = param(io, "AggregatorRatio", props, sizeof props, &len);
    int64_t subfiles = param(io, "NumSubFiles", props, sizeof props, &len);
    param(io, "AggregationType", props, sizeof props, &len);
    pario_rec_set_props(h.file, props);
    pario_rec_max(h.file, PARIO_ADIOS2_FILE_NUM_AGGREGATORS, aggs);
    pario_rec_max(h.file, PARIO_ADIOS2_FILE_AGGREGATOR_RATIO, ratio);
    pario_rec_max(h.file, PARIO_ADIOS2_FILE_NUM_SUBFILES, subfiles);
    if (pario_hmap_put(&engines, &h) != 0) h.file = pario_rec_overflow(PARIO_MOD_ADIOS2_FILE);
    pario_rec_open(h.file, PARIO_ADIOS2_FILE_OPENS, t0, t1);
  }
  pario_lib_leave();
  return e;
}

/* Calls on the engine: counted, and their time kept apart (fidx) when it is where the data goes. */
static void engine_call(adios2_engine *e, int idx, int fidx, int closing, int64_t t0, int64_t t1) {
  struct pario_handle h;
  if (!pario_hmap_get(&engines, (uint64_t)(uintptr_t)e, 0, &h) || !h.file) return;
  struct pario_rec *r = h.file;
  pario_lock(&r->lock);
  r->touched = 1;
  r->i[idx]++;
  if (fidx >= 0) r->f[fidx] += (double)(t1 - t0);
  else r->f[PARIO_ADIOS2_FILE_F_META_TIME] += (double)(t1 - t0);
  if (closing) r->f[PARIO_ADIOS2_FILE_F_CLOSE_END_TIMESTAMP] = (double)t1;
  pario_unlock(&r->lock);
  if (closing) {
    pario_hmap_del(&engines, (uint64_t)(uintptr_t)e, 0);
    pario_hmap_del_k1(&vars, (uint64_t)(uintptr_t)e);
  }
}

#define ENGINE_WRAP(fn, idx, fidx, closing)                                      \
  adios2_error_t fn(adios2_engine *e) {                                          \
    PARIO_LIB_REAL(PARIO_LIB_ADIOS2, fn);                                        \
    if (!real_##fn) return 1;                                                    \
    if (a2_inside || !PARIO_LIB_ACTIVE() || a2.ok <= 0) return real_##fn(e);     \
    int64_t t0 = pario_ticks();                                                  \
    a2_inside++;                                                                 \
    adios2_error_t ret = real_##fn(e);                                           \
    a2_inside--;                                                                 \
    int64_t t1 = pario_ticks();                                                  \
    if (ret == A2_OK) { pario_lib_enter(); engine_call(e, idx, fidx, closing, t0, t1); pario_lib_leave(); } \
    return ret;                                                                  \
  }
ENGINE_WRAP(adios2_end_step, PARIO_ADIOS2_FILE_END_STEPS, PARIO_ADIOS2_FILE_F_END_STEP_TIME, 0)
ENGINE_WRAP(adios2_perform_puts, PARIO_ADIOS2_FILE_PERFORM_PUTS, PARIO_ADIOS2_FILE_F_PERFORM_TIME, 0)
ENGINE_WRAP(adios2_perform_data_write, PARIO_ADIOS2_FILE_PERFORM_PUTS, PARIO_ADIOS2_FILE_F_PERFORM_TIME, 0)
ENGINE_WRAP(adios2_perform_gets, PARIO_ADIOS2_FILE_PERFORM_GETS, PARIO_ADIOS2_FILE_F_PERFORM_TIME, 0)
ENGINE_WRAP(adios2_flush, PARIO_ADIOS2_FILE_FLUSHES, PARIO_ADIOS2_FILE_F_PERFORM_TIME, 0)
ENGINE_WRAP(adios2_close, PARIO_ADIOS2_FILE_CLOSES, PARIO_ADIOS2_FILE_F_CLOSE_TIME, 1)

adios2_error_t adios2_begin_step(adios2_engine *e, int mode, float timeout, int *status) {
  PARIO_LIB_REAL(PARIO_LIB_ADIOS2, adios2_begin_step);
  if (!real_adios2_begin_step) return 1;
  if (a2_inside || !PARIO_LIB_ACTIVE() || a2.ok <= 0) return real_adios2_begin_step(e, mode, timeout, status);
  int64_t t0 = pario_ticks();
  a2_inside++;
  adios2_error_t ret = real_adios2_begin_step(e, mode, timeout, status);
  a2_inside--;
  int64_t t1 = pario_ticks();
  if (ret == A2_OK) { pario_lib_enter(); engine_call(e, PARIO_ADIOS2_FILE_BEGIN_STEPS, -1, 0, t0, t1); pario_lib_leave(); }
  return ret;
}

/* A variable written or read through an engine: its record, and the bytes of its selection. */
static int var_of(adios2_engine *e, adios2_variable *v, struct pario_handle *h) {
  if (pario_hmap_get(&vars, (uint64_t)(uintptr_t)e, (uint64_t)(uintptr_t)v, h)) return 1;
  struct pario_handle eh;
  if (!pario_hmap_get(&engines, (uint64_t)(uintptr_t)e, 0, &eh) || !eh.file) return 0;
  char name[512];
  size_t n = 0;
  if (a2.var_name(NULL, &n, v) != A2_OK || n >= sizeof name || a2.var_name(name, &n, v) != A2_OK) return 0;
  name[n] = 0;
  *h = (struct pario_handle){.k1 = (uint64_t)(uintptr_t)e, .k2 = (uint64_t)(uintptr_t)v, .file = eh.file};
  h->var = pario_lib_rec(eh.file->path, name, PARIO_MOD_ADIOS2_VAR);
  if (!h->var) return 0;
  int type = -1;
  size_t nd = 0, shape[A2_MAX_DIMS];
  a2.var_type(&type, v);
  if (a2.var_ndims(&nd, v) != A2_OK || nd > A2_MAX_DIMS) nd = 0;
  h->aux[V_NDIMS] = (int64_t)nd;
  h->aux[V_TYPE_SIZE] = type_size(type);
  h->aux[V_STRING] = type == 0;
  char props[512];
  size_t len = (size_t)snprintf(props, sizeof props, "shape=");
  if (nd && a2.var_shape && a2.var_shape(shape, v) == A2_OK)
    for (size_t k = 0; k < nd && len < sizeof props; k++)
      len += (size_t)snprintf(props + len, sizeof props - len, "%s%zu", k ? "x" : "", shape[k]);
  else len = (size_t)snprintf(props, sizeof props, "shape=%s", nd ? "local" : "scalar");
  pario_rec_set_props(h->var, props);
  pario_rec_max(h->var, PARIO_ADIOS2_VAR_NDIMS, (int64_t)nd);
  pario_rec_max(h->var, PARIO_ADIOS2_VAR_TYPE_SIZE, h->aux[V_TYPE_SIZE]);
  if (pario_hmap_put(&vars, h) != 0) h->var = pario_rec_overflow(PARIO_MOD_ADIOS2_VAR);
  return 1;
}

static void data_call(adios2_engine *e, adios2_variable *v, const char *name, const void *data, int kind, int launch,
                      int64_t t0, int64_t t1) {
  pario_lib_enter();
  struct pario_handle h, eh;
  if (!v && name && a2.inquire && pario_hmap_get(&engines, (uint64_t)(uintptr_t)e, 0, &eh))
    v = a2.inquire((adios2_io *)(uintptr_t)eh.aux[E_IO], name);
  if (v && var_of(e, v, &h)) {
    size_t count[A2_MAX_DIMS];
    int64_t elems = 1;
    if (h.aux[V_NDIMS] && a2.var_count(count, v) == A2_OK)
      for (int k = 0; k < h.aux[V_NDIMS]; k++) elems *= (int64_t)count[k];
    int64_t bytes = h.aux[V_STRING] ? (data && kind == PARIO_KIND_WRITE ? (int64_t)strlen(data) : 0) : elems * h.aux[V_TYPE_SIZE];
    pario_lib_io(h.file, h.var, kind, bytes, t0, t1);
    int sync = launch == A2_MODE_SYNC;
    pario_rec_add(h.var, kind ? (sync ? PARIO_ADIOS2_VAR_PUTS_SYNC : PARIO_ADIOS2_VAR_PUTS_DEFERRED)
                              : (sync ? PARIO_ADIOS2_VAR_GETS_SYNC : PARIO_ADIOS2_VAR_GETS_DEFERRED), 1);
  }
  pario_lib_leave();
}

#define DATA_WRAP(fn, kind, what, q)                                                             \
  adios2_error_t fn(adios2_engine *e, what, q void *data, int launch) {                          \
    PARIO_LIB_REAL(PARIO_LIB_ADIOS2, fn);                                                         \
    if (!real_##fn) return 1;                                                                     \
    if (a2_inside || !PARIO_LIB_ACTIVE() || !a2_ready()) return real_##fn(e, x, data, launch);    \
    int64_t t0 = pario_ticks();                                                                   \
    a2_inside++;                                                                                  \
    adios2_error_t ret = real_##fn(e, x, data, launch);                                           \
    a2_inside--;                                                                                  \
    int64_t t1 = pario_ticks();                                                                   \
    if (ret == A2_OK) data_call(e, VAR_OF(x), NAME_OF(x), data, kind, launch, t0, t1);           \
    return ret;                                                                                   \
  }
#define VAR_OF(x) (x)
#define NAME_OF(x) NULL
DATA_WRAP(adios2_put, PARIO_KIND_WRITE, adios2_variable *x, const)
DATA_WRAP(adios2_get, PARIO_KIND_READ, adios2_variable *x, )
#undef VAR_OF
#undef NAME_OF
#define VAR_OF(x) NULL
#define NAME_OF(x) (x)
DATA_WRAP(adios2_put_by_name, PARIO_KIND_WRITE, const char *x, const)
DATA_WRAP(adios2_get_by_name, PARIO_KIND_READ, const char *x, )
