/* stdio wrappers. fprintf-style calls are variadic: each is forwarded to the real v-form.
 * Fortified (_chk) and unlocked forms are wrapped too, because coreutils and -O2
 * -D_FORTIFY_SOURCE builds call those symbols instead of the plain ones.
 * fscanf-style reads are counted as operations; how many bytes they consumed is not known. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/record_io.h"

#undef putc
#undef getc
#undef fread_unlocked
#undef fwrite_unlocked
#undef fputs_unlocked
#undef fgets_unlocked

/* glibc keeps the descriptor in the FILE itself: reading it saves a call on every fwrite. */
#ifdef __GLIBC__
#define FILENO(fp) ((fp)->_fileno)
#else
#define FILENO(fp) fileno(fp)
#endif

static struct pario_rec *srec(FILE *fp, struct pario_fd **ep) {
  if (!fp) return NULL;
  int fd = FILENO(fp);
  struct pario_fd *e = pario_fd(fd);
  if (!e) return NULL;
  *ep = e;
  if (e->stdio == PARIO_UNTRACKED) return NULL;
  return e->stdio ? e->stdio : pario_fd_stdio(fd, NULL, 0); /* stdin/stdout/stderr, popen, ... */
}

/* A stream we did not see opened (stdin/stdout/stderr, popen, ...): name it (errno kept). */
static __attribute__((noinline, cold)) struct pario_rec *name_stream(int fd) {
  int err = errno;
  struct pario_rec *r = pario_fd_stdio(fd, NULL, 0);
  errno = err;
  return r;
}

/* Inlined into every data wrapper: a stream already named costs one table load here. Leaves
 * errno alone (name_stream restores it), so SIZED_WRAP need not save it. */
static inline __attribute__((always_inline)) void sio(FILE *fp, const int kind, int64_t bytes, const void *buf,
                                                      int64_t t0, int64_t t1) {
  if (PARIO_UNLIKELY(!fp)) return;
  int fd = FILENO(fp);
  struct pario_fd *e = pario_fd(fd);
  if (PARIO_UNLIKELY(!e)) return;
  struct pario_rec *r = e->stdio;
  if (PARIO_UNLIKELY(r == PARIO_UNTRACKED)) return;
  if (PARIO_UNLIKELY(!r) && !(r = name_stream(fd))) return;
  int64_t off = e->spos;
  if (off >= 0) e->spos = off + bytes;
  pario_rec_io_inline(r, PARIO_MOD_STDIO, kind, off, bytes, buf, t0, t1, 0);
}

static void smeta(FILE *fp, int idx, int64_t t0, int64_t t1, int op) {
  struct pario_fd *e = NULL;
  struct pario_rec *r = srec(fp, &e);
  if (!r) return;
  pario_rec_meta(r, idx, t0, t1);
  if (pario_cfg.trace) pario_trace(r, op, -1, 0, t0, t1);
}

#define TIMED(call) int64_t t0 = pario_ticks(); __typeof__(call) ret = call; int64_t t1 = pario_ticks(); int err = errno
#define DONE() do { PARIO_LEAVE(); errno = err; return ret; } while (0)
#define NOREAL(v) do { errno = ENOSYS; return v; } while (0)

static void after_fopen(FILE *fp, const char *path, const char *mode, int fdopened, int64_t t0, int64_t t1) {
  int fd = fileno(fp);
  struct pario_fd *e = pario_fd(fd);
  if (!e) return;
  e->stdio = NULL;
  struct pario_rec *r = pario_fd_stdio(fd, path, mode && mode[0] == 'a');
  if (!r) return;
  if (fdopened) {
    pario_lock(&r->lock);
    r->i[PARIO_STDIO_FDOPENS]++;
    pario_unlock(&r->lock);
  }
  pario_rec_open(r, PARIO_STDIO_OPENS, t0, t1);
}

#define FOPEN_WRAP(fn)                                                                   \
  FILE *fn(const char *path, const char *mode) {                                         \
    if (!PARIO_NEXT(fn)) NOREAL(NULL);                                                   \
    if (!PARIO_ENTER()) return pario_next.fn(path, mode);                                \
    TIMED(pario_next.fn(path, mode));                                                    \
    if (ret) after_fopen(ret, path, mode, 0, t0, t1);                                    \
    DONE();                                                                              \
  }
FOPEN_WRAP(fopen)
FOPEN_WRAP(fopen64)

FILE *fdopen(int fd, const char *mode) {
  if (!PARIO_NEXT(fdopen)) NOREAL(NULL);
  if (!PARIO_ENTER()) return pario_next.fdopen(fd, mode);
  TIMED(pario_next.fdopen(fd, mode));
  if (ret) after_fopen(ret, NULL, mode, 1, t0, t1);
  DONE();
}

