/* Histogram edges and the exact size table (test_profile_hotpath.py holds the expectations).
 * edges.dat: one write() of every size in SIZES, in order, then 3 more of 100 B.
 * alt.dat:   5, 6, 5, 6, 5 and one 0 B write (the size table's last-match shortcut).
 * zero.dat:  0, 0, 3 (a 0 B write on an empty size table). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const long SIZES[] = {0, 1, 99, 100, 101, 1023, 1024, 1025, 10239, 10240, 102399, 102400,
                             1048575, 1048576, 1048577, 4194303, 4194304, 10485760};

static int writes(const char *dir, const char *name, const long *sizes, int n, const char *buf) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) return 1;
  for (int k = 0; k < n; k++)
    if (write(fd, buf, (size_t)sizes[k]) != (ssize_t)sizes[k]) return 1;
  return close(fd);
}

int main(int argc, char **argv) {
  char *buf = calloc(1, 10485760);
  long edges[sizeof SIZES / sizeof *SIZES + 3];
  int n = 0;
  for (; n < (int)(sizeof SIZES / sizeof *SIZES); n++) edges[n] = SIZES[n];
  for (int k = 0; k < 3; k++) edges[n++] = 100;
  const long alt[] = {5, 6, 5, 6, 5, 0}, zero[] = {0, 0, 3};
  if (!buf || writes(argv[1], "edges.dat", edges, n, buf) || writes(argv[1], "alt.dat", alt, 6, buf) ||
      writes(argv[1], "zero.dat", zero, 3, buf))
    return 1;
  return 0;
}
