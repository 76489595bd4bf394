/* The POSIX calls the buffer takes over (PARIO_TAKE in pario_buf_take_posix): writes go into the run
 * of their file (flush.c); every other call that could see or change what a run holds flushes
 * it first. A descriptor that is not a buffered file costs one table load (pario_buf_get). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "buffer/buffer.h"

int pario_buf_timing;

/* Flush the file behind fd before a call that would see or move what its run holds. */
static __attribute__((noinline)) void flush_fd_slow(int fd, int why) {
  struct bfile *f = pario_buf_get(fd);
  if (!f) return;
  if (f->len) {
    int err = errno;
    pario_buf_flush(f, why);
    errno = err;
  }
  pario_buf_put(f);
}
static inline void flush_fd(int fd, int why) {
  if (PARIO_UNLIKELY(!pario_buf_untracked(fd))) flush_fd_slow(fd, why);
}

/* Flush, then return a deferred error instead of making the call (sync, truncate). */
static inline int flush_fd_err(int fd, int why) {
  struct bfile *f = pario_buf_get(fd);
  if (PARIO_LIKELY(!f)) return 0;
  pario_buf_flush(f, why);
  int err = pario_buf_take_error(f);
  pario_buf_put(f);
  return err;
}

/* ---- open and close ---- */
static int needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define OPEN_TAKE(name, fn, params, args, dirv, pathv, flagsv)                      \
  static int name params {                                                          \
    mode_t mode = 0;                                                                \
    if (needs_mode(flagsv)) {                                                       \
      va_list ap;                                                                   \
      va_start(ap, flagsv);                                                         \
      mode = (mode_t)va_arg(ap, int);                                               \
      va_end(ap);                                                                   \
    }                                                                               \
    if ((flagsv) & O_TRUNC) pario_buf_flush_path(pathv, dirv, WHY_TRUNCATE);              \
    int fd = PARIO_REAL(fn) args;                                                   \
    if (fd >= 0) pario_buf_opened(fd, dirv, pathv, flagsv);                               \
    return fd;                                                                      \
  }
OPEN_TAKE(b_open, open, (const char *p, int fl, ...), (p, fl, mode), AT_FDCWD, p, fl)
OPEN_TAKE(b_open64, open64, (const char *p, int fl, ...), (p, fl, mode), AT_FDCWD, p, fl)
OPEN_TAKE(b_openat, openat, (int d, const char *p, int fl, ...), (d, p, fl, mode), d, p, fl)
OPEN_TAKE(b_openat64, openat64, (int d, const char *p, int fl, ...), (d, p, fl, mode), d, p, fl)

#define OPEN2_TAKE(name, fn, params, args, dirv, pathv, flagsv)                     \
  static int name params {                                                          \
    if ((flagsv) & O_TRUNC) pario_buf_flush_path(pathv, dirv, WHY_TRUNCATE);              \
    int fd = PARIO_REAL(fn) args;                                                   \
    if (fd >= 0) pario_buf_opened(fd, dirv, pathv, flagsv);                               \
    return fd;                                                                      \
  }
OPEN2_TAKE(b_open_2, __open_2, (const char *p, int fl), (p, fl), AT_FDCWD, p, fl)
OPEN2_TAKE(b_open64_2, __open64_2, (const char *p, int fl), (p, fl), AT_FDCWD, p, fl)
OPEN2_TAKE(b_openat_2, __openat_2, (int d, const char *p, int fl), (d, p, fl), d, p, fl)
OPEN2_TAKE(b_creat, creat, (const char *p, mode_t m), (p, m), AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC)
OPEN2_TAKE(b_creat64, creat64, (const char *p, mode_t m), (p, m), AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC)

/* close flushes the file and returns the error of a deferred write, like NFS's close. */
static int b_close(int fd) {
  pario_buf_closing(fd);
  int r = PARIO_REAL(close)(fd);
  int e = errno, err = pario_buf_closed_error(fd);
  if (r == 0 && err) {
    errno = err;
    return -1;
  }
  errno = e;
  return r;
}

