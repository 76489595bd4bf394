/* Cold reads in one run (pagecache.h). The files are named as everywhere else (pario_file_path);
 * each host handles every file of the case, one file per local rank in turn, so that a shared
 * file is evicted once per host and a file per process by its own host. */
#define _GNU_SOURCE
#include "engine/pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "engine/reduce.h"
#include "pario/errors.h"

static int evict_fd(int fd) {
  /* dirty pages cannot be dropped: write them first; DONTNEED then drops the clean ones */
  if (fsync(fd) && errno != EINVAL && errno != EROFS) return -1;
  int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (e) {
    errno = e;
    return -1;
  }
  return 0;
}

static int evict_file(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1; /* a file the pattern did not write (empty group) */
  int rc = evict_fd(fd);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

/* mincore over a read-only mapping, 1 GiB at a time so that the vector stays small */
static int count_file(const char *path, uint64_t *resident, uint64_t *pages) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  struct stat st;
  if (fstat(fd, &st)) {
    close(fd);
    return -1;
  }
  long pg = sysconf(_SC_PAGESIZE);
  const off_t window = (off_t)1 << 30;
  unsigned char *vec = malloc((size_t)(window / pg));
  int rc = vec ? 0 : -1;
  for (off_t at = 0; !rc && at < st.st_size; at += window) {
    size_t len = (size_t)(st.st_size - at < window ? st.st_size - at : window);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, at);
    if (map == MAP_FAILED) {
      rc = -1;
      break;
    }
    size_t n = (len + (size_t)pg - 1) / (size_t)pg;
    if (mincore(map, len, vec)) rc = -1;
    for (size_t k = 0; !rc && k < n; k++) *resident += vec[k] & 1;
    *pages += n;
    munmap(map, len);
  }
  free(vec);
  close(fd);
  return rc;
}

/* nftw has no user argument: the walk's state, one walk at a time (the engine is single-threaded) */
static struct {
  int count, failed;
  uint64_t *resident, *pages;
} walk;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f) {
  (void)st, (void)f;
  if (type != FTW_F) return 0;
  if ((walk.count ? count_file(path, walk.resident, walk.pages) : evict_file(path)) && !walk.failed)
    walk.failed = errno ? errno : EIO;
  return 0;
}

static int each(const char *path, int count, uint64_t *resident, uint64_t *pages) {
  struct stat st;
  if (stat(path, &st)) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return count ? count_file(path, resident, pages) : evict_file(path);
  walk.count = count, walk.failed = 0, walk.resident = resident, walk.pages = pages;
  if (nftw(path, visit, 16, FTW_PHYS)) return -1;
  errno = walk.failed;
  return walk.failed ? -1 : 0;
}

int pario_cache_evict_path(const char *path) { return each(path, 0, NULL, NULL); }

int pario_cache_count_path(const char *path, uint64_t *resident, uint64_t *pages) {
  return each(path, 1, resident, pages);
}

/* as root: everything clean in this host's page cache, not only the run's files */
static int drop_system(void) {
  sync();
  int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, "3\n", 2) != 2) {
    int e = errno;
    if (fd >= 0) close(fd);
    return pario_err(pario_err_from_errno(e),
                     "cannot write /proc/sys/vm/drop_caches (%s): it needs root on "
                     "every host; --drop-caches without 'all' evicts the run's own files as any user",
                     strerror(e));
  }
  close(fd);
  return 0;
}

int pario_cache_step(const pario_run *run, int ci, int nfiles, const pario_world *w, pario_cache_fig *out) {
  const pario_case *cs = &run->cases[ci];
  double t0 = pario_now();
  int rc = 0;
  uint64_t mine[3] = {(uint64_t)w->host_index, 0, 0}; /* host, resident pages, pages */
  char path[4200];
  MPI_Barrier(MPI_COMM_WORLD); /* the writers have closed their files */
  for (int f = w->host_rank; cs->evict && f < nfiles && !rc; f += w->host_size) {
    pario_file_path(run, ci, f, path, sizeof path);
    if (pario_cache_evict_path(path))
      rc = pario_err(pario_err_from_errno(errno), "evicting %s from the page cache: %s", path, strerror(errno));
  }
  rc = pario_agree(rc, w);
  if (!rc && cs->evict == PARIO_EVICT_SYSTEM && w->host_rank == 0) rc = drop_system();
  rc = pario_agree(rc, w);
  if (rc) return rc;
  int counted = 1;
  for (int f = w->host_rank; cs->residency && f < nfiles; f += w->host_size) {
    pario_file_path(run, ci, f, path, sizeof path);
    if (pario_cache_count_path(path, &mine[1], &mine[2])) counted = 0; /* a file system without mmap */
  }
  int all_counted;
  MPI_Allreduce(&counted, &all_counted, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  uint64_t *all = w->rank == 0 ? malloc(sizeof *all * 3 * (size_t)w->nranks) : NULL;
  MPI_Gather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (w->rank == 0) {
    memset(out, 0, sizeof *out);
    out->evicted = cs->evict;
    out->measured = cs->residency && all_counted && all;
    for (int h = 0; out->measured && h < w->nhosts; h++) {
      uint64_t res = 0, pages = 0;
      for (int r = 0; r < w->nranks; r++)
        if (all[r * 3] == (uint64_t)h) res += all[r * 3 + 1], pages += all[r * 3 + 2];
      out->resident += res;
      out->pages += pages;
      if (pages && (double)res / (double)pages > out->resident_max) out->resident_max = (double)res / (double)pages;
    }
    out->seconds = pario_now() - t0;
  }
  free(all);
  return 0;
}
