/* POSIX: open/pwrite/pread/fsync/close. In a shared file, member 0 creates (truncating) and
 * the others open after it, like IOR, so that no late O_TRUNC destroys written data. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pario/backend.h"
#include "pario/errors.h"

typedef struct {
  pario_file pub;
  int fd;
} pfile;

static int fail(int e, const char *what, const char *path) {
  return pario_err(pario_err_from_errno(e), "%s %s: %s", what, path, strerror(e));
}

static int posix_open(const pario_file *a, pario_file **fh) {
  int flags = a->dir == PARIO_WRITE ? O_WRONLY : O_RDONLY;
  if (a->cs->odirect) flags |= O_DIRECT;
  int member = 0, fd = -1, e = 0;
  MPI_Comm_rank(a->comm, &member);
  if (a->dir == PARIO_WRITE && member == 0) {
    fd = open(a->path, flags | O_CREAT | (a->cs->use_existing ? 0 : O_TRUNC), 0644); /* -E: no truncation */
    e = errno;
  }
  if (a->dir == PARIO_WRITE) MPI_Barrier(a->comm);
  if (fd < 0 && !(a->dir == PARIO_WRITE && member == 0)) {
    fd = open(a->path, flags);
    e = errno;
  }
  if (fd < 0) return fail(e, "open", a->path);
  pfile *f = malloc(sizeof *f);
  if (!f) {
    close(fd);
    return pario_err(PARIO_E_NOMEM, "out of memory");
  }
  f->pub = *a;
  f->fd = fd;
  *fh = &f->pub;
  return 0;
}

static int posix_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  pfile *f = (pfile *)fh;
  char *p = buf;
  while (len) {
    ssize_t n = dir == PARIO_WRITE ? pwrite(f->fd, p, len, (off_t)offset) : pread(f->fd, p, len, (off_t)offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno, dir == PARIO_WRITE ? "pwrite" : "pread", f->pub.path);
    }
    if (n == 0)
      return pario_err(PARIO_E_SHORT, "%s %s: no progress at offset %llu (file too short?)",
                       dir == PARIO_WRITE ? "pwrite" : "pread", f->pub.path, (unsigned long long)offset);
    p += n;
    len -= (uint64_t)n;
    offset += (uint64_t)n;
  }
  return 0;
}

static int posix_sync(pario_file *fh) {
  pfile *f = (pfile *)fh;
  return fsync(f->fd) ? fail(errno, "fsync", f->pub.path) : 0;
}

static int posix_close(pario_file *fh) {
  pfile *f = (pfile *)fh;
  int rc = close(f->fd) ? fail(errno, "close", f->pub.path) : 0;
  free(f);
  return rc;
}

const pario_backend pario_backend_posix = {
    .abi = PARIO_BACKEND_ABI,
    .name = "posix",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_ODIRECT,
    .open = posix_open,
    .xfer = posix_xfer,
    .close = posix_close,
    .sync = posix_sync,
};
