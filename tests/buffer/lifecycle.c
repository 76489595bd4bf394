/* The moments the buffer must write its data out (csrc/buffer/README.md, "pario buffer" in
 * README.md), one mode per run; tests/python/test_buffer_semantics.py and test_buffer_durability.py
 * check the files from outside.
 *
 *   lifecycle MODE DIR [N]
 *
 * stdio-MODE writes the same records with fwrite on a stream of the file (fdopen); "stream" does
 * so when its last argument is "stdio".
 * Records are 64 bytes: "WHO NUMBER" padded with dots and a newline, so a test can tell a lost,
 * doubled or misplaced record. A "ready" line on stdout (unbuffered) says when to look or signal. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REC 64
static char path[4096];
static FILE *out_fp; /* the "stdio" modes write their records through this stream */
extern char **environ;

static void rec(char *out, char who, long k) {
  memset(out, '.', REC);
  int n = snprintf(out, REC, "%c %010ld ", who, k);
  out[n] = '.';
  out[REC - 1] = '\n';
}

static void put(int fd, char who, long k) {
  char r[REC];
  rec(r, who, k);
  if (out_fp ? fwrite(r, 1, REC, out_fp) != REC : write(fd, r, REC) != REC) {
    fprintf(stderr, "lifecycle: write %c %ld: %s\n", who, k, strerror(errno));
    exit(4);
  }
}

static void say(const char *s) {
  if (write(1, s, strlen(s)) < 0) exit(5);
}

static volatile sig_atomic_t got;
static void on_sig(int sig) { got = sig; }

static void *thread_writer(void *arg) {
  long who = (long)arg;
  int fd = open(path, O_WRONLY | O_APPEND);
  for (long k = 0; k < 2000; k++) put(fd, (char)('a' + who), k);
  close(fd);
  return NULL;
}

struct one_fd {
  int fd;
  long who, count;
};
static void *one_fd_writer(void *arg) {
  struct one_fd *a = arg;
  for (long k = 0; k < a->count; k++) put(a->fd, (char)('a' + a->who), k);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const char *mode = argv[1];
  long n = argc > 3 ? atol(argv[3]) : 100;
  snprintf(path, sizeof path, "%s/data", argv[2]);
  setvbuf(stdout, NULL, _IONBF, 0);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) return 3;
  if (!strncmp(mode, "stdio-", 6)) { /* the same moments for records written with fwrite */
    out_fp = fdopen(fd, "w");
    if (!out_fp) return 3;
    mode += 6;
  }

  if (!strcmp(mode, "exit") || !strcmp(mode, "_exit") || !strcmp(mode, "return")) {
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    if (mode[0] == '_') _exit(0);
    if (mode[0] == 'e') exit(0);
    return 0; /* never closed */
  }
  if (!strcmp(mode, "exec")) { /* the program exec'd must find the bytes in the file */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "wc -c < '%s'", path);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    return 6;
  }
  if (!strcmp(mode, "fork")) { /* parent writes, child writes on the shared offset, parent goes on */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    pid_t pid = fork();
    if (pid == 0) {
      for (long k = 0; k < n; k++) put(fd, 'c', k);
      exit(0); /* no close: the child's own buffer goes at its exit, the parent's is not its to write */
    }
    waitpid(pid, NULL, 0);
    for (long k = n; k < 2 * n; k++) put(fd, 'p', k);
    exit(0);
  }
  if (!strcmp(mode, "fork-both-exit")) { /* both exit with data pending, each in its own file too */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    pid_t pid = fork();
    char own[4200];
    snprintf(own, sizeof own, "%s.%s", path, pid == 0 ? "child" : "parent");
    int o = open(own, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (long k = 0; k < n; k++) put(o, pid == 0 ? 'c' : 'p', k);
    if (pid > 0) waitpid(pid, NULL, 0);
    exit(0);
  }
  if (!strcmp(mode, "system")) { /* a program started without fork sees the data */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "wc -c < '%s'", path);
    fflush(stdout);
    return system(cmd) == 0 ? 0 : 7;
  }
  if (!strcmp(mode, "spawn") || !strcmp(mode, "popen")) { /* programs started without fork() */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "wc -c < '%s'", path);
    if (mode[0] == 'p') {
      FILE *wc = popen(cmd, "r");
      char got[64] = "";
      if (!wc || !fgets(got, sizeof got, wc) || pclose(wc) != 0) return 7;
      say(got);
      return 0;
    }
    pid_t pid;
    char *args[] = {"sh", "-c", cmd, NULL};
    int status;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, args, environ) != 0) return 7;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 7;
  }
  if (!strcmp(mode, "stream")) { /* SIGTERM/SIGINT/SIGHUP while writing; "handled" installs a handler */
    if (argc > 4 && !strcmp(argv[argc - 1], "stdio")) out_fp = fdopen(fd, "w");
    if (argc > 4 && !strcmp(argv[4], "handled")) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_sig;
      sigaction(SIGTERM, &sa, NULL);
      sigaction(SIGINT, &sa, NULL);
      sigaction(SIGHUP, &sa, NULL);
    }
    char line[64];
    /* bounded, so that a signal that never comes (ignored where the test runs) cannot fill the
     * disk: 2,000,000 records are 128 MB */
    for (long k = 0; !got; k++) {
      if (k == 2000000) {
        say("never signalled\n");
        return 10;
      }
      put(fd, 'p', k);
      if (k % 1000 == 999) {
        snprintf(line, sizeof line, "ready %ld\n", k + 1);
        say(line);
      }
    }
    say("stopping\n");
    put(fd, 'z', 0); /* written after the signal was handled */
    return (out_fp ? fclose(out_fp) : close(fd)) == 0 ? 0 : 8;
  }
  if (!strcmp(mode, "kill")) { /* N records, then wait for SIGKILL */
    for (long k = 0; k < n; k++) put(fd, 'p', k);
    say("ready\n");
    for (;;) pause();
  }
  if (!strcmp(mode, "threads")) { /* 4 threads appending records to one file through their own fds */
    pthread_t t[4];
    for (long k = 0; k < 4; k++) pthread_create(&t[k], NULL, thread_writer, (void *)k);
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    return close(fd);
  }
  if (!strcmp(mode, "threads-one-fd")) { /* 4 threads on one descriptor (its shared offset) */
    pthread_t t[4];
    struct one_fd args[4];
    for (long k = 0; k < 4; k++) {
      args[k] = (struct one_fd){fd, k, n};
      pthread_create(&t[k], NULL, one_fd_writer, &args[k]);
    }
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    return close(fd);
  }
  return 2;
}