int fclose(FILE *fp) {
  if (!PARIO_NEXT(fclose)) NOREAL(EOF);
  int fd = fp ? fileno(fp) : -1;
  if (!PARIO_ENTER()) {
    pario_fd_closed(fd);
    return pario_next.fclose(fp);
  }
  struct pario_fd *e = NULL;
  struct pario_rec *r = srec(fp, &e);
  TIMED(pario_next.fclose(fp));
  if (r) pario_rec_close(r, PARIO_STDIO_CLOSES, t0, t1);
  pario_fd_closed(fd); /* the stream closed its fd from inside libc, unseen by close() */
  DONE();
}

/* ---- data: bytes = what the call reports as transferred ---- */
#define SIZED_WRAP(fn, kind, params, args, bufv, bytesx)                                 \
  size_t fn params {                                                                     \
    if (PARIO_UNLIKELY(!PARIO_NEXT(fn))) NOREAL(0);                                      \
    if (PARIO_UNLIKELY(!PARIO_ENTER())) return pario_next.fn args;                       \
    int64_t t0 = pario_ticks();                                                          \
    size_t ret = pario_next.fn args;                                                     \
    int64_t t1 = pario_ticks();                                                          \
    sio(fp, kind, (int64_t)(bytesx), bufv, t0, t1);                                      \
    PARIO_LEAVE();                                                                       \
    return ret;                                                                          \
  }
SIZED_WRAP(fread, PARIO_KIND_READ, (void *p, size_t s, size_t n, FILE *fp), (p, s, n, fp), p, ret * s)
SIZED_WRAP(fread_unlocked, PARIO_KIND_READ, (void *p, size_t s, size_t n, FILE *fp), (p, s, n, fp), p, ret * s)
SIZED_WRAP(__fread_chk, PARIO_KIND_READ, (void *p, size_t pl, size_t s, size_t n, FILE *fp), (p, pl, s, n, fp), p, ret * s)
SIZED_WRAP(fwrite, PARIO_KIND_WRITE, (const void *p, size_t s, size_t n, FILE *fp), (p, s, n, fp), p, ret * s)
SIZED_WRAP(fwrite_unlocked, PARIO_KIND_WRITE, (const void *p, size_t s, size_t n, FILE *fp), (p, s, n, fp), p, ret * s)

#define INT_WRAP(fn, kind, params, args, bufv, okx, bytesx)                              \
  int fn params {                                                                        \
    if (!PARIO_NEXT(fn)) NOREAL(EOF);                                                    \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (okx) sio(fp, kind, (int64_t)(bytesx), bufv, t0, t1);                             \
    DONE();                                                                              \
  }
INT_WRAP(fputs, PARIO_KIND_WRITE, (const char *s, FILE *fp), (s, fp), s, ret >= 0, strlen(s))
INT_WRAP(fputs_unlocked, PARIO_KIND_WRITE, (const char *s, FILE *fp), (s, fp), s, ret >= 0, strlen(s))
INT_WRAP(fputc, PARIO_KIND_WRITE, (int c, FILE *fp), (c, fp), NULL, ret != EOF, 1)
INT_WRAP(putc, PARIO_KIND_WRITE, (int c, FILE *fp), (c, fp), NULL, ret != EOF, 1)
INT_WRAP(fgetc, PARIO_KIND_READ, (FILE *fp), (fp), NULL, ret != EOF, 1)
INT_WRAP(getc, PARIO_KIND_READ, (FILE *fp), (fp), NULL, ret != EOF, 1)

#define GETS_WRAP(fn, params, args)                                                      \
  char *fn params {                                                                      \
    if (!PARIO_NEXT(fn)) NOREAL(NULL);                                                   \
    if (!PARIO_ENTER()) return pario_next.fn args;                                       \
    TIMED(pario_next.fn args);                                                           \
    if (ret) sio(fp, PARIO_KIND_READ, (int64_t)strlen(ret), s, t0, t1);                       \
    DONE();                                                                              \
  }
GETS_WRAP(fgets, (char *s, int n, FILE *fp), (s, n, fp))
GETS_WRAP(fgets_unlocked, (char *s, int n, FILE *fp), (s, n, fp))
GETS_WRAP(__fgets_chk, (char *s, size_t sz, int n, FILE *fp), (s, sz, n, fp))

