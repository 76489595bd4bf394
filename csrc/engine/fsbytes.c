/* Bytes moved at the file system, counted where the I/O libraries call it (see fsbytes.h).
 *
 * The engine defines write, pwrite, read, pread and their vector and 64-bit forms itself; the
 * link exports them (fsbytes.syms, --dynamic-list), so the MPI library, its dlopen'ed MPI-IO
 * component and the I/O libraries all call these first. Each passes the call on to the next
 * definition (libc's, found with dlsym(RTLD_NEXT)) and, while a phase is armed, adds the bytes
 * moved on a regular file of the case's file system. A descriptor's kind is learnt once per
 * phase (one fstat) and forgotten when it is closed. Not seen: asynchronous I/O (aio_*,
 * io_uring), mmap'ed files and copy_file_range; the front end says which layers use them. */
#define _GNU_SOURCE
#include "engine/fsbytes.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { KNOWN_FDS = 4096 };
static volatile int armed;
static dev_t device;
static uint64_t written, readb;
static signed char kind[KNOWN_FDS]; /* 0: not looked at this phase, 1: counted, -1: not */

static int regular_here(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == device;
}

static int counted(int fd) {
  if (!armed || fd < 0) return 0;
  if (fd >= KNOWN_FDS) return regular_here(fd);
  if (!kind[fd]) kind[fd] = regular_here(fd) ? 1 : -1;
  return kind[fd] > 0;
}

static void add(uint64_t *to, ssize_t n, int fd) {
  if (n > 0 && counted(fd)) __atomic_fetch_add(to, (uint64_t)n, __ATOMIC_RELAXED);
}

/* the next definition of NAME (libc's); resolved once, on first use */
#define NEXT(name)                           \
  static __typeof__(&name) next_##name;      \
  if (!next_##name) next_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n) {
  NEXT(write);
  ssize_t r = next_write(fd, buf, n);
  add(&written, r, fd);
  return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  NEXT(pwrite);
  ssize_t r = next_pwrite(fd, buf, n, off);
  add(&written, r, fd);
  return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
  NEXT(pwrite64);
  ssize_t r = next_pwrite64(fd, buf, n, off);
  add(&written, r, fd);
  return r;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  NEXT(writev);
  ssize_t r = next_writev(fd, iov, cnt);
  add(&written, r, fd);
  return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
  NEXT(pwritev);
  ssize_t r = next_pwritev(fd, iov, cnt, off);
  add(&written, r, fd);
  return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off) {
  NEXT(pwritev64);
  ssize_t r = next_pwritev64(fd, iov, cnt, off);
  add(&written, r, fd);
  return r;
}

ssize_t read(int fd, void *buf, size_t n) {
  NEXT(read);
  ssize_t r = next_read(fd, buf, n);
  add(&readb, r, fd);
  return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  NEXT(pread);
  ssize_t r = next_pread(fd, buf, n, off);
  add(&readb, r, fd);
  return r;
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
  NEXT(pread64);
  ssize_t r = next_pread64(fd, buf, n, off);
  add(&readb, r, fd);
  return r;
}

ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  NEXT(readv);
  ssize_t r = next_readv(fd, iov, cnt);
  add(&readb, r, fd);
  return r;
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off) {
  NEXT(preadv);
  ssize_t r = next_preadv(fd, iov, cnt, off);
  add(&readb, r, fd);
  return r;
}

ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off) {
  NEXT(preadv64);
  ssize_t r = next_preadv64(fd, iov, cnt, off);
  add(&readb, r, fd);
  return r;
}

int close(int fd) {
  NEXT(close);
  if (fd >= 0 && fd < KNOWN_FDS) kind[fd] = 0; /* the number may name another file next */
  return next_close(fd);
}

int pario_fsbytes_arm(const char *path) {
  char dir[4096];
  struct stat st;
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) *slash = 0;
  else if (slash) dir[1] = 0;
  else snprintf(dir, sizeof dir, ".");
  if (stat(dir, &st) != 0) return 0; /* not counted: the phase says so */
  device = st.st_dev;
  memset(kind, 0, sizeof kind);
  __atomic_store_n(&written, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&readb, 0, __ATOMIC_RELAXED);
  armed = 1;
  return 1;
}

void pario_fsbytes_disarm(uint64_t *w, uint64_t *r) {
  armed = 0;
  *w = __atomic_load_n(&written, __ATOMIC_RELAXED);
  *r = __atomic_load_n(&readb, __ATOMIC_RELAXED);
}

