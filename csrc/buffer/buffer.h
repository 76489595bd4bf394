/* Internal contract of the write-coalescing buffer, the second module of libpario-preload.so
 * (intercept.h; README.md here says what it promises).
 *
 * It takes the write-side calls over in the next-call table (PARIO_TAKE), so that the profiler's
 * wrappers still see the program's calls while this module decides what reaches the file
 * system, through PARIO_REAL. Files are known by inode (struct bfile): every descriptor of a
 * buffered file points at it (struct bfd), and a file holds at most one run of pending bytes:
 *   RUN_STREAM: appended at the file position of one open file description (write, writev),
 *               written with write() there, so O_APPEND and positions shared with other
 *               processes behave as the program's own calls would;
 *   RUN_POS:    at a known offset (pwrite, pwritev), written with pwrite().
 * Anything that is not a continuation of the run (another description, a seek, a read of the
 * file, a lock, a sync...) flushes it first, so the file system sees the calls in program order. */
#ifndef PARIO_BUFFER_H
#define PARIO_BUFFER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "intercept/intercept.h"

extern char __libc_single_threaded __attribute__((weak));

#pragma GCC visibility push(hidden)

/* ---- settings (settings.c): the PARIO_BUFFER_* environment ---- */
#define BUF_MAX_PATTERNS 32
struct pario_buf_pattern {
  char glob[512];
  size_t size; /* 0: matching files are not buffered */
};
struct pario_buf_settings {
  size_t size;  /* default bytes per file (PARIO_BUFFER_SIZE) */
  size_t total; /* bound on all buffers of the process (PARIO_BUFFER_TOTAL) */
  int npat;     /* PARIO_BUFFER_FILES: first match decides; none given: every regular file */
  struct pario_buf_pattern pat[BUF_MAX_PATTERNS];
  char stats_dir[1024]; /* PARIO_BUFFER_STATS: write a stats file there at every stop */
  int stdio;            /* enlarge the buffers of streams opened for writing (PARIO_BUFFER_STDIO, default on) */
  size_t piece;         /* a run is written out each time this much has accumulated (PARIO_BUFFER_PIECE; 0: when full) */
};
extern struct pario_buf_settings pario_buf_cfg;
int pario_buf_settings_read(void);                  /* 0, or -1: the buffer stays off */
size_t pario_buf_size_for(const char *abspath);     /* 0: not buffered */
void pario_buf_abspath(int dirfd, const char *path, char *out, size_t cap);

/* ---- locks: a spinlock, skipped while the process has one thread (like the profiler's) ---- */
typedef atomic_int pario_buf_lock_t;
static inline void pario_buf_lock(pario_buf_lock_t *l) {
  if (&__libc_single_threaded && PARIO_LIKELY(__libc_single_threaded)) return;
  for (int spins = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); spins++) {
    if (spins > 100) spins = 0, __builtin_ia32_pause();
  }
}
static inline void pario_buf_unlock(pario_buf_lock_t *l) { atomic_store_explicit(l, 0, memory_order_release); }

/* ---- statistics per path (stats.c), for --stats and the profile's file-system view ---- */
enum pario_buf_why { /* why a run was flushed */
  WHY_FULL, WHY_SWITCH, WHY_READ, WHY_SEEK, WHY_STAT, WHY_SYNC, WHY_CLOSE, WHY_TRUNCATE, WHY_MAP,
  WHY_LOCK, WHY_SPAWN, WHY_FORK, WHY_STOP, WHY_STDIO, WHY_MEMORY, WHY_N };
extern const char *const pario_buf_why_name[WHY_N];
struct pario_buf_stat {
  const char *path;
  int stdio;           /* a stream whose own buffer was enlarged */
  int64_t size;        /* buffer size given to it */
  int64_t opens, calls, bytes, direct; /* the program's write calls; direct: passed on unbuffered */
  int64_t flushes, sys_writes, sys_bytes, errors;
  int64_t prog_ticks, sys_ticks; /* time in the program's write calls, in real writes */
  int64_t why[WHY_N];
};
struct pario_buf_stat *pario_buf_stat_for(const char *abspath, int stdio, size_t size); /* NULL: stats off or full */
int pario_buf_stats_write(const char *reason, int partial);                     /* the per-process stats file */
void pario_buf_stats_reset(void);                                               /* fork child: counts start at zero */
extern int pario_buf_timing; /* stats on: the program's calls are timed */

