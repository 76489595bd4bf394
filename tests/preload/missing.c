/* A wrapped function whose real symbol is missing (made so by PARIO_PROFILE_TEST_MISSING=fsync):
 * three fsync calls, each reported as "fsync -1 ENOSYS" or "fsync 0 -" on stdout, around two
 * 512 B writes that must still be profiled. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char path[4096], buf[512];
  snprintf(path, sizeof path, "%s/missing.dat", argv[1]);
  memset(buf, 3, sizeof buf);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) return 1;
  for (int k = 0; k < 3; k++) {
    if (k < 2 && write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 2;
    errno = 0;
    int rc = fsync(fd);
    printf("fsync %d %s\n", rc, rc == 0 ? "-" : errno == ENOSYS ? "ENOSYS" : strerror(errno));
  }
  return close(fd) != 0;
}