static void close_span(unsigned first, unsigned last) {
  if (first >= (unsigned)pario_buf_fdcap) return;
  if (last >= (unsigned)pario_buf_fdcap) last = (unsigned)pario_buf_fdcap - 1;
  for (unsigned fd = first; fd <= last; fd++)
    if (pario_buf_fdtab[fd].f) pario_buf_closing((int)fd);
}
static void closed_span(unsigned first, unsigned last) {
  if (first >= (unsigned)pario_buf_fdcap) return;
  if (last >= (unsigned)pario_buf_fdcap) last = (unsigned)pario_buf_fdcap - 1;
  for (unsigned fd = first; fd <= last; fd++)
    if (pario_buf_fdtab[fd].f) pario_buf_closed_error((int)fd);
}
static int b_close_range(unsigned first, unsigned last, int flags) {
  if (flags & CLOSE_RANGE_CLOEXEC) return PARIO_REAL(close_range)(first, last, flags);
  close_span(first, last);
  int r = PARIO_REAL(close_range)(first, last, flags);
  if (r == 0) closed_span(first, last);
  return r;
}
static void b_closefrom(int low) {
  if (low < 0) low = 0;
  close_span((unsigned)low, ~0u);
  PARIO_REAL(closefrom)(low);
  closed_span((unsigned)low, ~0u);
}

/* dup2/dup3 onto a descriptor closes it: its file is flushed first. */
static int b_dup(int fd) {
  int r = PARIO_REAL(dup)(fd);
  if (r >= 0) pario_buf_dup(fd, r);
  return r;
}
static int b_dup2(int a, int b) {
  if (a != b) pario_buf_closing(b);
  int r = PARIO_REAL(dup2)(a, b);
  if (r >= 0 && a != b) pario_buf_dup(a, b);
  return r;
}
static int b_dup3(int a, int b, int fl) {
  if (a != b) pario_buf_closing(b);
  int r = PARIO_REAL(dup3)(a, b, fl);
  if (r >= 0) pario_buf_dup(a, b);
  return r;
}

/* ---- writes: into the run ---- */
#define TIMED_START() int64_t t0 = pario_buf_timing ? pario_ticks() : 0
#define TIMED_END(f) \
  if (pario_buf_timing && (f)->st) (f)->st->prog_ticks += pario_ticks() - t0

/* Each write-side call: the untracked case first, with nothing to save (a tail call of the real
 * one); the buffered case out of line. */
static __attribute__((noinline)) ssize_t b_write_slow(int fd, const void *p, size_t n) {
  struct bfile *f = pario_buf_get(fd);
  if (!f) return PARIO_REAL(write)(fd, p, n);
  TIMED_START();
  const struct bfd *e = &pario_buf_fdtab[fd];
  if (PARIO_UNLIKELY(!e->writable || !n)) {
    pario_buf_put(f);
    return PARIO_REAL(write)(fd, p, n);
  }
  ssize_t r = pario_buf_append(f, fd, e, RUN_STREAM, -1, p, n);
  TIMED_END(f);
  pario_buf_put(f);
  return r;
}
static ssize_t b_write(int fd, const void *p, size_t n) {
  if (PARIO_LIKELY(pario_buf_untracked(fd))) return PARIO_REAL(write)(fd, p, n);
  return b_write_slow(fd, p, n);
}

