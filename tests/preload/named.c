/* How the profiler names files (tests/python/test_profile_posix.py): named DIR
 *
 *   - creates DIR/sub/at.dat through openat() relative to a descriptor of DIR/sub, 4 KiB written;
 *   - creates DIR/sub/via.dat through a symbolic link DIR/link -> sub, 3 KiB written;
 *   - writes 2 KiB to DIR/stream.dat with fwrite on fdopen() of a descriptor it opened itself;
 *   - writes 1 KiB to a file without a name (O_TMPFILE in DIR; skipped where the file system
 *     has none, exit code 0 either way). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char buf[4096];

static int put(int fd, size_t n) { return fd >= 0 && write(fd, buf, n) == (ssize_t)n && close(fd) == 0 ? 0 : 1; }

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  char path[4096], link[4096];
  memset(buf, 'n', sizeof buf);
  snprintf(path, sizeof path, "%s/sub", argv[1]);
  if (mkdir(path, 0755)) return 3;
  int dir = open(path, O_RDONLY | O_DIRECTORY);
  if (dir < 0 || put(openat(dir, "at.dat", O_CREAT | O_WRONLY, 0644), 4096) || close(dir)) return 4;

  snprintf(link, sizeof link, "%s/link", argv[1]);
  if (symlink("sub", link)) return 5;
  snprintf(path, sizeof path, "%s/link/via.dat", argv[1]);
  if (put(open(path, O_CREAT | O_WRONLY, 0644), 3072)) return 6;

  snprintf(path, sizeof path, "%s/stream.dat", argv[1]);
  FILE *fp = fdopen(open(path, O_CREAT | O_WRONLY, 0644), "w");
  if (!fp || fwrite(buf, 1, 2048, fp) != 2048 || fclose(fp)) return 7;

  int tmp = open(argv[1], O_TMPFILE | O_WRONLY, 0600);
  if (tmp >= 0 && put(tmp, 1024)) return 8;
  return 0;
}
