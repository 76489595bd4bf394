/* The run of pending bytes of one file (buffer.h): what continues it, and how it is written. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer/buffer.h"

atomic_int pario_buf_stopped, pario_buf_npending;
static pario_buf_lock_t mem_lock; /* taken alone (a file's lock may be held) */
static size_t mem_used;

/* ---- memory: every buffer of the process within pario_buf_cfg.total ---- */
char *pario_buf_mem_get(size_t size) {
  pario_buf_lock(&mem_lock);
  int ok = mem_used + size <= pario_buf_cfg.total;
  if (ok) mem_used += size;
  pario_buf_unlock(&mem_lock);
  if (!ok) return NULL;
  void *p = PARIO_REAL(mmap)(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
    /* Transparent huge pages where the system leaves them to madvise (Debian's default): the
     * kernel's copy out of a 64 MiB buffer of 4 KiB pages cost 5x the system time of the same
     * bytes in 1 MiB write() calls on the page cache, with huge pages the same time
     * (benchmarks/buffer/RESULTS.md). A small file's buffer may then hold 2 MiB instead of 4 KiB;
     * pario_buf_cfg.total still bounds the sum. */
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
  }
  pario_buf_lock(&mem_lock);
  mem_used -= size;
  pario_buf_unlock(&mem_lock);
  return NULL;
}

void pario_buf_mem_put(char *p, size_t size) {
  if (!p) return;
  munmap(p, size);
  pario_buf_lock(&mem_lock);
  mem_used -= size;
  pario_buf_unlock(&mem_lock);
}


/* Write the run out: the stream at its description's position (write), positioned bytes at
 * their offset (pwrite). A partial write is continued; an error stops it, the rest of the run
 * is dropped (as the page cache drops pages whose write-back failed) and the error is kept for
 * the next write, sync or close on the file. */
int pario_buf_flush(struct bfile *f, int why) {
  if (!f->len) return 0;
  const char *p = f->buf;
  size_t left = f->len;
  int err = 0;
  int64_t nsys = 0, t0 = pario_ticks();
  while (left) {
    ssize_t k = f->mode == RUN_POS ? PARIO_REAL(pwrite)(f->wfd, p, left, (off_t)(f->off + (p - f->buf)))
                                   : PARIO_REAL(write)(f->wfd, p, left);
    nsys++;
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      err = k < 0 ? errno : EIO;
      break;
    }
    p += k;
    left -= (size_t)k;
  }
  int64_t t1 = pario_ticks();
  if (f->st) {
    struct pario_buf_stat *s = f->st;
    s->flushes++;
    s->sys_writes += nsys;
    s->sys_bytes += (int64_t)(f->len - left);
    s->sys_ticks += t1 - t0;
    s->why[why]++;
    if (err) s->errors++;
  }
  f->len = 0;
  f->mode = RUN_NONE;
  atomic_fetch_sub(&pario_buf_npending, 1);
  if (err) {
    f->err = err;
    errno = err;
    return -1;
  }
  return 0;
}

int pario_buf_take_error(struct bfile *f) {
  int err = f->err;
  f->err = 0;
  return err;
}

/* Is (mode, fd's description, offset) the continuation of the run? */
static int continues(const struct bfile *f, const struct bfd *e, int mode, int64_t off) {
  if (f->mode != mode) return 0;
  if (mode == RUN_STREAM) return f->wofd == e->ofd;
  return off == f->off + (int64_t)f->len;
}

/* Make room for n bytes continuing (mode, e, off): 1 when they go into the buffer, 0 when they
 * are to be written through, -1 on the error of a flush this call caused (its own bytes are
 * then not written: the caller returns the error, as the kernel's write-back error would be). */
static int room(struct bfile *f, int fd, const struct bfd *e, int mode, int64_t off, size_t n) {
  /* the run is written out in pieces (PARIO_BUFFER_PIECE) as they fill, at most f->cap */
  size_t piece = pario_buf_cfg.piece && pario_buf_cfg.piece < f->cap ? pario_buf_cfg.piece : f->cap;
  if (atomic_load_explicit(&pario_buf_stopped, memory_order_relaxed) || f->direct || n >= piece) {
    if (pario_buf_flush(f, WHY_FULL) != 0) return -1;
    return 0;
  }
  if (f->len && !continues(f, e, mode, off))
    if (pario_buf_flush(f, WHY_SWITCH) != 0) return -1;
  if (f->len + n > piece)
    if (pario_buf_flush(f, WHY_FULL) != 0) return -1;
  if (!f->buf) {
    f->buf = pario_buf_mem_get(f->cap);
    if (!f->buf) return 0; /* over the process's bound: written through */
  }
  if (!f->len) {
    f->mode = mode;
    f->wfd = fd;
    f->wofd = e->ofd;
    f->off = off;
    atomic_fetch_add(&pario_buf_npending, 1);
  }
  return 1;
}

static ssize_t through(struct bfile *f, int fd, int mode, int64_t off, const void *p, size_t n) {
  int64_t t0 = pario_ticks();
  ssize_t r = mode == RUN_POS ? PARIO_REAL(pwrite)(fd, p, n, (off_t)off) : PARIO_REAL(write)(fd, p, n);
  if (f->st) {
    f->st->direct++;
    f->st->sys_writes++;
    f->st->sys_ticks += pario_ticks() - t0;
    if (r > 0) f->st->sys_bytes += r;
  }
  return r;
}

ssize_t pario_buf_append(struct bfile *f, int fd, const struct bfd *e, int mode, int64_t off, const void *p, size_t n) {
  int err = pario_buf_take_error(f);
  if (err) {
    errno = err;
    return -1;
  }
  int r = room(f, fd, e, mode, off, n);
  if (r < 0) {
    pario_buf_take_error(f);
    return -1;
  }
  if (f->st) f->st->calls++, f->st->bytes += (int64_t)n;
  if (r == 0) return through(f, fd, mode, off, p, n);
  memcpy(f->buf + f->len, p, n);
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the bytes are in before the length says so */
  f->len += n;
  return (ssize_t)n;
}

ssize_t pario_buf_append_iov(struct bfile *f, int fd, const struct bfd *e, int mode, int64_t off, const struct iovec *iov,
                       int cnt) {
  size_t n = 0;
  for (int k = 0; k < cnt; k++) {
    if (iov[k].iov_len > SSIZE_MAX - n) {
      errno = EINVAL;
      return -1;
    }
    n += iov[k].iov_len;
  }
  int err = pario_buf_take_error(f);
  if (err) {
    errno = err;
    return -1;
  }
  int r = room(f, fd, e, mode, off, n);
  if (r < 0) {
    pario_buf_take_error(f);
    return -1;
  }
  if (f->st) f->st->calls++, f->st->bytes += (int64_t)n;
  if (r == 0) {
    int64_t t0 = pario_ticks();
    ssize_t w = mode == RUN_POS ? PARIO_REAL(pwritev)(fd, iov, cnt, (off_t)off) : PARIO_REAL(writev)(fd, iov, cnt);
    if (f->st) {
      f->st->direct++;
      f->st->sys_writes++;
      f->st->sys_ticks += pario_ticks() - t0;
      if (w > 0) f->st->sys_bytes += w;
    }
    return w;
  }
  for (int k = 0; k < cnt; k++) {
    memcpy(f->buf + f->len, iov[k].iov_base, iov[k].iov_len);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    f->len += iov[k].iov_len;
  }
  return (ssize_t)n;
}
