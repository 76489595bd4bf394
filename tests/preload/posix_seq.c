/* Known POSIX I/O: 100 sequential 4 KiB writes, a seek, 100 sequential 4 KiB reads.
 * Expected: WRITES 100, READS 100, CONSEC/SEQ 99 each way, SEEKS 1, RW_SWITCHES 1. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char path[4096], buf[4096];
  snprintf(path, sizeof path, "%s/seq.dat", argv[1]);
  memset(buf, 7, sizeof buf);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0) return 1;
  for (int k = 0; k < 100; k++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 2;
  if (lseek(fd, 0, SEEK_SET) != 0) return 3;
  for (int k = 0; k < 100; k++)
    if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 4;
  return close(fd) != 0;
}
