/* Device ceiling: a short O_DIRECT write and read in DIR, so that rates above what the device can
 * do (page cache) can be flagged. `streams` threads each write and then read a file of their own at
 * the same time, as the ranks of a run do: one stream of a parallel device is not its ceiling
 * (two O_DIRECT ranks beat a single-stream probe on this machine's virtio disk). Prints one JSON
 * object on stdout. The files are allocated first and large requests are used, so that the
 * figure is an upper bound of what the device does (a low ceiling would call honest figures
 * "cache"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "engine/probe.h"
#include "pario/errors.h"

enum { CHUNK = 4 << 20, MAX_STREAMS = 64 };

typedef struct {
  char path[4200];
  int chunks, write; /* this pass: write or read */
  pthread_barrier_t *start;
  double t0, t1;
  int err; /* errno of the first failure */
  const char *what;
} stream;

static void *run_stream(void *arg) {
  stream *s = arg;
  void *buf = NULL;
  s->err = posix_memalign(&buf, 4096, CHUNK);
  if (!s->err)
    for (size_t k = 0; k < CHUNK; k++) ((unsigned char *)buf)[k] = (unsigned char)(k * 131u + 7u);
  int fd = -1;
  if (!s->err) {
    fd = s->write ? open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT, 0600) : open(s->path, O_RDONLY | O_DIRECT);
    if (fd < 0) s->err = errno, s->what = "open";
  }
  if (fd >= 0 && s->write && posix_fallocate(fd, 0, (off_t)s->chunks * CHUNK) == 0) fsync(fd);
  pthread_barrier_wait(s->start); /* every stream starts together, ready or not */
  s->t0 = pario_now();
  for (int k = 0; k < s->chunks && fd >= 0 && !s->err; k++) {
    ssize_t n = s->write ? pwrite(fd, buf, CHUNK, (off_t)k * CHUNK) : pread(fd, buf, CHUNK, (off_t)k * CHUNK);
    if (n != CHUNK) s->err = n < 0 ? errno : EIO, s->what = s->write ? "write" : "read";
  }
  if (fd >= 0 && s->write && !s->err && fsync(fd)) s->err = errno, s->what = "fsync";
  s->t1 = pario_now();
  if (fd >= 0) close(fd);
  free(buf);
  return NULL;
}

/* One pass (all streams write, or all read); the aggregate MiB/s from the first start to the last
 * end, or a negative PARIO_E_ code. */
static double pass(stream *s, int n, int write, int *rc) {
  pthread_t tid[MAX_STREAMS];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)n);
  for (int k = 0; k < n; k++) {
    s[k].write = write, s[k].start = &start, s[k].err = 0;
    pthread_create(&tid[k], NULL, run_stream, &s[k]);
  }
  double t0 = 1e300, t1 = 0, mib = 0;
  for (int k = 0; k < n; k++) {
    pthread_join(tid[k], NULL);
    if (s[k].t0 < t0) t0 = s[k].t0;
    if (s[k].t1 > t1) t1 = s[k].t1;
    mib += 4.0 * s[k].chunks;
  }
  pthread_barrier_destroy(&start);
  for (int k = 0; k < n && !*rc; k++)
    if (s[k].err)
      *rc = pario_err(pario_err_from_errno(s[k].err), "probe %s %s: %s", s[k].what, s[k].path, strerror(s[k].err));
  return t1 > t0 ? mib / (t1 - t0) : 0;
}

int pario_probe(const char *dir, int mib, int streams) {
  if (streams < 1) streams = 1;
  if (streams > MAX_STREAMS) streams = MAX_STREAMS;
  /* the same bytes in all: more streams share them, each moving at least one chunk */
  int per = (mib + 4 * streams - 1) / (4 * streams);
  stream s[MAX_STREAMS];
  memset(s, 0, sizeof s);
  for (int k = 0; k < streams; k++) {
    snprintf(s[k].path, sizeof s[k].path, "%s/pario.probe.%ld.%d", dir, (long)getpid(), k);
    s[k].chunks = per < 1 ? 1 : per;
  }
  /* O_DIRECT first, alone: a file system without it says so in one line */
  int fd = open(s[0].path, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT, 0600);
  if (fd < 0) {
    int e = errno;
    if (e == EINVAL) {
      printf("{\"odirect\":false,\"reason\":\"the file system does not support O_DIRECT\"}\n");
      return 0;
    }
    return pario_err(pario_err_from_errno(e), "probe %s: %s", s[0].path, strerror(e));
  }
  close(fd);
  unlink(s[0].path);
  int rc = 0;
  double w = pass(s, streams, 1, &rc), r = rc ? 0 : pass(s, streams, 0, &rc);
  for (int k = 0; k < streams; k++) unlink(s[k].path);
  if (rc) return rc;
  printf("{\"odirect\":true,\"bytes\":%llu,\"streams\":%d,\"write_mib\":%.1f,\"read_mib\":%.1f}\n",
         (unsigned long long)s[0].chunks * CHUNK * (unsigned long long)streams, streams, w, r);
  return 0;
}
