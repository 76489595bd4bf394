/* A deferred write that fails must be reported, where the kernel's write-back would report it:
 * by the next write, by fsync or by close (test_buffer_durability.py).
 *
 *   errors DIR LIMIT N SYNC      (SYNC: fsync, close or write)
 *
 * With LIMIT > 0 the file size is limited with RLIMIT_FSIZE (EFBIG, SIGXFSZ ignored), which any
 * user can do; with LIMIT 0 the file system fills (the test mounts a small tmpfs as DIR). Writes N
 * records of 512 bytes, then fsync (SYNC=fsync) and close, and prints every call that failed:
 * "write K errno E", "fsync errno E", "close errno E". */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  char path[4096], buf[512];
  snprintf(path, sizeof path, "%s/data", argv[1]);
  long limit = atol(argv[2]), n = atol(argv[3]);
  signal(SIGXFSZ, SIG_IGN);
  if (limit > 0) {
    struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 3;
  }
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) return 4;
  long failed = 0;
  for (long k = 0; k < n; k++) {
    memset(buf, 'a' + (int)(k % 26), sizeof buf);
    snprintf(buf, sizeof buf, "%010ld", k);
    buf[10] = ' ';
    ssize_t r = write(fd, buf, sizeof buf);
    if (r != (ssize_t)sizeof buf) {
      printf("write %ld %s %d\n", k, r < 0 ? "errno" : "short", r < 0 ? errno : (int)r);
      if (++failed > 3) break;
    }
  }
  if (!strcmp(argv[4], "fsync") && fsync(fd) != 0) printf("fsync errno %d\n", errno);
  if (close(fd) != 0) printf("close errno %d\n", errno);
  printf("done\n");
  return 0;
}