#define PWRITE_TAKE(name, fn, T)                                                    \
  static __attribute__((noinline)) ssize_t name##_slow(int fd, const void *p, size_t n, T off); \
  static ssize_t name(int fd, const void *p, size_t n, T off) {                     \
    if (PARIO_LIKELY(pario_buf_untracked(fd))) return PARIO_REAL(fn)(fd, p, n, off); \
    return name##_slow(fd, p, n, off);                                              \
  }                                                                                 \
  static ssize_t name##_slow(int fd, const void *p, size_t n, T off) {              \
    struct bfile *f = pario_buf_get(fd);                                                  \
    if (PARIO_LIKELY(!f)) return PARIO_REAL(fn)(fd, p, n, off);                     \
    TIMED_START();                                                                  \
    const struct bfd *e = &pario_buf_fdtab[fd];                                           \
    if (PARIO_UNLIKELY(!e->writable || e->append || off < 0 || !n)) {               \
      pario_buf_flush(f, WHY_SWITCH); /* O_APPEND: Linux appends; the run goes first */   \
      int err = pario_buf_take_error(f);                                                  \
      pario_buf_put(f);                                                                   \
      if (err) return errno = err, -1;                                              \
      return PARIO_REAL(fn)(fd, p, n, off);                                         \
    }                                                                               \
    ssize_t r = pario_buf_append(f, fd, e, RUN_POS, (int64_t)off, p, n);                  \
    TIMED_END(f);                                                                   \
    pario_buf_put(f);                                                                     \
    return r;                                                                       \
  }
PWRITE_TAKE(b_pwrite, pwrite, off_t)
PWRITE_TAKE(b_pwrite64, pwrite64, off64_t)

static __attribute__((noinline)) ssize_t b_writev_slow(int fd, const struct iovec *iov, int cnt) {
  struct bfile *f = pario_buf_get(fd);
  if (PARIO_LIKELY(!f)) return PARIO_REAL(writev)(fd, iov, cnt);
  TIMED_START();
  const struct bfd *e = &pario_buf_fdtab[fd];
  if (PARIO_UNLIKELY(!e->writable || cnt <= 0 || cnt > IOV_MAX)) {
    pario_buf_put(f);
    return PARIO_REAL(writev)(fd, iov, cnt);
  }
  ssize_t r = pario_buf_append_iov(f, fd, e, RUN_STREAM, -1, iov, cnt);
  TIMED_END(f);
  pario_buf_put(f);
  return r;
}

static ssize_t b_writev(int fd, const struct iovec *iov, int cnt) {
  if (PARIO_LIKELY(pario_buf_untracked(fd))) return PARIO_REAL(writev)(fd, iov, cnt);
  return b_writev_slow(fd, iov, cnt);
}

#define PWRITEV_TAKE(name, fn, T)                                                   \
  static __attribute__((noinline)) ssize_t name##_slow(int fd, const struct iovec *iov, int cnt, T off); \
  static ssize_t name(int fd, const struct iovec *iov, int cnt, T off) {            \
    if (PARIO_LIKELY(pario_buf_untracked(fd))) return PARIO_REAL(fn)(fd, iov, cnt, off); \
    return name##_slow(fd, iov, cnt, off);                                          \
  }                                                                                 \
  static ssize_t name##_slow(int fd, const struct iovec *iov, int cnt, T off) {     \
    struct bfile *f = pario_buf_get(fd);                                                  \
    if (PARIO_LIKELY(!f)) return PARIO_REAL(fn)(fd, iov, cnt, off);                 \
    TIMED_START();                                                                  \
    const struct bfd *e = &pario_buf_fdtab[fd];                                           \
    if (PARIO_UNLIKELY(!e->writable || e->append || off < 0 || cnt <= 0 || cnt > IOV_MAX)) { \
      pario_buf_flush(f, WHY_SWITCH);                                                     \
      int err = pario_buf_take_error(f);                                                  \
      pario_buf_put(f);                                                                   \
      if (err) return errno = err, -1;                                              \
      return PARIO_REAL(fn)(fd, iov, cnt, off);                                     \
    }                                                                               \
    ssize_t r = pario_buf_append_iov(f, fd, e, RUN_POS, (int64_t)off, iov, cnt);          \
    TIMED_END(f);                                                                   \
    pario_buf_put(f);                                                                     \
    return r;                                                                       \
  }
PWRITEV_TAKE(b_pwritev, pwritev, off_t)
PWRITEV_TAKE(b_pwritev64, pwritev64, off64_t)

/* ---- reads, sizes, mappings: flush first ---- */
#define FLUSH_FIRST(name, fn, why, ret_t, params, args, fdv) \
  static ret_t name params {                                 \
    flush_fd(fdv, why);                                      \
    return PARIO_REAL(fn) args;                              \
  }
