/* Streams (stdio). libc writes a stream's buffer with its own internal write, which no
 * interposer sees, so a stream opened for writing on a buffered file gets a buffer of the file's
 * size instead of the C library's few KiB (setvbuf at fopen, before any I/O; a later setvbuf of
 * the program's own wins). benchmarks/buffer/RESULTS.md compares it with routing the stream's
 * data through the descriptor's buffer: fwrite into the enlarged stream buffer is the cheaper.
 *
 * Every stream call on a descriptor whose file holds a run flushes the run first, so bytes that
 * the program wrote with write(fileno(fp)) land before the stream's later ones, as they would
 * without the buffer. The C library's writes of an enlarged stream are counted from the stream's
 * own pointers around each call (bytes in, bytes left in the buffer). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buffer/buffer.h"

#undef putc
#undef getc
#undef fread_unlocked
#undef fwrite_unlocked
#undef fputs_unlocked
#undef fgets_unlocked

#ifdef __GLIBC__
#define FILENO(fp) ((fp)->_fileno)
#define PENDING(fp) ((fp)->_IO_write_ptr > (fp)->_IO_write_base ? (int64_t)((fp)->_IO_write_ptr - (fp)->_IO_write_base) : 0)
#else
#define FILENO(fp) fileno(fp)
#define PENDING(fp) 0
#endif

#define MAX_STREAMS 1024
struct stream {
  FILE *fp;
  char *buf;
  size_t size;
  struct pario_buf_stat *st;
};
static struct stream streams[MAX_STREAMS];
static pario_buf_lock_t streams_lock;

static int mode_flags(const char *m) {
  int rw = m && strchr(m, '+') != NULL;
  if (!m) return O_RDONLY;
  if (m[0] == 'w') return (rw ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
  if (m[0] == 'a') return (rw ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
  return rw ? O_RDWR : O_RDONLY;
}

/* Give a stream on a buffered file a buffer of the file's size. */
static void enlarge(FILE *fp, const char *mode) {
  int fd = FILENO(fp);
  struct bfd *e = pario_buf_fd(fd);
  if (!pario_buf_cfg.stdio || !e || !e->f || !e->f->cap || (mode_flags(mode) & O_ACCMODE) == O_RDONLY) return;
  size_t size = e->f->cap;
  char *b = pario_buf_mem_get(size);
  if (!b) return;
  if (setvbuf(fp, b, _IOFBF, size) != 0) {
    pario_buf_mem_put(b, size);
    return;
  }
  pario_buf_lock(&streams_lock);
  for (int k = 0; k < MAX_STREAMS; k++) {
    if (streams[k].fp) continue;
    streams[k].fp = fp;
    streams[k].buf = b;
    streams[k].size = size;
    streams[k].st = e->f->st ? pario_buf_stat_for(e->f->st->path, 1, size) : NULL;
    if (streams[k].st) streams[k].st->opens++;
    e->stream = (unsigned short)(k + 1);
    b = NULL;
    break;
  }
  pario_buf_unlock(&streams_lock);
  if (b) setvbuf(fp, NULL, _IOFBF, BUFSIZ), pario_buf_mem_put(b, size); /* no slot: the C library's own */
}

#ifndef _IO_NO_WRITES
#define _IO_NO_WRITES 0x0008 /* glibc's libio.h: the stream was opened for reading only */
#endif
#define STREAM_TRIED 0xffff /* a stream on a buffered file that could not be enlarged */

static struct stream *stream_of(FILE *fp, const struct bfd *e) {
  if (!e->stream || e->stream == STREAM_TRIED) return NULL;
  struct stream *s = &streams[e->stream - 1];
  return s->fp == fp ? s : NULL;
}

/* A stream that pario did not see opened but that writes to a buffered file (stdout after the
 * program's dup2 onto 1, as `sort -o` does): enlarged at its first write, while it holds nothing
 * (glibc's setvbuf then only swaps the buffer). */
static void adopt(FILE *fp, struct bfd *e) {
  e->stream = STREAM_TRIED;
#ifdef __GLIBC__
  if (PENDING(fp) || (fp->_flags & _IO_NO_WRITES)) return;
  enlarge(fp, "w");
#endif
}

