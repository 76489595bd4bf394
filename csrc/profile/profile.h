/* Internal contract of the profiler, one module of libpario-preload.so (intercept.h).
 *
 * Wrappers (wrap_*.c) call the next layer (PARIO_NEXT: the real symbol, or a module such as the
 * buffer that took the call over), time the call and hand what happened to the records
 * (records.c) through the pario_rec_* functions below; they never touch counters. */
#ifndef PARIO_PROFILE_H
#define PARIO_PROFILE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "intercept/intercept.h"
#include "pario/counters.h"

/* glibc >= 2.32: non-zero while the process has never had a second thread. Weak, so the library
 * still loads where it is missing (then every update takes its record lock). Declared before the
 * visibility pragma below: it is libc's symbol, not ours. */
extern char __libc_single_threaded __attribute__((weak));

/* Everything declared from here on is internal to the library: hidden symbols are called and
 * read directly, not through the PLT/GOT, which matters on the per-call path. Only the wrappers
 * (declared by the system headers, defined in wrap_*.c and intercept/) are exported. */
#pragma GCC visibility push(hidden)

/* ---- the profiler's state and settings (settings.c) ---- */
extern atomic_int pario_active;  /* 1 while recording; checked before any lock */

/* A wrapper records only when active and not already inside the library (the profiler's own
 * I/O, or libc calling back into a wrapped symbol). */
#define PARIO_ENTER() (atomic_load_explicit(&pario_active, memory_order_relaxed) && !pario_guard && (pario_guard = 1))
#define PARIO_LEAVE() (pario_guard = 0)

struct pario_settings {
  char dir[1024];        /* where per-process logs go */
  size_t mem_bound;      /* bytes for records + names + trace */
  int trace;             /* keep a per-operation trace */
  int mem_align;         /* memory alignment tested */
  int verbose;
  char exclude[2048];    /* ':'-separated path prefixes not recorded */
  char runtime[2048];    /* ':'-separated patterns ('*' = any characters) of the MPI runtime's own files */
  int runtime_files;     /* record those per file too (else one "<MPI runtime files>" record per module) */
};
/* The record that stands for every file of the MPI runtime (shared memory segments, session
 * directories, PMIx stores): one per module and process, reduced across ranks like a shared file,
 * so that they cost the log the same at 4 ranks and at 10,000. */
#define PARIO_RUNTIME_RECORD "<MPI runtime files>"
extern struct pario_settings pario_cfg;
/* Read the PARIO_PROFILE_* environment (csrc/profile/README.md); 0, or -1 when profiling is off. */
int pario_settings_read(void);

/* ---- records (records.c) ---- */
#define PARIO_TOPN 16 /* distinct sizes/strides tracked exactly per record */
struct pario_top { int64_t val, cnt; };

/* Per-record lock: a test-and-set spinlock, because the critical sections are a few dozen
 * instructions and an uncontended pthread mutex costs about twice as much on the hot path.
 * A process that never had a second thread skips the locked exchange (glibc's
 * __libc_single_threaded): only this thread could create another, and it is busy here. Unlock
 * is a plain store either way. A signal handler's snapshot reads without the lock in both cases. */
typedef atomic_int pario_lock_t;
static inline void pario_lock(pario_lock_t *l) {
  if (&__libc_single_threaded && PARIO_LIKELY(__libc_single_threaded)) return;
  for (int spins = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); spins++) {
    if (spins > 100) { sched_yield(); spins = 0; }
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}
static inline void pario_unlock(pario_lock_t *l) { atomic_store_explicit(l, 0, memory_order_release); }

struct pario_rec {
  /* Fields every data operation touches come first, next to the integer counters, so that one
   * update touches few cache lines (records start on a cache line, see pario_arena_alloc). */
  pario_lock_t lock;
  int module;
  int last_kind;               /* 0 read, 1 write, -1 none */
  int touched;                 /* any activity since start or fork */
  int size_hint, stride_hint;  /* slot of sizes[]/strides[] that matched last (repeats are common) */
  int64_t last_end[2];         /* end of the previous read [0] / write [1], -1 if none */
  int64_t last_start[2];
  int64_t i[PARIO_MAX_I];
  double f[PARIO_MAX_F];       /* times in ticks while running, seconds in snapshots */
  struct pario_top sizes[PARIO_TOPN], strides[PARIO_TOPN];
  int64_t sizes_other, strides_other; /* ops whose value did not fit the exact table */
  uint64_t id;                 /* hash of the absolute path */
  int rank;                    /* -1 once reduced across ranks */
  int moved;                   /* handed to another rank for reduction */
  char *path;
  char *hints;                 /* MPI-IO: effective hints, "k=v;k=v" */
  char *props;                 /* I/O libraries: what is not a number, "k=v;k=v" (libs.h) */
  /* A file of a node-local file system (tmpfs, /dev/shm), reduced across one node's ranks only:
   * the same path on another node is another file. Set by the MPI reduction (reduce_mpi.c). */
  uint64_t node_key;           /* 0: a file all nodes share (or not known to be node-local) */
  char node[64];               /* the node's name, on records reduced per node */
  struct pario_rec *next;      /* hash chain */
};

