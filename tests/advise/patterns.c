/* I/O patterns with a known defect, and near-misses without it, for the pario advise tests.
 *
 *   patterns MODE DIR [N]    writes (and reads) files under DIR; N: how many requests for
 *                            small-writes and mib-writes (20000 and 16 by default), files
 *                            for many-files (300)
 *   patterns coalesced DIR N SIZE   the bytes of small-writes N in SIZE-byte writes (the fix
 *                            applied by hand, for benchmarks/advise)
 *   patterns sparse|dense DIR       4 KiB every 64 KiB (holes between), or back to back
 *   patterns stdio-flush DIR stdio-small's 20000 lines, each flushed (stdio-small's stream joins
 *                            them into st_blksize writes: its near-miss)
 *   patterns small-wait DIR  small-writes, then sleeps the seconds written in DIR/wait_s
 *
 * Each defect mode has a near-miss that does the same work the right way; the tests profile
 * both with `pario profile` and check that the finding appears for the first and not for the
 * second. Sizes are small: every mode runs in well under a second. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1 << 20)

static char *buf;

static int must(int ok, const char *what) {
  if (!ok) { perror(what); exit(1); }
  return ok;
}

static int create(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  must(fd >= 0, path);
  return fd;
}

static void writes(int fd, size_t size, long n, int sync_each) {
  for (long i = 0; i < n; i++) {
    must(write(fd, buf, size) == (ssize_t)size, "write");
    if (sync_each) must(fsync(fd) == 0, "fsync");
  }
}

static void reads(int fd, size_t size, long n) {
  must(lseek(fd, 0, SEEK_SET) == 0, "lseek");
  for (long i = 0; i < n; i++) must(read(fd, buf, size) == (ssize_t)size, "read");
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: patterns MODE DIR\n"); return 2; }
  const char *m = argv[1], *dir = argv[2];
  long count = argc > 3 ? atol(argv[3]) : 0;
  buf = malloc(8 * MIB);
  memset(buf, 'x', 8 * MIB);
  int fd;
  if (!strcmp(m, "small-writes")) {            /* 20000 x 512 B, in order */
    fd = create(dir, "out"); writes(fd, 512, count ? count : 20000, 0); close(fd);
  } else if (!strcmp(m, "mib-writes")) {       /* near-miss: exactly 1 MiB, aligned, in order */
    fd = create(dir, "out"); writes(fd, MIB, count ? count : 16, 0); close(fd);
  } else if (!strcmp(m, "small-reads")) {      /* 8 MiB read 512 B at a time */
    fd = create(dir, "in"); writes(fd, MIB, 8, 0); reads(fd, 512, 16384); close(fd);
  } else if (!strcmp(m, "mib-reads")) {
    fd = create(dir, "in"); writes(fd, MIB, 8, 0); reads(fd, MIB, 8); close(fd);
  } else if (!strcmp(m, "stdio-small") || !strcmp(m, "stdio-big") || !strcmp(m, "stdio-flush")) {
    char path[4096];
    snprintf(path, sizeof path, "%s/log.txt", dir);
    FILE *f = fopen(path, "w");
    must(f != NULL, path);
    int flush = m[6] == 'f'; /* each line flushed: every one a write(2) */
    if (m[6] != 'b')
      for (int i = 0; i < 20000; i++) {
        fprintf(f, "step %6d value %12.6f\n", i, i * 0.5);
        if (flush) must(fflush(f) == 0, "fflush");
      }
    else for (int i = 0; i < 8; i++) must(fwrite(buf, 1, MIB, f) == MIB, "fwrite");
    fclose(f);
  } else if (!strcmp(m, "small-wait")) { /* small-writes, then the seconds in DIR/wait_s (none if
                                            absent): a re-run by pario advise --verify that lasts
                                            long enough to be killed during */
    fd = create(dir, "out"); writes(fd, 512, 20000, 0); close(fd);
    char path[4096];
    snprintf(path, sizeof path, "%s/wait_s", dir);
    FILE *w = fopen(path, "r");
    int secs = 0;
    if (w) { if (fscanf(w, "%d", &secs) != 1) secs = 0; fclose(w); }
    if (secs > 0) sleep((unsigned)secs);
  } else if (!strcmp(m, "coalesced")) {
    long total = 512 * count, size = argc > 4 ? atol(argv[4]) : MIB;
    if (size > 8 * MIB) size = 8 * MIB;
    fd = create(dir, "out");
    for (long done = 0; done < total; done += size) {
      size_t n = (size_t)(total - done < size ? total - done : size);
      must(write(fd, buf, n) == (ssize_t)n, "write");
    }
    close(fd);
  } else if (!strcmp(m, "sparse") || !strcmp(m, "dense")) {
    fd = create(dir, "out");
    for (long i = 0; i < 4096; i++)
      must(pwrite(fd, buf, 4096, i * (m[0] == 's' ? 65536 : 4096)) == 4096, "pwrite");
    close(fd);
  } else if (!strcmp(m, "misaligned")) {       /* 1 MiB + 512 B requests: every one crosses a block */
    fd = create(dir, "out"); writes(fd, MIB + 512, 16, 0); close(fd);
  } else if (!strcmp(m, "random") || !strcmp(m, "ordered")) {
    fd = create(dir, "out");
    long n = 2048, *slot = malloc(n * sizeof *slot);
    for (long i = 0; i < n; i++) slot[i] = i;
    if (m[0] == 'r') {                          /* a fixed permutation: the same run every time */
      srand(7);
      for (long i = n - 1; i > 0; i--) { long j = rand() % (i + 1), t = slot[i]; slot[i] = slot[j]; slot[j] = t; }
    }
    for (long i = 0; i < n; i++) must(pwrite(fd, buf, 4096, slot[i] * 4096) == 4096, "pwrite");
    close(fd);
  } else if (!strcmp(m, "reread") || !strcmp(m, "read-once")) {  /* 4 MiB read 5 times, or once */
    fd = create(dir, "in"); writes(fd, MIB, 4, 0);
    for (int k = 0; k < (m[2] == 'r' ? 5 : 1); k++) reads(fd, MIB, 4);
    close(fd);
  } else if (!strcmp(m, "readback") || !strcmp(m, "write-only")) {
    fd = create(dir, "out"); writes(fd, MIB, 4, 0);
    if (m[0] == 'r') reads(fd, MIB, 4);
    close(fd);
  } else if (!strcmp(m, "sync-each") || !strcmp(m, "sync-once")) {
    fd = create(dir, "out"); writes(fd, 65536, 64, m[5] == 'e');
    if (m[5] == 'o') must(fsync(fd) == 0, "fsync");
    close(fd);
  } else if (!strcmp(m, "many-files") || !strcmp(m, "one-file")) {
    int n = count ? (int)count : 300, files = m[0] == 'm' ? n : 1;
    for (int i = 0; i < files; i++) {     /* the same bytes either way: n x 8 KiB */
      char name[64];
      snprintf(name, sizeof name, "f%06d", i);
      fd = create(dir, name); writes(fd, 8192, n / files, 0); close(fd);
    }
  } else if (!strcmp(m, "reopen") || !strcmp(m, "open-once")) {  /* 200 writes, reopening before each */
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    must(fd >= 0, path);
    for (int i = 0; i < 200; i++) {
      if (m[0] == 'r' && i) { close(fd); fd = open(path, O_WRONLY | O_APPEND); must(fd >= 0, path); }
      must(write(fd, buf, 65536) == 65536, "write");
    }
    close(fd);
  } else if (!strcmp(m, "stat-each") || !strcmp(m, "stat-once")) {
    fd = create(dir, "out");
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/out", dir);
    for (int i = 0; i < 200; i++) {
      if (m[5] == 'e' || i == 0) must(stat(path, &st) == 0, "stat");
      must(write(fd, buf, 65536) == 65536, "write");
    }
    close(fd);
  } else {
    fprintf(stderr, "patterns: unknown mode %s\n", m);
    return 2;
  }
  free(buf);
  return 0;
}