FLUSH_FIRST(b_read, read, WHY_READ, ssize_t, (int fd, void *p, size_t n), (fd, p, n), fd)
FLUSH_FIRST(b_read_chk, __read_chk, WHY_READ, ssize_t, (int fd, void *p, size_t n, size_t bl), (fd, p, n, bl), fd)
FLUSH_FIRST(b_pread, pread, WHY_READ, ssize_t, (int fd, void *p, size_t n, off_t o), (fd, p, n, o), fd)
FLUSH_FIRST(b_pread64, pread64, WHY_READ, ssize_t, (int fd, void *p, size_t n, off64_t o), (fd, p, n, o), fd)
FLUSH_FIRST(b_pread_chk, __pread_chk, WHY_READ, ssize_t, (int fd, void *p, size_t n, off_t o, size_t bl),
            (fd, p, n, o, bl), fd)
FLUSH_FIRST(b_pread64_chk, __pread64_chk, WHY_READ, ssize_t, (int fd, void *p, size_t n, off64_t o, size_t bl),
            (fd, p, n, o, bl), fd)
FLUSH_FIRST(b_readv, readv, WHY_READ, ssize_t, (int fd, const struct iovec *v, int c), (fd, v, c), fd)
FLUSH_FIRST(b_preadv, preadv, WHY_READ, ssize_t, (int fd, const struct iovec *v, int c, off_t o), (fd, v, c, o), fd)
FLUSH_FIRST(b_preadv64, preadv64, WHY_READ, ssize_t, (int fd, const struct iovec *v, int c, off64_t o),
            (fd, v, c, o), fd)
FLUSH_FIRST(b_fstat, fstat, WHY_STAT, int, (int fd, struct stat *st), (fd, st), fd)
FLUSH_FIRST(b_fstat64, fstat64, WHY_STAT, int, (int fd, struct stat64 *st), (fd, st), fd)
FLUSH_FIRST(b_flock, flock, WHY_LOCK, int, (int fd, int op), (fd, op), fd)
FLUSH_FIRST(b_vdprintf, vdprintf, WHY_STDIO, int, (int fd, const char *f, va_list ap), (fd, f, ap), fd)

/* A stat by name sees the size the program wrote: the file it names is flushed first. */
#define PATH_STAT(name, fn, why, params, args, dirv, pathv)                 \
  static int name params {                                                  \
    if (atomic_load_explicit(&pario_buf_npending, memory_order_relaxed))          \
      pario_buf_flush_path(pathv, dirv, why);                                     \
    return PARIO_REAL(fn) args;                                             \
  }
PATH_STAT(b_stat, stat, WHY_STAT, (const char *p, struct stat *st), (p, st), AT_FDCWD, p)
PATH_STAT(b_stat64, stat64, WHY_STAT, (const char *p, struct stat64 *st), (p, st), AT_FDCWD, p)
PATH_STAT(b_lstat, lstat, WHY_STAT, (const char *p, struct stat *st), (p, st), AT_FDCWD, p)
PATH_STAT(b_lstat64, lstat64, WHY_STAT, (const char *p, struct stat64 *st), (p, st), AT_FDCWD, p)
PATH_STAT(b_truncate, truncate, WHY_TRUNCATE, (const char *p, off_t n), (p, n), AT_FDCWD, p)
PATH_STAT(b_truncate64, truncate64, WHY_TRUNCATE, (const char *p, off64_t n), (p, n), AT_FDCWD, p)

#define AT_STAT(name, fn, params, args)                                     \
  static int name params {                                                  \
    if (atomic_load_explicit(&pario_buf_npending, memory_order_relaxed)) {        \
      if ((fl & AT_EMPTY_PATH) && p && !*p) flush_fd(d, WHY_STAT);          \
      else pario_buf_flush_path(p, d, WHY_STAT);                                  \
    }                                                                       \
    return PARIO_REAL(fn) args;                                             \
  }
