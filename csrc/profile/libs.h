/* What the I/O library wrappers share (issue 29): wrap_hdf5.c, wrap_pnetcdf.c, wrap_netcdf.c and
 * wrap_adios2.c interpose the libraries' public C functions as wrap_posix.c does libc's.
 *
 * - The real functions are found on first use (pario_lib_sym), so a program that never calls a
 *   library never looks it up: the wrappers are only symbols it does not reference.
 * - A library's handles (hid_t, ncid, varid, adios2_engine*) are mapped to records in a bounded
 *   table per library (pario_hmap); a handle that does not fit is counted in the module's
 *   "<other files>" record, so totals stay exact.
 * - The wrappers do not hold the guard across the real call: the MPI-IO and POSIX calls a library
 *   makes underneath are recorded too, in their own records (the layers under the library). They
 *   hold it while they ask the library about what they record (pario_lib_enter/leave), so that
 *   those questions are not recorded as the program's calls.
 * - pario_lib_state, at log time, says for each library whether its calls were seen, whether it
 *   is loaded but no call reached the profiler, or whether it is linked into the executable
 *   (statically: its calls cannot be seen). */
#ifndef PARIO_PROFILE_LIBS_H
#define PARIO_PROFILE_LIBS_H

#include <stdint.h>

#include "profile/profile.h"

#pragma GCC visibility push(hidden)

enum pario_lib { PARIO_LIB_HDF5, PARIO_LIB_PNETCDF, PARIO_LIB_NETCDF, PARIO_LIB_ADIOS2, PARIO_NUM_LIBS };

/* The real `name` of library `lib` beneath the wrappers (the next definition after this library,
 * or, when the library was loaded outside the global scope (a Python extension's dependency),
 * its definition in a loaded object). NULL if none: said once on stderr when `required`. The
 * first lookup of a library marks it called. */
void *pario_lib_sym(int lib, const char *name, int required);
#define PARIO_LIB_REAL(lib, fn) \
  static __typeof__(fn) *real_##fn; \
  if (!real_##fn) real_##fn = (__typeof__(fn) *)pario_lib_sym(lib, #fn, 1)
/* An optional function of the library (one it may lack, such as a parallel build's): NULL if absent. */
void *pario_lib_opt(int lib, const char *name);
/* The library's version, said once by the wrappers (copied). */
void pario_lib_version(int lib, const char *version);
/* The same from the library's own version text: its first word ("4.9.0 of Aug  7 2022 ..."). */
void pario_lib_version_word(int lib, const char *text);

/* A wrapper records only when the profiler records and the thread is not inside the profiler
 * (nor inside one of its questions to a library). */
#define PARIO_LIB_ACTIVE() (atomic_load_explicit(&pario_active, memory_order_relaxed) && !pario_guard)
static inline void pario_lib_enter(void) { pario_guard = 1; }
static inline void pario_lib_leave(void) { pario_guard = 0; }

/* The head of a wrapper of `fn` (an int-returning function of library `lib`) that times the real
 * call: -1 when the real function is missing; the real call alone when `pass` (not recording);
 * else `ret` from the real call between the clock reads `t0` and `t1`, with `enter` and `leave`
 * around it (a counter of nesting, where the library calls its own wrapped functions). */
#define PARIO_LIB_TIMED(lib, fn, args, pass, enter, leave) \
  PARIO_LIB_REAL(lib, fn);                                  \
  if (!real_##fn) return -1;                                \
  if (pass) return real_##fn args;                          \
  int64_t t0 = pario_ticks();                               \
  enter;                                                    \
  int ret = real_##fn args;                                 \
  leave;                                                    \
  int64_t t1 = pario_ticks()

/* ---- handles ---- */
struct pario_handle {
  uint64_t k1, k2;           /* the library's handle (and a second key: a variable of a file) */
  int used;                  /* 0 free, 1 used, 2 deleted */
  struct pario_rec *file, *var;
  int64_t aux[8];            /* what the wrapper keeps per handle */
};
#define PARIO_HMAP_CAP 2048
struct pario_hmap {
  pthread_mutex_t lock;
  struct pario_handle *slots; /* PARIO_HMAP_CAP, from the arena on first use */
  int failed;                 /* the arena had no room */
};
#define PARIO_HMAP_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0}
/* The entry of (k1, k2), NULL if absent; a copy is returned in *out (entries may move on reuse). */
int pario_hmap_get(struct pario_hmap *m, uint64_t k1, uint64_t k2, struct pario_handle *out);
/* Insert or replace; 0, or -1 when the table is full (the caller counts in the overflow record). */
int pario_hmap_put(struct pario_hmap *m, const struct pario_handle *h);
void pario_hmap_del(struct pario_hmap *m, uint64_t k1, uint64_t k2);
/* Delete every entry whose k1 matches (the variables of a closed file). */
void pario_hmap_del_k1(struct pario_hmap *m, uint64_t k1);

/* ---- records ---- */
/* The record standing for everything that did not fit (module's "<other files>"). */
struct pario_rec *pario_rec_overflow(int module);
/* Add n to integer counter idx / keep the larger of it and v / set a record's props (once). */
void pario_rec_add(struct pario_rec *r, int idx, int64_t n);
void pario_rec_max(struct pario_rec *r, int idx, int64_t v);
void pario_rec_fadd(struct pario_rec *r, int fidx, int64_t t0, int64_t t1);
void pario_rec_set_props(struct pario_rec *r, const char *props);
/* One data call of a library: counted in the variable's record and in its file's (either may be NULL). */
void pario_lib_io(struct pario_rec *file, struct pario_rec *var, int kind, int64_t bytes, int64_t t0, int64_t t1);
/* A metadata call: counter idx of each record (-1: time only). */
void pario_lib_meta(struct pario_rec *file, int fidx, struct pario_rec *var, int vidx, int64_t t0, int64_t t1);
/* "file:name": a dataset's or variable's record of the file at `abs`. */
struct pario_rec *pario_lib_rec(const char *abs, const char *name, int module);

/* ---- the log ---- */
/* Append the process's "libraries" object ({"hdf5": {"state": ...}, ...}) to buf (JSON, without
 * the key); detection of libraries not called needs the dynamic linker: skipped when from_signal. */
int pario_lib_state(char *buf, int cap, int from_signal);

#pragma GCC visibility pop
#endif
