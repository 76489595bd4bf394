/* POSIX wrappers: call the real symbol, time it, tell the records what happened.
 *
 * glibc 2.33+ exports plain stat/fstat/lstat/fstatat symbols (no more __xstat), and
 * _FORTIFY_SOURCE builds call __read_chk/__open_2: all are wrapped here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "profile/profile.h"
#include "profile/record_io.h"

/* ---- what a wrapper reports ---- */
/* The offset of an O_APPEND write is where the file ended: ask the kernel (rare, kept out of line). */
static __attribute__((noinline, cold)) int64_t append_offset(int fd, struct pario_fd *e, int64_t size) {
  int err = errno;
  int64_t cur = (int64_t)syscall(SYS_lseek, fd, 0, SEEK_CUR);
  e->pos = cur;
  errno = err;
  return cur >= 0 ? cur - size : -1;
}

/* First data operation on an fd we did not see opened: name it (system calls: errno kept). */
static __attribute__((noinline, cold)) struct pario_rec *name_fd(int fd) {
  int err = errno;
  struct pario_rec *r = pario_fd_posix(fd);
  errno = err;
  return r;
}

/* Inlined into every data wrapper: an fd already named costs one table load here. Leaves errno
 * alone (its out-of-line paths restore it), so the data wrappers need not save it. */
static inline __attribute__((always_inline)) void after_rw(int fd, const int kind, int64_t off, int64_t size,
                                                           const void *buf, int64_t t0, int64_t t1, const int vec) {
  struct pario_fd *e = pario_fd(fd);
  if (PARIO_UNLIKELY(!e)) return;
  struct pario_rec *r = e->posix;
  if (PARIO_UNLIKELY(r == PARIO_UNTRACKED)) return;
  if (PARIO_UNLIKELY(!r) && !(r = name_fd(fd))) return;
  if (off < 0) {
    if (PARIO_UNLIKELY(e->append) && kind == PARIO_KIND_WRITE) {
      off = append_offset(fd, e, size);
    } else {
      off = e->pos;
      if (off >= 0) e->pos = off + size;
    }
  }
  pario_rec_io_inline(r, PARIO_MOD_POSIX, kind, off, size, buf, t0, t1, vec);
}

static void meta_fd(int fd, int idx, int64_t t0, int64_t t1, int op) {
  struct pario_rec *r = pario_fd_posix(fd);
  if (!r) return;
  pario_rec_meta(r, idx, t0, t1);
  if (pario_cfg.trace) pario_trace(r, op, -1, 0, t0, t1);
}

/* Absolute path of (dirfd, path) as *at() calls see it. */
static void at_path(int dirfd, const char *path, char *out, size_t sz) {
  if (path[0] == '/' || dirfd == AT_FDCWD) { pario_abspath(path, out, sz); return; }
  char dir[PATH_MAX], joined[PATH_MAX * 2];
  if (pario_fd_name(dirfd, dir, sizeof dir) != 0) dir[0] = 0;
  snprintf(joined, sizeof joined, "%s/%s", dir, path);
  pario_abspath(joined, out, sz);
}

static void meta_path(int dirfd, const char *path, int idx, int64_t t0, int64_t t1, int op) {
  char abs[PATH_MAX];
  if (!path) return;
  at_path(dirfd, path, abs, sizeof abs);
  struct pario_rec *r = pario_rec_get(abs, PARIO_MOD_POSIX);
  if (!r) return;
  pario_rec_meta(r, idx, t0, t1);
  if (pario_cfg.trace) pario_trace(r, op, -1, 0, t0, t1);
}

/* The file is named by the call's path, never by /proc/self/fd after the fact: there a file can be
 * "name (deleted)" while it is alive (records.c, pario_fd_name). */
static void after_open(int dirfd, int fd, const char *path, int flags, int64_t t0, int64_t t1) {
  char abs[PATH_MAX];
  int nameless = (flags & O_TMPFILE) == O_TMPFILE;
  if (!nameless) at_path(dirfd, path, abs, sizeof abs);
  pario_fd_opened(fd, nameless ? NULL : abs, flags);
  struct pario_fd *e = pario_fd(fd);
  struct pario_rec *r = e ? e->posix : NULL;
  if (r && r != PARIO_UNTRACKED) pario_rec_open(r, PARIO_POSIX_OPENS, t0, t1);
}

