/* Several processes create one new file at once, as the ranks of a job do (tests/python/
 * test_profile_cephfs.py): create_race DIR ROUNDS PROCS makes DIR/rK/ for each of ROUNDS rounds, then
 * PROCS forked children open(DIR/rK/shared.dat, O_CREAT | O_WRONLY) together (released at once by a
 * closed pipe) and each pwrites 1 KiB at its own offset (child i at i KiB), then 1 KiB more through
 * a copy of the descriptor made by fcntl(F_DUPFD), which the profiler does not see opened (child i at
 * PROCS + i KiB); then DIR/"keep (deleted)", a file whose own name ends so, gets 1 KiB. Through
 * ceph-fuse a child's descriptor can be left on a directory entry the kernel dropped in the race:
 * /proc/self/fd then names the file "... (deleted)". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int rounds = atoi(argv[2]), procs = atoi(argv[3]), bad = 0;
  char buf[1024], path[4096];
  memset(buf, 'r', sizeof buf);
  for (int k = 0; k < rounds; k++) {
    snprintf(path, sizeof path, "%s/r%d", argv[1], k);
    if (mkdir(path, 0755)) return 3;
    snprintf(path, sizeof path, "%s/r%d/shared.dat", argv[1], k);
    int go[2];
    if (pipe(go)) return 4;
    for (int i = 0; i < procs; i++) {
      if (fork() == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 0) _exit(5);
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        if (fd < 0 || pwrite(fd, buf, sizeof buf, (off_t)i * sizeof buf) != sizeof buf) _exit(6);
        int copy = fcntl(fd, F_DUPFD, 0);
        if (copy < 0 || pwrite(copy, buf, sizeof buf, (off_t)(procs + i) * sizeof buf) != sizeof buf) _exit(7);
        if (close(copy) || close(fd)) _exit(8);
        _exit(0);
      }
    }
    close(go[0]);
    close(go[1]); /* every child's read returns at once */
    int status;
    while (wait(&status) > 0) bad |= !WIFEXITED(status) || WEXITSTATUS(status);
  }
  snprintf(path, sizeof path, "%s/keep (deleted)", argv[1]);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf || close(fd)) return 9;
  return bad;
}
