/* The KAUST seed's worst case (issue 11): one process writing a file in many small records.
 *
 *   smallwrites [-n COUNT] [-s SIZE] [-m write|fwrite|fprintf|big] PATH
 *
 * Record k is SIZE bytes: its number ("%011lld "), then one letter repeated, then a newline, so
 * every mode writes the same bytes and a lost, doubled or misplaced record shows. write: one
 * write() per record; fwrite: one fwrite() per record on a stream; fprintf: one fprintf() line
 * per record; big: the same bytes in 1 MiB write() calls (the limit a buffer can reach).
 * Prints the open-to-close time (close included: a buffer that defers everything to close does
 * not look free) as "open_to_close_s=SECONDS bytes=N". Defaults: 2,000,000 records of 512 B.
 * "{rank}" in PATH becomes the rank a launcher gave the process (OMPI_COMM_WORLD_RANK, PMI_RANK
 * or SLURM_PROCID), so that `mpirun -n 4 smallwrites out.{rank}` writes a file per rank. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void record(char *out, long long k, int size) {
  char head[32];
  snprintf(head, sizeof head, "%011lld ", k);
  memcpy(out, head, 12);
  memset(out + 12, 'a' + (int)(k % 26), (size_t)size - 13);
  out[size - 1] = '\n';
}

static void die(const char *what, const char *path) {
  fprintf(stderr, "smallwrites: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

/* write() may write less than asked (a FUSE file system under memory pressure does): go on. */
static void write_all(int fd, const char *p, size_t n, const char *path) {
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) die("write failed on", path);
    p += k;
    n -= (size_t)k;
  }
}

int main(int argc, char **argv) {
  long long count = 2000000;
  int size = 512;
  const char *mode = "write";
  int opt;
  while ((opt = getopt(argc, argv, "n:s:m:")) != -1) {
    if (opt == 'n') count = atoll(optarg);
    else if (opt == 's') size = atoi(optarg);
    else if (opt == 'm') mode = optarg;
    else return 2;
  }
  if (optind != argc - 1 || size < 14 || size > (1 << 20) || count < 0) {
    fprintf(stderr, "usage: smallwrites [-n COUNT] [-s SIZE>=14] [-m write|fwrite|fprintf|big] PATH\n");
    return 2;
  }
  char path[4096];
  const char *arg = argv[optind], *at = strstr(arg, "{rank}");
  if (at) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    if (!r) r = getenv("SLURM_PROCID");
    snprintf(path, sizeof path, "%.*s%s%s", (int)(at - arg), arg, r ? r : "0", at + 6);
  } else {
    snprintf(path, sizeof path, "%s", arg);
  }
  char *rec = malloc((size_t)size), *fill[26];
  for (int c = 0; c < 26; c++) {
    fill[c] = malloc((size_t)size);
    memset(fill[c], 'a' + c, (size_t)size - 13);
    fill[c][size - 13] = 0;
  }
  double t0 = now();
  if (!strcmp(mode, "fwrite") || !strcmp(mode, "fprintf")) {
    FILE *fp = fopen(path, "w");
    if (!fp) die("cannot open", path);
    int f = mode[1] == 'p';
    for (long long k = 0; k < count; k++) {
      if (f) {
        if (fprintf(fp, "%011lld %s\n", k, fill[k % 26]) != size) die("fprintf failed on", path);
      } else {
        record(rec, k, size);
        if (fwrite(rec, (size_t)size, 1, fp) != 1) die("fwrite failed on", path);
      }
    }
    if (fclose(fp) != 0) die("fclose failed on", path);
  } else if (!strcmp(mode, "write") || !strcmp(mode, "big")) {
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) die("cannot open", path);
    if (mode[0] == 'w') {
      for (long long k = 0; k < count; k++) {
        record(rec, k, size);
        write_all(fd, rec, (size_t)size, path);
      }
    } else {
      size_t cap = 1 << 20, used = 0;
      char *big = malloc(cap + (size_t)size);
      for (long long k = 0; k < count; k++) {
        record(big + used, k, size);
        used += (size_t)size;
        if (used >= cap || k == count - 1) {
          size_t chunk = used >= cap ? cap : used;
          write_all(fd, big, chunk, path);
          memmove(big, big + chunk, used - chunk);
          used -= chunk;
        }
      }
    }
    if (close(fd) != 0) die("close failed on", path);
  } else {
    fprintf(stderr, "smallwrites: -m %s: choose write, fwrite, fprintf or big\n", mode);
    return 2;
  }
  printf("open_to_close_s=%.6f bytes=%lld\n", now() - t0, count * size);
  return 0;
}
