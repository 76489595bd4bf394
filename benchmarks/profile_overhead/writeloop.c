/* The overhead loop: COUNT calls of write() or fwrite() of SIZE bytes to PATH; prints the loop's
 * time per call in ns (process start, profiler start and log writing are outside the loop).
 * "fwritebuf" gives the stream a buffer larger than all the data, so no system call happens in
 * the loop and the profiler's own cost per call is not hidden in system-call noise. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s write|fwrite|fwritebuf SIZE COUNT PATH\n", argv[0]);
    return 2;
  }
  size_t size = strtoull(argv[2], NULL, 10);
  long count = atol(argv[3]);
  char *buf = malloc(size);
  memset(buf, 'x', size);
  double t0, t1;
  if (!strcmp(argv[1], "write")) {
    int fd = open(argv[4], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return 1;
    t0 = now();
    for (long k = 0; k < count; k++)
      if (write(fd, buf, size) != (ssize_t)size) return 1;
    t1 = now();
    close(fd);
  } else {
    FILE *f = fopen(argv[4], "w");
    if (!f) return 1;
    if (!strcmp(argv[1], "fwritebuf") && setvbuf(f, NULL, _IOFBF, size * count + 1) != 0) return 1;
    t0 = now();
    for (long k = 0; k < count; k++)
      if (fwrite(buf, 1, size, f) != size) return 1;
    t1 = now();
    fclose(f);
  }
  printf("%.3f\n", (t1 - t0) / count * 1e9);
  unlink(argv[4]);
  return 0;
}