AT_STAT(b_fstatat, fstatat, (int d, const char *p, struct stat *st, int fl), (d, p, st, fl))
AT_STAT(b_fstatat64, fstatat64, (int d, const char *p, struct stat64 *st, int fl), (d, p, st, fl))
AT_STAT(b_statx, statx, (int d, const char *p, int fl, unsigned m, struct statx *st), (d, p, fl, m, st))

/* A shared mapping sees the file's pages: the file is flushed, and written through from then on
 * (while any descriptor keeps it open), since the program may read the mapping at any time. */
#define MMAP_TAKE(name, fn, T)                                                  \
  static void *name(void *a, size_t n, int prot, int fl, int fd, T off) {       \
    struct bfile *f = fd >= 0 ? pario_buf_get(fd) : NULL;                             \
    if (f) {                                                                    \
      pario_buf_flush(f, WHY_MAP);                                                    \
      if (fl & MAP_SHARED) f->direct = 1;                                       \
      pario_buf_put(f);                                                               \
    }                                                                           \
    return PARIO_REAL(fn)(a, n, prot, fl, fd, off);                             \
  }
MMAP_TAKE(b_mmap, mmap, off_t)
MMAP_TAKE(b_mmap64, mmap64, off64_t)

/* A seek that leaves the position where the pending stream already puts it, on the description
 * that stream continues: lseek(fd, 0, SEEK_CUR) (ftell-style callers do it after every record)
 * and lseek(fd, OFF, SEEK_SET) to the end of the pending bytes (IOR's POSIX backend seeks to the
 * offset of every transfer before it, and that offset is where the last one ended). It returns
 * that position without writing: the run goes on. Any other seek flushes. */
#define SEEK_TAKE(name, fn, T)                                                  \
  static __attribute__((noinline)) T name##_slow(int fd, T off, int whence);    \
  static T name(int fd, T off, int whence) {                                    \
    if (PARIO_LIKELY(pario_buf_untracked(fd))) return PARIO_REAL(fn)(fd, off, whence); \
    return name##_slow(fd, off, whence);                                        \
  }                                                                             \
  static T name##_slow(int fd, T off, int whence) {                             \
    struct bfile *f = pario_buf_get(fd);                                              \
    if (!f) return PARIO_REAL(fn)(fd, off, whence);                             \
    const struct bfd *e = &pario_buf_fdtab[fd];                                       \
    if (f->len && (whence == SEEK_CUR || whence == SEEK_SET) && f->mode == RUN_STREAM && \
        f->wofd == e->ofd && !e->append && (whence == SEEK_SET || off == 0)) {  \
      T r = PARIO_REAL(fn)(fd, 0, SEEK_CUR);                                    \
      if (r >= 0) r += (T)f->len;                                               \
      if (r < 0 || whence == SEEK_CUR || off == r) {                            \
        pario_buf_put(f);                                                       \
        return r;                                                               \
      }                                                                         \
    }                                                                           \
    if (f->len) pario_buf_flush(f, WHY_SEEK);                                         \
    pario_buf_put(f);                                                                 \
    return PARIO_REAL(fn)(fd, off, whence);                                     \
  }
SEEK_TAKE(b_lseek, lseek, off_t)
SEEK_TAKE(b_lseek64, lseek64, off64_t)

/* ---- syncs and sizes: flush, and a deferred error is the call's result ---- */
#define SYNC_TAKE(name, fn, why, params, args)                                  \
  static int name params {                                                      \
    int err = flush_fd_err(fd, why);                                            \
    if (err) return errno = err, -1;                                            \
    return PARIO_REAL(fn) args;                                                 \
  }