static int needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#define ENOSYS_RET(v) do { errno = ENOSYS; return v; } while (0)
#define TIMED(call) int64_t t0 = pario_ticks(); __typeof__(call) ret = call; int64_t t1 = pario_ticks(); int err = errno
#define DONE() do { PARIO_LEAVE(); errno = err; return ret; } while (0)
/* Data wrappers: what runs after the call keeps errno itself (after_rw), nothing to save here. */
#define TIMED_DATA(call) int64_t t0 = pario_ticks(); __typeof__(call) ret = call; int64_t t1 = pario_ticks()

/* ---- open ---- */
#define OPEN_WRAP(fn, params, args, dirv, pathv, flagsv)                                 \
  int fn params {                                                                        \
    mode_t mode = 0;                                                                     \
    if (needs_mode(flagsv)) { va_list ap; va_start(ap, flagsv); mode = (mode_t)va_arg(ap, int); va_end(ap); } \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret >= 0) after_open(dirv, ret, pathv, flagsv, t0, t1);                          \
    DONE();                                                                              \
  }
OPEN_WRAP(open, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD, path, flags)
OPEN_WRAP(open64, (const char *path, int flags, ...), (path, flags, mode), AT_FDCWD, path, flags)
OPEN_WRAP(openat, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd, path, flags)
OPEN_WRAP(openat64, (int dirfd, const char *path, int flags, ...), (dirfd, path, flags, mode), dirfd, path, flags)

#define OPEN2_WRAP(fn, params, args, dirv, pathv, flagsv)                                \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret >= 0) after_open(dirv, ret, pathv, flagsv, t0, t1);                          \
    DONE();                                                                              \
  }
OPEN2_WRAP(__open_2, (const char *path, int flags), (path, flags), AT_FDCWD, path, flags)
OPEN2_WRAP(__open64_2, (const char *path, int flags), (path, flags), AT_FDCWD, path, flags)
OPEN2_WRAP(__openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags), dirfd, path, flags)
OPEN2_WRAP(creat, (const char *path, mode_t mode), (path, mode), AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC)
OPEN2_WRAP(creat64, (const char *path, mode_t mode), (path, mode), AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC)

int close(int fd) {
  if (!PARIO_NEXT(close)) ENOSYS_RET(-1);
  if (!PARIO_ENTER()) {
    pario_fd_closed(fd); /* keep the table right even for the profiler's own closes */
    return pario_next.close(fd);
  }
  struct pario_fd *e = pario_fd(fd);
  struct pario_rec *r = e && e->posix != PARIO_UNTRACKED ? e->posix : NULL;
  TIMED(pario_next.close(fd));
  if (ret == 0) {
    if (r) pario_rec_close(r, PARIO_POSIX_CLOSES, t0, t1);
    pario_fd_closed(fd);
  }
  DONE();
}

/* ---- data ---- */
#define DATA_WRAP(fn, kind, vec, offx, bufx, params, args)                               \
  ssize_t fn params {                                                                    \
    if (PARIO_UNLIKELY(!PARIO_NEXT(fn))) ENOSYS_RET(-1);                                 \
    if (PARIO_UNLIKELY(!PARIO_ENTER())) return pario_next.fn args;                       \
    TIMED_DATA(pario_next.fn args);                                                      \
    if (PARIO_LIKELY(ret >= 0)) after_rw(fd, kind, offx, ret, bufx, t0, t1, vec);        \
    PARIO_LEAVE();                                                                       \
    return ret;                                                                          \
  }