/* Kinds of data operation the records understand. */
enum pario_kind { PARIO_KIND_READ = 0, PARIO_KIND_WRITE = 1 };
/* Metadata operations: counter index per module is resolved by the caller. */

struct pario_fd {
  struct pario_rec *posix, *stdio;
  int64_t pos, spos;           /* our view of the fd offset and the stream offset */
  int append;
};
#define PARIO_UNTRACKED ((struct pario_rec *)1)

int pario_records_init(void);
void pario_records_reset_after_fork(void);
/* Record for (path, module); NULL if excluded. path must be absolute. */
struct pario_rec *pario_rec_get(const char *path, int module);
/* The fd table: directly indexed by descriptor, sized at start from RLIMIT_NOFILE (<= 65536). */
extern struct pario_fd *pario_fdtab;
extern int pario_fdcap;
static inline struct pario_fd *pario_fd(int fd) {
  return PARIO_LIKELY((unsigned)fd < (unsigned)pario_fdcap) ? &pario_fdtab[fd] : NULL;
}
/* Record for an fd that was opened by fd-based means: resolved lazily via /proc/self/fd. */
struct pario_rec *pario_fd_posix(int fd);
/* A successful open of the absolute name (pario_abspath of the call's path), or of NULL: a file
 * without a name (O_TMPFILE), named by /proc/self/fd. */
void pario_fd_opened(int fd, const char *name, int flags);
void pario_fd_closed(int fd);
/* Stdio record for fd: path given at fopen/fdopen (NULL: resolve a stream we did not see open). */
struct pario_rec *pario_fd_stdio(int fd, const char *path, int append);
void pario_fd_dup(int oldfd, int newfd);
/* The file behind a descriptor not seen opened, as /proc/self/fd names it, a live file's
 * " (deleted)" dropped: 0, or -1 when fd is no file (pipe, socket). */
int pario_fd_name(int fd, char *out, size_t outsz);
/* Absolute, lexically normalized path into out (size PATH_MAX). */
void pario_abspath(const char *path, char *out, size_t outsz);
void pario_cwd_changed(void);
void pario_rec_layout(struct pario_rec *r, int fd); /* block/stripe size of the file behind fd */

/* Data access: off < 0 means "unknown offset" (no pattern counters). */
void pario_rec_io(struct pario_rec *r, int kind, int64_t off, int64_t size, const void *buf,
                  int64_t t0, int64_t t1, int vector);
/* Add n to integer counter idx and time to the metadata time of r. */
void pario_rec_meta(struct pario_rec *r, int idx, int64_t t0, int64_t t1);
/* Opening / closing timestamps (start of first open, end of last close). */
void pario_rec_open(struct pario_rec *r, int idx, int64_t t0, int64_t t1);
void pario_rec_close(struct pario_rec *r, int idx, int64_t t0, int64_t t1);

/* Trace (bounded, lock-free append). */
void pario_trace(struct pario_rec *r, int op, int64_t off, int64_t size, int64_t t0, int64_t t1);
enum pario_trace_op { PARIO_T_READ, PARIO_T_WRITE, PARIO_T_OPEN, PARIO_T_CLOSE, PARIO_T_SEEK,
                      PARIO_T_SYNC, PARIO_T_STAT, PARIO_T_OTHER };

/* Iterate all records (callers hold no record locks). */
typedef void (*pario_rec_fn)(struct pario_rec *r, void *arg);
void pario_records_each(pario_rec_fn fn, void *arg);
/* Copy of r with times converted to seconds/epoch (taking r's lock unless nolock). */
void pario_rec_snapshot(struct pario_rec *r, struct pario_rec *out, int nolock);
/* Records added by the MPI reduction (owned by this rank, rank -1). */
void pario_records_add_reduced(struct pario_rec *r);
void pario_records_each_reduced(pario_rec_fn fn, void *arg);
int pario_num_i(int module);
int pario_num_f(int module);
const char *pario_counter_name(int module, int isf, int idx);
const char *pario_counter_kind(int module, int isf, int idx);
int pario_counter_op(int module, int isf, int idx);
const char *pario_module_name(int module);
void *pario_arena_alloc(size_t n);
/* A copy of s, from the arena, taken under the records' lock (NULL when the bound is reached). */
char *pario_arena_strdup(const char *s);

struct pario_stats {
  atomic_llong dropped_records;  /* files that did not fit: folded into "<other files>" */
  atomic_llong trace_kept, trace_dropped;
  int64_t trace_cap;
};
extern struct pario_stats pario_stats;
struct pario_tevent { uint64_t id; int64_t off, size, t0, t1; uint32_t tid; uint8_t module, op; };
struct pario_tevent *pario_trace_events(int64_t *n);

/* ---- the log (logwrite.c) ---- */
/* Write this process's log atomically; reason: "exit", "finalize", "signal", "exec". */
int pario_profile_write(const char *reason, int partial, int from_signal);

#pragma GCC visibility pop
#endif