SYNC_TAKE(b_fsync, fsync, WHY_SYNC, (int fd), (fd))
SYNC_TAKE(b_fdatasync, fdatasync, WHY_SYNC, (int fd), (fd))
SYNC_TAKE(b_sync_file_range, sync_file_range, WHY_SYNC, (int fd, off64_t o, off64_t n, unsigned fl), (fd, o, n, fl))
SYNC_TAKE(b_ftruncate, ftruncate, WHY_TRUNCATE, (int fd, off_t n), (fd, n))
SYNC_TAKE(b_ftruncate64, ftruncate64, WHY_TRUNCATE, (int fd, off64_t n), (fd, n))
SYNC_TAKE(b_fallocate, fallocate, WHY_TRUNCATE, (int fd, int m, off_t o, off_t n), (fd, m, o, n))
SYNC_TAKE(b_fallocate64, fallocate64, WHY_TRUNCATE, (int fd, int m, off64_t o, off64_t n), (fd, m, o, n))

static int b_posix_fallocate(int fd, off_t o, off_t n) {
  int err = flush_fd_err(fd, WHY_TRUNCATE);
  return err ? err : PARIO_REAL(posix_fallocate)(fd, o, n);
}
static int b_posix_fallocate64(int fd, off64_t o, off64_t n) {
  int err = flush_fd_err(fd, WHY_TRUNCATE);
  return err ? err : PARIO_REAL(posix_fallocate64)(fd, o, n);
}
static int b_syncfs(int fd) {
  pario_buf_flush_all(WHY_SYNC, 0);
  return PARIO_REAL(syncfs)(fd);
}
static void b_sync(void) {
  pario_buf_flush_all(WHY_SYNC, 0);
  PARIO_REAL(sync)();
}

/* ---- fcntl: locks flush first (another process may read once the lock is released: ROMIO's
 * data sieving), F_DUPFD names the copy, F_SETFL may switch O_APPEND ---- */
static int is_lock(int cmd) {
  return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW ||
         cmd == F_OFD_GETLK;
}
#define FCNTL_TAKE(name, fn)                                                    \
  static int name(int fd, int cmd, ...) {                                       \
    va_list ap;                                                                 \
    va_start(ap, cmd);                                                          \
    void *arg = va_arg(ap, void *);                                             \
    va_end(ap);                                                                 \
    if (is_lock(cmd) || cmd == F_SETFL) flush_fd(fd, WHY_LOCK);                 \
    int r = PARIO_REAL(fn)(fd, cmd, arg);                                       \
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) pario_buf_dup(fd, r);   \
    if (r >= 0 && cmd == F_SETFL) pario_buf_refresh_flags(fd);                        \
    return r;                                                                   \
  }
FCNTL_TAKE(b_fcntl, fcntl)
FCNTL_TAKE(b_fcntl64, fcntl64)

/* In-kernel copies read one file and write another: both are flushed. */
static ssize_t b_copy_file_range(int in, off64_t *io, int out, off64_t *oo, size_t n, unsigned fl) {
  flush_fd(in, WHY_READ);
  flush_fd(out, WHY_SWITCH);
  return PARIO_REAL(copy_file_range)(in, io, out, oo, n, fl);
}
#define SENDFILE_TAKE(name, fn, T)                                              \
  static ssize_t name(int out, int in, T *off, size_t n) {                      \
    flush_fd(in, WHY_READ);                                                     \
    flush_fd(out, WHY_SWITCH);                                                  \
    return PARIO_REAL(fn)(out, in, off, n);                                     \
  }
SENDFILE_TAKE(b_sendfile, sendfile, off_t)
SENDFILE_TAKE(b_sendfile64, sendfile64, off64_t)

/* ---- programs started without fork(): what they read must be in the files ---- */
static void before_spawn(void) {
  pario_buf_streams_flush(WHY_SPAWN);
  pario_buf_flush_all(WHY_SPAWN, 0);
}
static int b_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                         const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  before_spawn();
  return PARIO_REAL(posix_spawn)(pid, path, fa, at, argv, envp);
}
static int b_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *at, char *const argv[], char *const envp[]) {
  before_spawn();
  return PARIO_REAL(posix_spawnp)(pid, file, fa, at, argv, envp);
}
static int b_system(const char *cmd) {
  before_spawn();
  return PARIO_REAL(system)(cmd);
}
static FILE *b_popen(const char *cmd, const char *m) {
  before_spawn();
  return PARIO_REAL(popen)(cmd, m);
}