DATA_WRAP(read, PARIO_KIND_READ, 0, -1, buf, (int fd, void *buf, size_t n), (fd, buf, n))
DATA_WRAP(write, PARIO_KIND_WRITE, 0, -1, buf, (int fd, const void *buf, size_t n), (fd, buf, n))
DATA_WRAP(__read_chk, PARIO_KIND_READ, 0, -1, buf, (int fd, void *buf, size_t n, size_t bl), (fd, buf, n, bl))
DATA_WRAP(pread, PARIO_KIND_READ, 0, off, buf, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
DATA_WRAP(pread64, PARIO_KIND_READ, 0, off, buf, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off))
DATA_WRAP(__pread_chk, PARIO_KIND_READ, 0, off, buf, (int fd, void *buf, size_t n, off_t off, size_t bl), (fd, buf, n, off, bl))
DATA_WRAP(__pread64_chk, PARIO_KIND_READ, 0, off, buf, (int fd, void *buf, size_t n, off64_t off, size_t bl), (fd, buf, n, off, bl))
DATA_WRAP(pwrite, PARIO_KIND_WRITE, 0, off, buf, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
DATA_WRAP(pwrite64, PARIO_KIND_WRITE, 0, off, buf, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off))
#define IOV0 (cnt > 0 ? iov[0].iov_base : NULL)
DATA_WRAP(readv, PARIO_KIND_READ, 1, -1, IOV0, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt))
DATA_WRAP(writev, PARIO_KIND_WRITE, 1, -1, IOV0, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt))
DATA_WRAP(preadv, PARIO_KIND_READ, 1, off, IOV0, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))
DATA_WRAP(preadv64, PARIO_KIND_READ, 1, off, IOV0, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off))
DATA_WRAP(pwritev, PARIO_KIND_WRITE, 1, off, IOV0, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off))
DATA_WRAP(pwritev64, PARIO_KIND_WRITE, 1, off, IOV0, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off))

/* ---- seek, sync, truncate ---- */
#define SEEK_WRAP(fn, T)                                                                 \
  T fn(int fd, T off, int whence) {                                                      \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn(fd, off, whence);                           \
    TIMED(pario_next.fn(fd, off, whence));                                               \
    if (ret >= 0 && pario_fd_posix(fd)) {                                                \
      pario_fd(fd)->pos = ret;                                                           \
      meta_fd(fd, PARIO_POSIX_SEEKS, t0, t1, PARIO_T_SEEK);                              \
    }                                                                                    \
    DONE();                                                                              \
  }
SEEK_WRAP(lseek, off_t)
SEEK_WRAP(lseek64, off64_t)

#define FD_META_WRAP(fn, idx, op, params, args)                                          \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret == 0) meta_fd(fd, idx, t0, t1, op);                                          \
    DONE();                                                                              \
  }
FD_META_WRAP(fsync, PARIO_POSIX_FSYNCS, PARIO_T_SYNC, (int fd), (fd))
FD_META_WRAP(fdatasync, PARIO_POSIX_FDSYNCS, PARIO_T_SYNC, (int fd), (fd))
FD_META_WRAP(ftruncate, PARIO_POSIX_TRUNCATES, PARIO_T_OTHER, (int fd, off_t len), (fd, len))
FD_META_WRAP(ftruncate64, PARIO_POSIX_TRUNCATES, PARIO_T_OTHER, (int fd, off64_t len), (fd, len))
FD_META_WRAP(fstat, PARIO_POSIX_STATS, PARIO_T_STAT, (int fd, struct stat *st), (fd, st))
FD_META_WRAP(fstat64, PARIO_POSIX_STATS, PARIO_T_STAT, (int fd, struct stat64 *st), (fd, st))

/* ---- path metadata ---- */
#define PATH_META_WRAP(fn, idx, op, params, args, dirv, pathv)                           \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret == 0) meta_path(dirv, pathv, idx, t0, t1, op);                               \
    DONE();                                                                              \
  }
