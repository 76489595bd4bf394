/* Device ceiling: a short O_DIRECT write and read of one file in DIR, so that rates above what
 * the device can do (page cache) can be flagged. Serial; prints one JSON object on stdout.
 * The file is allocated first and large requests are used, so that the figure is an upper bound
 * of what the device does (a low ceiling would call honest figures "cache"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "engine/probe.h"
#include "pario/errors.h"

static int say_no(const char *why) {
  printf("{\"odirect\":false,\"reason\":\"%s\"}\n", why);
  return 0;
}

int pario_probe(const char *dir, int mib) {
  enum { CHUNK = 4 << 20 };
  char path[4200];
  snprintf(path, sizeof path, "%s/pario.probe.%ld", dir, (long)getpid());
  void *buf = NULL;
  if (posix_memalign(&buf, 4096, CHUNK)) return pario_err(PARIO_E_NOMEM, "out of memory");
  for (size_t k = 0; k < CHUNK; k++) ((unsigned char *)buf)[k] = (unsigned char)(k * 131u + 7u);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT, 0600);
  if (fd < 0) {
    int e = errno;
    free(buf);
    if (e == EINVAL) return say_no("the file system does not support O_DIRECT");
    return pario_err(pario_err_from_errno(e), "probe %s: %s", path, strerror(e));
  }
  int rc = 0;
  int chunks = (mib + 3) / 4;
  if (posix_fallocate(fd, 0, (off_t)chunks * CHUNK) == 0) fsync(fd);
  double t0 = pario_now();
  for (int k = 0; k < chunks && !rc; k++)
    if (pwrite(fd, buf, CHUNK, (off_t)k * CHUNK) != CHUNK) rc = pario_err(pario_err_from_errno(errno), "probe write %s: %s", path, strerror(errno));
  if (!rc && fsync(fd)) rc = pario_err(pario_err_from_errno(errno), "probe fsync %s: %s", path, strerror(errno));
  double t1 = pario_now();
  close(fd);
  double t2 = 0, t3 = 0;
  if (!rc) {
    fd = open(path, O_RDONLY | O_DIRECT);
    if (fd < 0) rc = pario_err(pario_err_from_errno(errno), "probe open %s: %s", path, strerror(errno));
    t2 = pario_now();
    for (int k = 0; k < chunks && !rc; k++)
      if (pread(fd, buf, CHUNK, (off_t)k * CHUNK) != CHUNK) rc = pario_err(pario_err_from_errno(errno), "probe read %s: %s", path, strerror(errno));
    t3 = pario_now();
    if (fd >= 0) close(fd);
  }
  unlink(path);
  free(buf);
  if (rc) return rc;
  printf("{\"odirect\":true,\"bytes\":%llu,\"write_mib\":%.1f,\"read_mib\":%.1f}\n",
         (unsigned long long)chunks * CHUNK, 4.0 * chunks / (t1 - t0), 4.0 * chunks / (t3 - t2));
  return 0;
}