void pario_buf_take_posix(void) {
  PARIO_TAKE(open, b_open);
  PARIO_TAKE(open64, b_open64);
  PARIO_TAKE(openat, b_openat);
  PARIO_TAKE(openat64, b_openat64);
  PARIO_TAKE(__open_2, b_open_2);
  PARIO_TAKE(__open64_2, b_open64_2);
  PARIO_TAKE(__openat_2, b_openat_2);
  PARIO_TAKE(creat, b_creat);
  PARIO_TAKE(creat64, b_creat64);
  PARIO_TAKE(close, b_close);
  PARIO_TAKE(close_range, b_close_range);
  PARIO_TAKE(closefrom, b_closefrom);
  PARIO_TAKE(dup, b_dup);
  PARIO_TAKE(dup2, b_dup2);
  PARIO_TAKE(dup3, b_dup3);
  PARIO_TAKE(write, b_write);
  PARIO_TAKE(pwrite, b_pwrite);
  PARIO_TAKE(pwrite64, b_pwrite64);
  PARIO_TAKE(writev, b_writev);
  PARIO_TAKE(pwritev, b_pwritev);
  PARIO_TAKE(pwritev64, b_pwritev64);
  PARIO_TAKE(read, b_read);
  PARIO_TAKE(__read_chk, b_read_chk);
  PARIO_TAKE(pread, b_pread);
  PARIO_TAKE(pread64, b_pread64);
  PARIO_TAKE(__pread_chk, b_pread_chk);
  PARIO_TAKE(__pread64_chk, b_pread64_chk);
  PARIO_TAKE(readv, b_readv);
  PARIO_TAKE(preadv, b_preadv);
  PARIO_TAKE(preadv64, b_preadv64);
  PARIO_TAKE(fstat, b_fstat);
  PARIO_TAKE(fstat64, b_fstat64);
  PARIO_TAKE(stat, b_stat);
  PARIO_TAKE(stat64, b_stat64);
  PARIO_TAKE(lstat, b_lstat);
  PARIO_TAKE(lstat64, b_lstat64);
  PARIO_TAKE(fstatat, b_fstatat);
  PARIO_TAKE(fstatat64, b_fstatat64);
  PARIO_TAKE(statx, b_statx);
  PARIO_TAKE(truncate, b_truncate);
  PARIO_TAKE(truncate64, b_truncate64);
  PARIO_TAKE(mmap, b_mmap);
  PARIO_TAKE(mmap64, b_mmap64);
  PARIO_TAKE(lseek, b_lseek);
  PARIO_TAKE(lseek64, b_lseek64);
  PARIO_TAKE(fsync, b_fsync);
  PARIO_TAKE(fdatasync, b_fdatasync);
  PARIO_TAKE(sync_file_range, b_sync_file_range);
  PARIO_TAKE(syncfs, b_syncfs);
  PARIO_TAKE(sync, b_sync);
  PARIO_TAKE(ftruncate, b_ftruncate);
  PARIO_TAKE(ftruncate64, b_ftruncate64);
  PARIO_TAKE(fallocate, b_fallocate);
  PARIO_TAKE(fallocate64, b_fallocate64);
  PARIO_TAKE(posix_fallocate, b_posix_fallocate);
  PARIO_TAKE(posix_fallocate64, b_posix_fallocate64);
  PARIO_TAKE(flock, b_flock);
  PARIO_TAKE(fcntl, b_fcntl);
  PARIO_TAKE(fcntl64, b_fcntl64);
  PARIO_TAKE(vdprintf, b_vdprintf);
  PARIO_TAKE(copy_file_range, b_copy_file_range);
  PARIO_TAKE(sendfile, b_sendfile);
  PARIO_TAKE(sendfile64, b_sendfile64);
  PARIO_TAKE(posix_spawn, b_posix_spawn);
  PARIO_TAKE(posix_spawnp, b_posix_spawnp);
  PARIO_TAKE(system, b_system);
  PARIO_TAKE(popen, b_popen);
}