PATH_META_WRAP(stat, PARIO_POSIX_STATS, PARIO_T_STAT, (const char *p, struct stat *st), (p, st), AT_FDCWD, p)
PATH_META_WRAP(stat64, PARIO_POSIX_STATS, PARIO_T_STAT, (const char *p, struct stat64 *st), (p, st), AT_FDCWD, p)
PATH_META_WRAP(lstat, PARIO_POSIX_STATS, PARIO_T_STAT, (const char *p, struct stat *st), (p, st), AT_FDCWD, p)
PATH_META_WRAP(lstat64, PARIO_POSIX_STATS, PARIO_T_STAT, (const char *p, struct stat64 *st), (p, st), AT_FDCWD, p)
PATH_META_WRAP(unlink, PARIO_POSIX_UNLINKS, PARIO_T_OTHER, (const char *p), (p), AT_FDCWD, p)
PATH_META_WRAP(unlinkat, PARIO_POSIX_UNLINKS, PARIO_T_OTHER, (int d, const char *p, int fl), (d, p, fl), d, p)
PATH_META_WRAP(mkdir, PARIO_POSIX_MKDIRS, PARIO_T_OTHER, (const char *p, mode_t m), (p, m), AT_FDCWD, p)
PATH_META_WRAP(mkdirat, PARIO_POSIX_MKDIRS, PARIO_T_OTHER, (int d, const char *p, mode_t m), (d, p, m), d, p)

/* fstatat/statx with AT_EMPTY_PATH and "" stat the fd itself. */
static void stat_at(int d, const char *p, int fl, int64_t t0, int64_t t1) {
  if ((fl & AT_EMPTY_PATH) && p && !*p) meta_fd(d, PARIO_POSIX_STATS, t0, t1, PARIO_T_STAT);
  else meta_path(d, p, PARIO_POSIX_STATS, t0, t1, PARIO_T_STAT);
}
#define STATAT_WRAP(fn, params, args)                                                    \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret == 0) stat_at(d, p, fl, t0, t1);                                             \
    DONE();                                                                              \
  }
STATAT_WRAP(fstatat, (int d, const char *p, struct stat *st, int fl), (d, p, st, fl))
STATAT_WRAP(fstatat64, (int d, const char *p, struct stat64 *st, int fl), (d, p, st, fl))
STATAT_WRAP(statx, (int d, const char *p, int fl, unsigned mask, struct statx *st), (d, p, fl, mask, st))

static void after_rename(int od, const char *op, int nd, const char *np, int64_t t0, int64_t t1) {
  meta_path(od, op, PARIO_POSIX_RENAMES_SOURCE, t0, t1, PARIO_T_OTHER);
  meta_path(nd, np, PARIO_POSIX_RENAMES_TARGET, t0, t1, PARIO_T_OTHER);
}
int rename(const char *a, const char *b) {
  if (!PARIO_NEXT(rename)) ENOSYS_RET(-1);
  if (!PARIO_ENTER()) return pario_next.rename(a, b);
  TIMED(pario_next.rename(a, b));
  if (ret == 0) after_rename(AT_FDCWD, a, AT_FDCWD, b, t0, t1);
  DONE();
}
int renameat(int ad, const char *a, int bd, const char *b) {
  if (!PARIO_NEXT(renameat)) ENOSYS_RET(-1);
  if (!PARIO_ENTER()) return pario_next.renameat(ad, a, bd, b);
  TIMED(pario_next.renameat(ad, a, bd, b));
  if (ret == 0) after_rename(ad, a, bd, b, t0, t1);
  DONE();
}
int renameat2(int ad, const char *a, int bd, const char *b, unsigned fl) {
  if (!PARIO_NEXT(renameat2)) ENOSYS_RET(-1);
  if (!PARIO_ENTER()) return pario_next.renameat2(ad, a, bd, b, fl);
  TIMED(pario_next.renameat2(ad, a, bd, b, fl));
  if (ret == 0) after_rename(ad, a, bd, b, t0, t1);
  DONE();
}

/* ---- mmap (counted), dup, cwd ---- */
#define MMAP_WRAP(fn, T)                                                                 \
  void *fn(void *addr, size_t len, int prot, int flags, int fd, T off) {                 \
    if (!PARIO_NEXT(fn)) { errno = ENOSYS; return MAP_FAILED; }                          \
    if (fd < 0 || !PARIO_ENTER()) return pario_next.fn(addr, len, prot, flags, fd, off); \
    TIMED(pario_next.fn(addr, len, prot, flags, fd, off));                               \
    if (ret != MAP_FAILED) meta_fd(fd, PARIO_POSIX_MMAPS, t0, t1, PARIO_T_OTHER);        \
    DONE();                                                                              \
  }
