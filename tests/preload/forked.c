/* fork: the parent writes 10 x 100 B to parent.dat before and 10 after the fork; the child
 * writes 20 x 100 B to child.dat and 5 x 100 B to parent.dat (own open, O_APPEND), then _exit. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char p[4096], c[4096], buf[100];
  memset(buf, 'p', sizeof buf);
  snprintf(p, sizeof p, "%s/parent.dat", argv[1]);
  snprintf(c, sizeof c, "%s/child.dat", argv[1]);
  int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int k = 0; k < 10; k++) write(fd, buf, sizeof buf);
  pid_t pid = fork();
  if (pid == 0) {
    int cf = open(c, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int k = 0; k < 20; k++) write(cf, buf, sizeof buf);
    close(cf);
    int pf = open(p, O_WRONLY | O_APPEND);
    for (int k = 0; k < 5; k++) write(pf, buf, sizeof buf);
    close(pf);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  for (int k = 0; k < 10; k++) write(fd, buf, sizeof buf);
  close(fd);
  return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