/* ---- formatted: the variadic forms forward to the real v-forms ---- */
int vfprintf(FILE *fp, const char *fmt, va_list ap) {
  if (!PARIO_NEXT(vfprintf)) NOREAL(-1);
  if (!PARIO_ENTER()) return pario_next.vfprintf(fp, fmt, ap);
  TIMED(pario_next.vfprintf(fp, fmt, ap));
  if (ret >= 0) sio(fp, PARIO_KIND_WRITE, ret, NULL, t0, t1);
  DONE();
}
int fprintf(FILE *fp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf(fp, fmt, ap);
  va_end(ap);
  return r;
}
int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap) {
  if (!PARIO_NEXT(__vfprintf_chk)) NOREAL(-1);
  if (!PARIO_ENTER()) return pario_next.__vfprintf_chk(fp, flag, fmt, ap);
  TIMED(pario_next.__vfprintf_chk(fp, flag, fmt, ap));
  if (ret >= 0) sio(fp, PARIO_KIND_WRITE, ret, NULL, t0, t1);
  DONE();
}
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __vfprintf_chk(fp, flag, fmt, ap);
  va_end(ap);
  return r;
}

/* printf-style writes go to stdout: the same v-form wrappers, with stdout as the stream. */
int vprintf(const char *fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }
int printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf(stdout, fmt, ap);
  va_end(ap);
  return r;
}
int __vprintf_chk(int flag, const char *fmt, va_list ap) { return __vfprintf_chk(stdout, flag, fmt, ap); }
int __printf_chk(int flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __vfprintf_chk(stdout, flag, fmt, ap);
  va_end(ap);
  return r;
}
int puts(const char *s) {
  if (!PARIO_NEXT(puts)) NOREAL(EOF);
  if (!PARIO_ENTER()) return pario_next.puts(s);
  TIMED(pario_next.puts(s));
  if (ret >= 0) sio(stdout, PARIO_KIND_WRITE, (int64_t)strlen(s) + 1, s, t0, t1);
  DONE();
}

/* stdio.h renames fscanf to __isoc99_fscanf in C99 mode; asm labels give the plain symbols
 * (still used by old binaries) their own definitions. */
#define SCAN_WRAP(cv, cf, tab, vsym, fsym)                                               \
  int cv(FILE *fp, const char *fmt, va_list ap) __asm__(vsym);                           \
  int cv(FILE *fp, const char *fmt, va_list ap) {                                        \
    if (!PARIO_NEXT(tab)) NOREAL(EOF);                                                   \
    if (!PARIO_ENTER()) return pario_next.tab(fp, fmt, ap);                              \
    TIMED(pario_next.tab(fp, fmt, ap));                                                  \
    if (ret != EOF) sio(fp, PARIO_KIND_READ, 0, NULL, t0, t1);                                \
    DONE();                                                                              \
  }                                                                                      \
  int cf(FILE *fp, const char *fmt, ...) __asm__(fsym);                                  \
  int cf(FILE *fp, const char *fmt, ...) {                                               \
    va_list ap;                                                                          \
    va_start(ap, fmt);                                                                   \
    int r = cv(fp, fmt, ap);                                                             \
    va_end(ap);                                                                          \
    return r;                                                                            \
  }
SCAN_WRAP(wrap_vfscanf, wrap_fscanf, vfscanf, "vfscanf", "fscanf")
SCAN_WRAP(wrap_isoc99_vfscanf, wrap_isoc99_fscanf, __isoc99_vfscanf, "__isoc99_vfscanf", "__isoc99_fscanf")

/* ---- position and flushing ---- */
static void after_seek(FILE *fp, int64_t t0, int64_t t1) {
  struct pario_fd *e = NULL;
  if (!srec(fp, &e)) return;
  if (PARIO_NEXT(ftello64)) e->spos = (int64_t)pario_next.ftello64(fp);
  smeta(fp, PARIO_STDIO_SEEKS, t0, t1, PARIO_T_SEEK);
}
#define SEEK_WRAP(fn, T)                                                                 \
  int fn(FILE *fp, T off, int whence) {                                                  \
    if (!PARIO_NEXT(fn)) NOREAL(-1);                                                     \
    if (!PARIO_ENTER()) return pario_next.fn(fp, off, whence);                           \
    TIMED(pario_next.fn(fp, off, whence));                                               \
    if (ret == 0) after_seek(fp, t0, t1);                                                \
    DONE();                                                                              \
  }
SEEK_WRAP(fseek, long)
SEEK_WRAP(fseeko, off_t)
SEEK_WRAP(fseeko64, off64_t)

#define FLUSH_WRAP(fn)                                                                   \
  int fn(FILE *fp) {                                                                     \
    if (!PARIO_NEXT(fn)) NOREAL(EOF);                                                    \
    if (!fp || !PARIO_ENTER()) return pario_next.fn(fp);                                 \
    TIMED(pario_next.fn(fp));                                                            \
    if (ret == 0) smeta(fp, PARIO_STDIO_FLUSHES, t0, t1, PARIO_T_SYNC);                  \
    DONE();                                                                              \
  }
FLUSH_WRAP(fflush)
FLUSH_WRAP(fflush_unlocked)