MMAP_WRAP(mmap, off_t)
MMAP_WRAP(mmap64, off64_t)

static void after_dup(int oldfd, int newfd) {
  struct pario_rec *r = pario_fd_posix(oldfd);
  pario_fd_dup(oldfd, newfd);
  if (r) {
    pario_lock(&r->lock);
    r->i[PARIO_POSIX_DUPS]++;
    r->touched = 1;
    pario_unlock(&r->lock);
  }
}
int dup(int fd) {
  if (!PARIO_NEXT(dup)) ENOSYS_RET(-1);
  int r = pario_next.dup(fd);
  if (r >= 0) {
    int e = errno;
    if (PARIO_ENTER()) { after_dup(fd, r); PARIO_LEAVE(); } else pario_fd_closed(r);
    errno = e;
  }
  return r;
}
#define DUP2_WRAP(fn, params, args)                                                      \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    int r = pario_next.fn args;                                                          \
    if (r >= 0 && a != b) {                                                              \
      int e = errno;                                                                     \
      if (PARIO_ENTER()) { after_dup(a, b); PARIO_LEAVE(); } else pario_fd_closed(b);    \
      errno = e;                                                                         \
    }                                                                                    \
    return r;                                                                            \
  }
DUP2_WRAP(dup2, (int a, int b), (a, b))
DUP2_WRAP(dup3, (int a, int b, int fl), (a, b, fl))

int chdir(const char *p) {
  if (!PARIO_NEXT(chdir)) ENOSYS_RET(-1);
  int r = pario_next.chdir(p);
  pario_cwd_changed();
  return r;
}
int fchdir(int fd) {
  if (!PARIO_NEXT(fchdir)) ENOSYS_RET(-1);
  int r = pario_next.fchdir(fd);
  pario_cwd_changed();
  return r;
}

/* ---- in-kernel copies (cp uses copy_file_range): a read of the source and a write of the
 * destination, each charged the call's time ---- */
static void after_copy(int in, const void *inoff, int64_t in_before, int out, const void *outoff,
                       int64_t out_before, int64_t n, int64_t t0, int64_t t1) {
  after_rw(in, PARIO_KIND_READ, inoff ? in_before : -1, n, NULL, t0, t1, 0);
  after_rw(out, PARIO_KIND_WRITE, outoff ? out_before : -1, n, NULL, t0, t1, 0);
}
ssize_t copy_file_range(int in, off64_t *inoff, int out, off64_t *outoff, size_t len, unsigned fl) {
  if (!PARIO_NEXT(copy_file_range)) ENOSYS_RET(-1);
  if (!PARIO_ENTER()) return pario_next.copy_file_range(in, inoff, out, outoff, len, fl);
  int64_t ib = inoff ? *inoff : -1, ob = outoff ? *outoff : -1;
  TIMED(pario_next.copy_file_range(in, inoff, out, outoff, len, fl));
  if (ret > 0) after_copy(in, inoff, ib, out, outoff, ob, ret, t0, t1);
  DONE();
}
#define SENDFILE_WRAP(fn, T)                                                             \
  ssize_t fn(int out, int in, T *off, size_t count) {                                    \
    if (!PARIO_NEXT(fn)) ENOSYS_RET(-1);                                                 \
    if (!PARIO_ENTER()) return pario_next.fn(out, in, off, count);                       \
    int64_t ib = off ? *off : -1;                                                        \
    TIMED(pario_next.fn(out, in, off, count));                                           \
    if (ret > 0) after_copy(in, off, ib, out, NULL, -1, ret, t0, t1);                    \
    DONE();                                                                              \
  }
SENDFILE_WRAP(sendfile, off_t)
SENDFILE_WRAP(sendfile64, off64_t)

/* close_range closes without close(): forget those descriptors so a later unrelated fd with the
 * same number is not charged to the old file. */
int close_range(unsigned first, unsigned last, int flags) {
  if (!PARIO_NEXT(close_range)) ENOSYS_RET(-1);
  int r = pario_next.close_range(first, last, flags);
  if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
    for (unsigned fd = first; fd <= last && pario_fd((int)fd); fd++) pario_fd_closed((int)fd);
  return r;
}
