/* The first touch of 1 GiB of fresh anonymous memory, right after freeing 1 GiB ("warm") and 6 s
 * later ("cold"): on a virtual machine whose balloon reports free memory to the host (virtio-balloon
 * free page reporting), the host discards reported blocks of 2 MiB and more, and touching them again
 * faults in the host. HUGE=1 in the environment maps with MADV_HUGEPAGE (2 MiB pages, the blocks
 * the page cache's large folios come from), else MADV_NOHUGEPAGE. RESULTS.md has the figures.
 *
 *   cc -O2 -o firsttouch benchmarks/buffer/firsttouch.c && HUGE=1 ./firsttouch */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double touch(size_t n) {
  char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("firsttouch: mmap");
    exit(1);
  }
  madvise(p, n, getenv("HUGE") ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  double t0 = now();
  for (size_t k = 0; k < n; k += 4096) p[k] = 1;
  double t = now() - t0;
  munmap(p, n);
  return t;
}

int main(void) {
  size_t n = (size_t)1 << 30;
  for (int r = 0; r < 4; r++) {
    touch(n); /* 1 GiB freed just now */
    double warm = touch(n);
    sleep(6);
    double cold = touch(n);
    printf("warm %.3f s  cold %.3f s\n", warm, cold);
    fflush(stdout);
  }
  return 0;
}