/* The stream's buffer returns to the pool once the stream no longer uses it. */
static void stream_drop(FILE *fp) {
  pario_buf_lock(&streams_lock);
  for (int k = 0; k < MAX_STREAMS; k++) {
    if (streams[k].fp != fp) continue;
    pario_buf_mem_put(streams[k].buf, streams[k].size);
    memset(&streams[k], 0, sizeof streams[k]);
  }
  pario_buf_unlock(&streams_lock);
}

/* What the C library wrote during a call: the bytes that came in and are no longer pending. */
static void account(struct stream *s, FILE *fp, int64_t before, int64_t in, int64_t t0, int why, int is_call) {
  struct pario_buf_stat *st = s ? s->st : NULL;
  if (!st) return;
  int64_t t1 = pario_ticks(), written = before + in - PENDING(fp);
  if (is_call) {
    st->calls++;
    st->bytes += in;
    st->prog_ticks += t1 - t0;
  }
  if (written > 0) {
    st->flushes++;
    st->sys_writes++;
    st->sys_bytes += written;
    st->sys_ticks += t1 - t0;
    st->why[why]++;
  }
}

static void flush_run(int fd) {
  struct bfile *f = pario_buf_get(fd);
  if (!f) return;
  if (f->len) pario_buf_flush(f, WHY_STDIO);
  pario_buf_put(f);
}

/* A stream call: flush the descriptor's run, then the call, counted if the stream is enlarged. */
#define STREAM_TAKE(name, fn, ret_t, params, args, inx, why, is_call)                 \
  static ret_t name params {                                                          \
    struct bfd *e = fp ? pario_buf_fd(FILENO(fp)) : NULL;                                   \
    if (PARIO_LIKELY(!e || (!e->f && !e->stream))) return PARIO_REAL(fn) args;        \
    pario_crit_enter();                                                               \
    if (e->f) flush_run(FILENO(fp));                                                  \
    if ((is_call) && !e->stream && e->f) adopt(fp, e);                                \
    struct stream *s = stream_of(fp, e);                                              \
    int64_t before = s ? PENDING(fp) : 0, t0 = s && s->st ? pario_ticks() : 0;        \
    ret_t ret = PARIO_REAL(fn) args;                                                  \
    int err = errno;                                                                  \
    if (s) account(s, fp, before, (int64_t)(inx), t0, why, is_call);                  \
    pario_crit_leave();                                                               \
    errno = err;                                                                      \
    return ret;                                                                       \
  }
STREAM_TAKE(b_fwrite, fwrite, size_t, (const void *p, size_t sz, size_t n, FILE *fp), (p, sz, n, fp), ret * sz,
            WHY_FULL, 1)
STREAM_TAKE(b_fwrite_unlocked, fwrite_unlocked, size_t, (const void *p, size_t sz, size_t n, FILE *fp),
            (p, sz, n, fp), ret * sz, WHY_FULL, 1)
STREAM_TAKE(b_fputs, fputs, int, (const char *p, FILE *fp), (p, fp), ret >= 0 ? strlen(p) : 0, WHY_FULL, 1)
STREAM_TAKE(b_fputs_unlocked, fputs_unlocked, int, (const char *p, FILE *fp), (p, fp), ret >= 0 ? strlen(p) : 0,
            WHY_FULL, 1)
STREAM_TAKE(b_fputc, fputc, int, (int c, FILE *fp), (c, fp), ret != EOF, WHY_FULL, 1)
STREAM_TAKE(b_putc, putc, int, (int c, FILE *fp), (c, fp), ret != EOF, WHY_FULL, 1)
STREAM_TAKE(b_vfprintf, vfprintf, int, (FILE *fp, const char *f, va_list ap), (fp, f, ap), ret > 0 ? ret : 0,
            WHY_FULL, 1)
STREAM_TAKE(b_vfprintf_chk, __vfprintf_chk, int, (FILE *fp, int fl, const char *f, va_list ap), (fp, fl, f, ap),
            ret > 0 ? ret : 0, WHY_FULL, 1)
