/* Writes 10 x 4 KiB, says "ready" on stdout, then waits to be killed by SIGTERM.
 * With argument "handler" it installs its own SIGTERM handler, which prints "handled" and _exits 3
 * (exit() is not async-signal-safe: it could flush stdout twice): the profiler must write its log
 * and still run that handler. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_term(int sig) {
  const char msg[] = "handled\n";
  write(1, msg, sizeof msg - 1);
  _exit(3);
}

int main(int argc, char **argv) {
  char path[4096], buf[4096];
  memset(buf, 1, sizeof buf);
  snprintf(path, sizeof path, "%s/sig.dat", argv[1]);
  if (argc > 2 && !strcmp(argv[2], "handler")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
  }
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int k = 0; k < 10; k++) write(fd, buf, sizeof buf);
  printf("ready\n");
  fflush(stdout);
  for (;;) pause();
}