/* ---- files and descriptors (files.c) ---- */
enum { RUN_NONE, RUN_STREAM, RUN_POS };
struct bfile {
  pario_buf_lock_t lock;
  int used, refs; /* refs: descriptors pointing here */
  dev_t dev;
  ino_t ino;
  char *buf;
  size_t cap, len; /* cap: the file's size setting (its buffer is mapped at the first write) */
  int mode, wfd;   /* the run, and the descriptor it is written through */
  unsigned wofd;   /* RUN_STREAM: the open file description it continues */
  int64_t off;     /* RUN_POS: file offset of buf[0] */
  int err;         /* an error of a deferred write, returned by the next write, sync or close */
  int direct;      /* written through: mapped shared, or no buffer */
  struct pario_buf_stat *st;
};
struct bfd {
  struct bfile *f; /* NULL: not a buffered file (as of generation gen) */
  unsigned ofd;    /* open file description: shared by dup()s */
  unsigned gen;    /* pario_buf_gen when the descriptor was last looked at */
  unsigned char append, writable;
  unsigned short stream; /* 1 + index of the stream whose buffer pario enlarged (take_stdio.c), or 0 */
};
extern struct bfd *pario_buf_fdtab;
extern int pario_buf_fdcap;
extern atomic_int pario_buf_stopped; /* after a stop (exit, exec, signal): everything is written through */
extern atomic_int pario_buf_npending; /* files holding buffered bytes */
extern atomic_uint pario_buf_gen;     /* bumped when a file becomes buffered: unknown descriptors are looked at again */
static inline struct bfd *pario_buf_fd(int fd) {
  return PARIO_LIKELY((unsigned)fd < (unsigned)pario_buf_fdcap) ? &pario_buf_fdtab[fd] : NULL;
}
/* The whole cost on a descriptor that is not a buffered file: one entry and one counter loaded
 * (a descriptor pario did not see opened is looked at only while some file holds data). */
static inline int pario_buf_untracked(int fd) {
  const struct bfd *e = pario_buf_fd(fd);
  return !e || (!e->f && (atomic_load_explicit(&pario_buf_npending, memory_order_relaxed) == 0 ||
                          e->gen == atomic_load_explicit(&pario_buf_gen, memory_order_relaxed)));
}
int pario_buf_files_init(void);
/* The file behind fd if it is buffered, locked (and the caller inside a critical section), or
 * NULL. An fd pario did not see opened is looked at (fstat) once while some file holds data. */
struct bfile *pario_buf_get(int fd);
void pario_buf_put(struct bfile *f); /* unlock, leave the critical section */
void pario_buf_opened(int fd, int dirfd, const char *path, int flags); /* after a successful open */
void pario_buf_closing(int fd);                /* before close: flush, forget (the error stays on the file) */
void pario_buf_adopt_stdout(void);             /* at start: a standard output that is a regular file */
int pario_buf_closed_error(int fd);            /* deferred error to return from close, 0 if none */
void pario_buf_dup(int oldfd, int newfd);      /* after dup/dup2/dup3/F_DUPFD */
void pario_buf_flush_path(const char *path, int dirfd, int why); /* before open(O_TRUNC), truncate, stat */
void pario_buf_refresh_flags(int fd);          /* after F_SETFL */
char *pario_buf_mem_get(size_t size);          /* a buffer, within the process's bound, or NULL */
void pario_buf_mem_put(char *p, size_t size);
void pario_buf_lock_all(void);                 /* fork: hold every file */
void pario_buf_unlock_all(int child);

/* ---- the run (flush.c) ---- */
int pario_buf_flush(struct bfile *f, int why); /* under the file's lock: 0, or -1 (error kept in f->err) */
void pario_buf_flush_all(int why, int from_signal);
ssize_t pario_buf_append(struct bfile *f, int fd, const struct bfd *e, int mode, int64_t off, const void *p, size_t n);
ssize_t pario_buf_append_iov(struct bfile *f, int fd, const struct bfd *e, int mode, int64_t off, const struct iovec *iov,
                       int cnt);
int pario_buf_take_error(struct bfile *f); /* the deferred error, cleared; 0 if none */

/* ---- streams (take_stdio.c) ---- */
void pario_buf_streams_flush(int why); /* write the enlarged stream buffers (fork, spawn, stop) */

/* ---- the takeovers (take_posix.c, take_stdio.c) ---- */
void pario_buf_take_posix(void);
void pario_buf_take_stdio(void);

#pragma GCC visibility pop
#endif