STREAM_TAKE(b_fflush_unlocked, fflush_unlocked, int, (FILE *fp), (fp), 0, WHY_SYNC, 0)
STREAM_TAKE(b_fflush_one, fflush, int, (FILE *fp), (fp), 0, WHY_SYNC, 0)
STREAM_TAKE(b_fseek, fseek, int, (FILE *fp, long o, int w), (fp, o, w), 0, WHY_SEEK, 0)
STREAM_TAKE(b_fseeko, fseeko, int, (FILE *fp, off_t o, int w), (fp, o, w), 0, WHY_SEEK, 0)
STREAM_TAKE(b_fseeko64, fseeko64, int, (FILE *fp, off64_t o, int w), (fp, o, w), 0, WHY_SEEK, 0)
STREAM_TAKE(b_ftello64, ftello64, off64_t, (FILE *fp), (fp), 0, WHY_SEEK, 0)
STREAM_TAKE(b_fread, fread, size_t, (void *p, size_t sz, size_t n, FILE *fp), (p, sz, n, fp), 0, WHY_READ, 0)
STREAM_TAKE(b_fread_unlocked, fread_unlocked, size_t, (void *p, size_t sz, size_t n, FILE *fp), (p, sz, n, fp), 0,
            WHY_READ, 0)
STREAM_TAKE(b_fread_chk, __fread_chk, size_t, (void *p, size_t pl, size_t sz, size_t n, FILE *fp),
            (p, pl, sz, n, fp), 0, WHY_READ, 0)
STREAM_TAKE(b_fgets, fgets, char *, (char *p, int n, FILE *fp), (p, n, fp), 0, WHY_READ, 0)
STREAM_TAKE(b_fgets_unlocked, fgets_unlocked, char *, (char *p, int n, FILE *fp), (p, n, fp), 0, WHY_READ, 0)
STREAM_TAKE(b_fgets_chk, __fgets_chk, char *, (char *p, size_t sz, int n, FILE *fp), (p, sz, n, fp), 0, WHY_READ, 0)
STREAM_TAKE(b_fgetc, fgetc, int, (FILE *fp), (fp), 0, WHY_READ, 0)
STREAM_TAKE(b_getc, getc, int, (FILE *fp), (fp), 0, WHY_READ, 0)
STREAM_TAKE(b_vfscanf, vfscanf, int, (FILE *fp, const char *f, va_list ap), (fp, f, ap), 0, WHY_READ, 0)
STREAM_TAKE(b_isoc99_vfscanf, __isoc99_vfscanf, int, (FILE *fp, const char *f, va_list ap), (fp, f, ap), 0, WHY_READ,
            0)

static int b_puts(const char *p) {
  flush_run(FILENO(stdout));
  return PARIO_REAL(puts)(p);
}

/* fflush(NULL) flushes every stream: every run goes first. */
static int b_fflush(FILE *fp) {
  if (!fp) {
    pario_buf_flush_all(WHY_STDIO, 0);
    return PARIO_REAL(fflush)(NULL);
  }
  return b_fflush_one(fp);
}

/* ---- opening and closing streams ---- */
#define FOPEN_TAKE(name, fn)                                                          \
  static FILE *name(const char *path, const char *mode) {                             \
    if (mode && mode[0] == 'w') pario_buf_flush_path(path, AT_FDCWD, WHY_TRUNCATE);         \
    FILE *fp = PARIO_REAL(fn)(path, mode);                                            \
    if (fp) {                                                                         \
      int err = errno;                                                                \
      pario_buf_opened(FILENO(fp), AT_FDCWD, path, mode_flags(mode));                       \
      enlarge(fp, mode);                                                              \
      errno = err;                                                                    \
    }                                                                                 \
    return fp;                                                                        \
  }
FOPEN_TAKE(b_fopen, fopen)
FOPEN_TAKE(b_fopen64, fopen64)

/* The stream will write at the descriptor's position with libc's own writes: its run goes first. */
static FILE *b_fdopen(int fd, const char *mode) {
  flush_run(fd);
  FILE *fp = PARIO_REAL(fdopen)(fd, mode);
  if (fp) {
    int err = errno;
    enlarge(fp, mode);
    errno = err;
  }
  return fp;
}

/* freopen writes the stream out, closes its descriptor and opens another inside libc. */
#define FREOPEN_TAKE(name, fn)                                                        \
  static FILE *name(const char *path, const char *mode, FILE *fp) {                   \
    int old = fp ? FILENO(fp) : -1;                                                   \
    if (old >= 0) {                                                                   \
      pario_buf_closing(old);                                                               \
      pario_buf_closed_error(old);                                                          \
    }                                                                                 \
    if (path && mode && mode[0] == 'w') pario_buf_flush_path(path, AT_FDCWD, WHY_TRUNCATE); \
    FILE *r = PARIO_REAL(fn)(path, mode, fp);                                         \
    int err = errno;                                                                  \
    if (fp) stream_drop(fp); /* libc let go of the buffer when it closed the old file */ \
    if (r && path) {                                                                  \
      pario_buf_opened(FILENO(r), AT_FDCWD, path, mode_flags(mode));                        \
      enlarge(r, mode);                                                               \
    }                                                                                 \
    errno = err;                                                                      \
    return r;                                                                         \
  }
