/* See guard.h: the watching thread and the start of the cleaner. The thread sleeps between looks
 * (four a second) and never touches MPI, so the timed phases do not see it. */
#define _GNU_SOURCE
#include "engine/guard.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static struct {
  long pid;
  unsigned long long start;
  int seen; /* the front end was seen running from here: same pid namespace */
  char dir[4096], spec[4096], arg[4096], result[4096], exe[4096];
} g;

/* State (field 3) and start time (field 22) of /proc/PID/stat; 0 when pid does not exist. */
static int read_stat(long pid, char *state, unsigned long long *start) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
  /* after the name: state (field 3) ... starttime (field 22) */
  return p && sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", state,
                     start) == 2;
}

int pario_process_alive(long pid, unsigned long long start) {
  char state = 0;
  unsigned long long t = 0;
  return read_stat(pid, &state, &t) && state != 'Z' && state != 'X' && t == start;
}

static int same_host(const char *boot) {
  char buf[64] = "";
  int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  buf[strcspn(buf, "\n")] = 0;
  return boot[0] && !strcmp(buf, boot);
}

/* The cleaner, in a session of its own (the launcher's teardown must not end it), with nothing
 * inherited: its stdout and stderr would be the launcher's pipes, which may be gone. */
static void start_cleaner(void) {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t fa;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawn_file_actions_init(&fa);
  for (int fd = 0; fd < 3; fd++) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
  char *argv[] = {"pario-engine", "--orphaned", g.spec, g.result[0] ? g.result : "-", NULL};
  pid_t pid;
  posix_spawn(&pid, g.exe, &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
}

/* Whether this rank's session is the launcher's, as the front end's pid file names it: then the
 * front end, which started the launcher, ran in this pid namespace too. */
static int launcher_is_our_session(void) {
  char path[4200];
  long pid = 0;
  snprintf(path, sizeof path, "%s/launcher", g.dir);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  if (fscanf(f, "%ld", &pid) != 1) pid = 0;
  fclose(f);
  return pid > 0 && getsid(0) == (pid_t)pid;
}

/* Whether this rank's session leader is a launcher of this run: its command line names the spec
 * (g.arg, as the front end passed it). The front end writes the launcher's pid file only after the
 * launcher has started; killed in between, it leaves no pid file (or the previous launch's, after
 * the settings launch), and only this tells the ranks whose session to end. A launcher this rank
 * can see runs in this pid namespace, and so did the front end that started it. */
static int leader_is_launcher(void) {
  pid_t sid = getsid(0);
  if (sid <= 0 || sid == getpid()) return 0; /* a rank that leads its own session (srun's tasks) */
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)sid);
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  size_t cap = 1 << 16, len = 0, got;
  char *buf = malloc(cap + 1);
  while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0 && (len += got) == cap && cap < (1u << 22)) {
    char *more = realloc(buf, 2 * cap + 1);
    if (!more) break;
    buf = more;
    cap *= 2;
  }
  fclose(f);
  int found = 0;
  if (buf) buf[len] = 0; /* the arguments are NUL-separated: each is compared whole */
  for (size_t k = 0; buf && k < len && !found; k += strlen(buf + k) + 1) found = !strcmp(buf + k, g.arg);
  free(buf);
  return found;
}

/* Name the session leader in the pid file (as the front end would have) for the cleaner. */
static void write_pidfile(void) {
  char path[4200], tmp[4200], state = 0;
  unsigned long long start = 0;
  pid_t sid = getsid(0);
  if (!read_stat(sid, &state, &start)) return;
  snprintf(path, sizeof path, "%s/launcher", g.dir);
  snprintf(tmp, sizeof tmp, "%s/launcher.tmp", g.dir);
  FILE *f = fopen(tmp, "we");
  if (!f) return;
  fprintf(f, "%d %llu\n", (int)sid, start);
  if (fclose(f) == 0) rename(tmp, path);
}

static void *watch(void *arg) {
  struct timespec quarter = {0, 250000000};
  char lock[4200];
  struct stat st;
  for (;;) {
    if (g.seen) nanosleep(&quarter, NULL);
    if (pario_process_alive(g.pid, g.start)) {
      g.seen = 1;
      continue;
    }
    if (stat(g.dir, &st)) return NULL; /* it ended normally and removed its directory */
    /* gone before this rank could see it (killed during MPI start-up), or never visible from here
       (another pid namespace on the same host): only the launcher's session tells them apart */
    int named = launcher_is_our_session(), leader = !named && leader_is_launcher();
    if (!g.seen && !named && !leader) return NULL;
    snprintf(lock, sizeof lock, "%s/orphaned", g.dir);
    int fd = open(lock, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return NULL; /* another rank started the cleaner */
    close(fd);
    if (leader) write_pidfile(); /* the front end died before it wrote it (or this launch's) */
    start_cleaner();
    return NULL;
  }
}

void pario_guard_start(const pario_run *run, const char *spec_path, const char *result_path) {
  if (run->guard_pid <= 0 || !run->guard_dir[0] || !same_host(run->guard_boot)) return;
  ssize_t n = readlink("/proc/self/exe", g.exe, sizeof g.exe - 1);
  if (n <= 0 || !realpath(spec_path, g.spec)) return;
  g.exe[n] = 0;
  snprintf(g.arg, sizeof g.arg, "%s", spec_path);
  if (result_path && !realpath(result_path, g.result)) snprintf(g.result, sizeof g.result, "%s", result_path);
  g.pid = run->guard_pid;
  g.start = run->guard_start;
  snprintf(g.dir, sizeof g.dir, "%s", run->guard_dir);
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 64 * 1024);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old); /* signals go to the main thread, as before */
  pthread_create(&t, &a, watch, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&a);
}
