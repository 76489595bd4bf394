/* odread FILE NPROC BLOCK_MIB MODE [RUN_PAGES [write|writenew]]: the shared-file O_DIRECT read (or, with
 * `write`, the write over the existing FILE; with `writenew`, to FILE removed first and created, as the tools'
 * write phases do, so with block allocation) of pario and IOR (NPROC
 * processes, process r reads [r*BLOCK, (r+1)*BLOCK) of FILE in 1 MiB pread64 calls, in order, all at once)
 * with the physical layout of each process's 1 MiB buffer chosen:
 *   plain   posix_memalign(4096) and first touch, as pario and IOR allocate (whatever pages come);
 *   thp     in a 2 MiB-aligned region madvised MADV_HUGEPAGE (one physically contiguous run if THP succeeds);
 *   pieces  RUN_PAGES-page pieces of a THP region, every other piece moved (mremap) next to each other in
 *           virtual memory: exactly 256/RUN_PAGES physically contiguous runs.
 * FILE containing %d: file per process (process r uses FILE with r in place of %d, from offset 0).
 * Prints each process's runs (from /proc/self/pagemap; needs root), i.e. the scatter-gather segments of
 * its 1 MiB requests, and the aggregate rate (last process's end - first's start).
 * Build: cc -O2 -o odread odread.c (benchmarks/odirect/RESULTS.md). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB (1L << 20)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* physically contiguous runs of the buffer's 256 pages */
static int runs(const char *buf) {
  int fd = open("/proc/self/pagemap", O_RDONLY), n = 0;
  uint64_t prev = 0;
  for (long i = 0; i < MB / 4096; i++) {
    uint64_t e = 0;
    if (pread(fd, &e, 8, (off_t)(((uintptr_t)buf / 4096 + (uintptr_t)i) * 8)) != 8) return -1;
    uint64_t pfn = e & ((1ULL << 55) - 1);
    if (i == 0 || pfn != prev + 1) n++;
    prev = pfn;
  }
  close(fd);
  return n;
}

static char *thp_region(void) { /* 2 MiB, aligned, asked to be one huge page, touched */
  char *m = mmap(NULL, 4 * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  char *h = (char *)(((uintptr_t)m + 2 * MB - 1) & ~(uintptr_t)(2 * MB - 1));
  madvise(h, 2 * MB, MADV_HUGEPAGE);
  memset(h, 1, 2 * MB);
  return h;
}

static char *buffer(const char *mode, long run_pages) {
  char *buf = NULL;
  if (!strcmp(mode, "thp")) return thp_region();
  if (!strcmp(mode, "pieces")) {
    char *h = thp_region();
    long piece = run_pages * 4096;
    if (!h || run_pages < 1 || MB % piece) return NULL;
    buf = mmap(NULL, MB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (long i = 0; i < MB / piece; i++) /* pieces 0, 2, 4, ...: not adjacent physically */
      if (mremap(h + 2 * i * piece, piece, piece, MREMAP_MAYMOVE | MREMAP_FIXED, buf + i * piece) == MAP_FAILED)
        return NULL;
    return buf;
  }
  return posix_memalign((void **)&buf, 4096, MB) ? NULL : buf;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: odread FILE NPROC BLOCK_MIB plain|thp|pieces [RUN_PAGES [write|writenew]]\n");
    return 2;
  }
  int np = atoi(argv[2]);
  long blk = atol(argv[3]), run_pages = argc > 5 ? atol(argv[5]) : 0;
  int wr = argc > 6 && !strncmp(argv[6], "write", 5), fresh = argc > 6 && !strcmp(argv[6], "writenew");
  int fpp = strstr(argv[1], "%d") != NULL;
  char path[4096];
  for (int r = 0; fresh && r < np; r++) {
    snprintf(path, sizeof path, argv[1], r); /* the format is the caller's own argument */
    unlink(path);
  }
  double *t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  for (int r = 0; r < np; r++) {
    if (fork()) continue;
    /* ODREAD_STAGGER_MS=N: process r allocates and first-touches its buffer r*N ms after the first, not
     * all at once (does the concurrency of the first touch decide the layout?) */
    const char *stag = getenv("ODREAD_STAGGER_MS");
    if (stag) usleep((useconds_t)(r * atoi(stag) * 1000));
    /* ODREAD_PRETOUCH_MB=N: fault N MiB of other memory first (kept), as a process with a larger footprint
     * does before it allocates its transfer buffer (does the footprint decide the layout?) */
    const char *pre = getenv("ODREAD_PRETOUCH_MB");
    if (pre && atol(pre) > 0) {
      char *junk = malloc((size_t)atol(pre) * MB);
      if (junk) memset(junk, 1, (size_t)atol(pre) * MB);
    }
    char *buf = buffer(argv[4], run_pages);
    snprintf(path, sizeof path, argv[1], r);
    long base = fpp ? 0 : (long)r * blk;
    int fd = open(path, (wr ? O_WRONLY : O_RDONLY) | O_DIRECT | (fresh ? O_CREAT : 0), 0644);
    if (!buf || fd < 0) {
      perror("odread: buffer or open");
      return 1;
    }
    memset(buf, r, MB);
    usleep(200000 + (stag ? (useconds_t)((np - 1 - r) * atoi(stag) * 1000) : 0)); /* all ready, then start */
    t[2 * r] = now();
    for (long i = 0; i < blk; i++)
      if ((wr ? pwrite(fd, buf, MB, (base + i) * MB) : pread(fd, buf, MB, (base + i) * MB)) != MB) {
        perror("odread: pread/pwrite");
        return 1;
      }
    t[2 * r + 1] = now();
    printf("  process %d: buffer in %d physically contiguous runs\n", r, runs(buf));
    return 0;
  }
  while (wait(NULL) > 0) {}
  double a = 1e300, b = 0;
  for (int r = 0; r < np; r++) {
    if (t[2 * r] < a) a = t[2 * r];
    if (t[2 * r + 1] > b) b = t[2 * r + 1];
  }
  printf("%s %s %ld: %.0f MiB/s (%d x %ld MiB in %.3f s)\n", wr ? "write" : "read", argv[4], run_pages,
         (double)(np * blk) / (b - a), np, blk, b - a);
  return 0;
}
