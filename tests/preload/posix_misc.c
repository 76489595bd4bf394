/* Known POSIX I/O with random, misaligned and exactly-1-MiB accesses, vectors, syncs and
 * metadata (every stat symbol glibc 2.33+ exports). Expected counts are in test_profile_posix.py. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char a[4096], b[4096], d[4096];
  snprintf(a, sizeof a, "%s/misc.dat", argv[1]);
  snprintf(b, sizeof b, "%s/renamed.dat", argv[1]);
  snprintf(d, sizeof d, "%s/newdir", argv[1]);
  char *big = calloc(1, 1 << 20);
  char small[1000];
  memset(small, 1, sizeof small);
  int fd = open(a, O_CREAT | O_RDWR | O_TRUNC, 0644);
  /* 10 pwrites of 1000 B at descending offsets 9001, 8001, ..., 1: random and misaligned */
  for (int k = 9; k >= 0; k--) pwrite(fd, small, sizeof small, (off_t)k * 1000 + 1);
  pwrite(fd, big, 1 << 20, 1 << 20);            /* exactly 1 MiB, aligned */
  pwrite(fd, big, (1 << 20) - 1, 4 << 20);       /* one byte less: a "small" request */
  struct iovec iov[2] = {{small, 500}, {small, 300}};
  pwritev(fd, iov, 2, 8 << 20);                  /* one vector write of 800 B */
  char rb[1000];
  preadv(fd, (struct iovec[]){{rb, 1000}}, 1, 1); /* one vector read */
  pread(fd, rb, 1000, 1);
  fsync(fd);
  fdatasync(fd);
  ftruncate(fd, 9 << 20);
  void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (m != MAP_FAILED) munmap(m, 4096);
  struct stat st;
  struct statx sx;
  stat(a, &st);
  lstat(a, &st);
  fstat(fd, &st);
  fstatat(AT_FDCWD, a, &st, 0);
  statx(AT_FDCWD, a, 0, STATX_SIZE, &sx);
  close(fd);
  rename(a, b);
  mkdir(d, 0755);
  unlink(b);
  rmdir(d);
  free(big);
  return 0;
}