FREOPEN_TAKE(b_freopen, freopen)
FREOPEN_TAKE(b_freopen64, freopen64)

/* fclose: the descriptor's run first, then libc writes the stream and closes; a deferred error
 * of the run is fclose's result. The stream's buffer is released after. */
static int b_fclose(FILE *fp) {
  struct bfd *e = fp ? pario_buf_fd(FILENO(fp)) : NULL;
  if (PARIO_LIKELY(!e || (!e->f && !e->stream))) return PARIO_REAL(fclose)(fp);
  int fd = FILENO(fp);
  pario_crit_enter();
  struct stream *s = stream_of(fp, e);
  int64_t before = s ? PENDING(fp) : 0, t0 = s && s->st ? pario_ticks() : 0;
  pario_buf_closing(fd);
  if (s && s->st) s->st->why[WHY_CLOSE] += before > 0;
  int r = PARIO_REAL(fclose)(fp);
  int rerr = errno;
  if (s && s->st && before > 0) {
    s->st->flushes++;
    s->st->sys_writes++;
    s->st->sys_bytes += before;
    s->st->sys_ticks += pario_ticks() - t0;
  }
  int err = pario_buf_closed_error(fd);
  if (s) stream_drop(fp);
  pario_crit_leave();
  if (r == 0 && err) {
    errno = err;
    return EOF;
  }
  errno = rerr;
  return r;
}

/* Before fork, a spawn, exec, _exit, a signal: write what the enlarged streams hold, so that a
 * child never writes it a second time and nothing is lost with the image. */
void pario_buf_streams_flush(int why) {
  if (!PARIO_REAL(fflush)) return;
  for (int k = 0; k < MAX_STREAMS; k++) {
    struct stream *s = &streams[k];
    FILE *fp = s->fp;
    if (!fp || !PENDING(fp)) continue;
    int64_t before = PENDING(fp), t0 = pario_ticks();
    pario_real.fflush(fp);
    if (s->st) account(s, fp, before, 0, t0, why, 0);
  }
}

void pario_buf_take_stdio(void) {
  PARIO_TAKE(fopen, b_fopen);
  PARIO_TAKE(fopen64, b_fopen64);
  PARIO_TAKE(fdopen, b_fdopen);
  PARIO_TAKE(freopen, b_freopen);
  PARIO_TAKE(freopen64, b_freopen64);
  PARIO_TAKE(fclose, b_fclose);
  PARIO_TAKE(fwrite, b_fwrite);
  PARIO_TAKE(fwrite_unlocked, b_fwrite_unlocked);
  PARIO_TAKE(fputs, b_fputs);
  PARIO_TAKE(fputs_unlocked, b_fputs_unlocked);
  PARIO_TAKE(fputc, b_fputc);
  PARIO_TAKE(putc, b_putc);
  PARIO_TAKE(vfprintf, b_vfprintf);
  PARIO_TAKE(__vfprintf_chk, b_vfprintf_chk);
  PARIO_TAKE(puts, b_puts);
  PARIO_TAKE(fflush, b_fflush);
  PARIO_TAKE(fflush_unlocked, b_fflush_unlocked);
  PARIO_TAKE(fseek, b_fseek);
  PARIO_TAKE(fseeko, b_fseeko);
  PARIO_TAKE(fseeko64, b_fseeko64);
  PARIO_TAKE(ftello64, b_ftello64);
  PARIO_TAKE(fread, b_fread);
  PARIO_TAKE(fread_unlocked, b_fread_unlocked);
  PARIO_TAKE(__fread_chk, b_fread_chk);
  PARIO_TAKE(fgets, b_fgets);
  PARIO_TAKE(fgets_unlocked, b_fgets_unlocked);
  PARIO_TAKE(__fgets_chk, b_fgets_chk);
  PARIO_TAKE(fgetc, b_fgetc);
  PARIO_TAKE(getc, b_getc);
  PARIO_TAKE(vfscanf, b_vfscanf);
  PARIO_TAKE(__isoc99_vfscanf, b_isoc99_vfscanf);
}
