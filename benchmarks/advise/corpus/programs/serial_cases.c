/* Serial programs of the advise corpus (benchmarks/advise/corpus), each doing one thing whose
 * truth is written in the corpus: tests/advise/patterns.c holds the others.
 *
 *   serial_cases MODE DIR
 *
 * seek-write   4096 records of 4 KiB, each written by lseek to its slot then write(); the slots
 *              are every other 4 KiB (a record, a gap): every seek moves away from the last end
 * seek-cur     as IOR's POSIX backend does: lseek to the offset the file is already at, then
 *              write(), 16384 transfers of 512 B in order
 * pwrite-gap   seek-write's records written with pwrite (no seek): the fix of seek-write
 * stderr-note  16 writes of 1 MiB to DIR/out, then one 18-byte line to stderr
 * small-odd    20000 write() calls of 700 B in order (small, and not aligned to any block)
 * small-once   the same 14,000,000 bytes in one write() */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static void must(int ok, const char *what) {
  if (!ok) { perror(what); exit(1); }
}

static int create(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  must(fd >= 0, path);
  return fd;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: serial_cases MODE DIR\n"); return 2; }
  const char *m = argv[1], *dir = argv[2];
  char *buf = malloc(16 * MIB);
  must(buf != NULL, "malloc");
  memset(buf, 'x', 16 * MIB);
  int fd = create(dir, "out");
  if (!strcmp(m, "seek-write") || !strcmp(m, "pwrite-gap")) {
    for (long i = 0; i < 4096; i++) {
      off_t off = (off_t)i * 8192;
      if (m[0] == 's') {
        must(lseek(fd, off, SEEK_SET) == off, "lseek");
        must(write(fd, buf, 4096) == 4096, "write");
      } else {
        must(pwrite(fd, buf, 4096, off) == 4096, "pwrite");
      }
    }
  } else if (!strcmp(m, "seek-cur")) {
    for (long i = 0; i < 16384; i++) {
      off_t off = (off_t)i * 512;
      must(lseek(fd, off, SEEK_SET) == off, "lseek");
      must(write(fd, buf, 512) == 512, "write");
    }
  } else if (!strcmp(m, "stderr-note")) {
    for (int i = 0; i < 16; i++) must(write(fd, buf, MIB) == MIB, "write");
    fputs("wrote 16 MiB - ok\n", stderr);   /* 17 characters and the newline: 18 bytes */
  } else if (!strcmp(m, "small-odd")) {
    for (long i = 0; i < 20000; i++) must(write(fd, buf, 700) == 700, "write");
  } else if (!strcmp(m, "small-once")) {
    must(write(fd, buf, 20000 * 700) == 20000 * 700, "write");
  } else {
    fprintf(stderr, "serial_cases: unknown mode %s\n", m);
    return 2;
  }
  must(close(fd) == 0, "close");
  free(buf);
  return 0;
}
