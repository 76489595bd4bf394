/* Memory-bound test: argv[2] files opened and written once each (1 x 10 B), then argv[3] writes of
 * 8 B to one file. With a small PARIO_PROFILE_MEM the log must fold files and drop trace events
 * loudly, while the totals stay exact. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int files = atoi(argv[2]), writes = atoi(argv[3]);
  char path[4096];
  for (int k = 0; k < files; k++) {
    snprintf(path, sizeof path, "%s/f%05d", argv[1], k);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    write(fd, "0123456789", 10);
    close(fd);
  }
  snprintf(path, sizeof path, "%s/hot.dat", argv[1]);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int k = 0; k < writes; k++) write(fd, "abcdefgh", 8);
  return close(fd) != 0;
}
