/* Life of the profiler inside a process: settings, clock, start, fork, signals, exec and exit.
 *
 * The log is written at exit (destructor and _exit), before exec, at MPI_Finalize, and on
 * SIGTERM/SIGINT, where the program's own handler (or the default action) runs afterwards. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profile/profile.h"

atomic_int pario_active;
__thread int pario_guard __attribute__((tls_model("initial-exec")));
struct pario_settings pario_cfg;
struct pario_proc pario_proc;

int pario_use_tsc;
static int64_t tick0;
static double mono0, epoch0, tick_s = 1e-9;
static atomic_int shut_down;
static int ready; /* records exist: there is something to write */

static double clock_sec(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int64_t pario_ticks_slow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Seconds per tick from the TSC against CLOCK_MONOTONIC since start: cheap on the hot path,
 * exact enough once a millisecond has passed (waited for only by very short programs). */
void pario_calibrate(void) {
#if defined(__x86_64__)
  if (!pario_use_tsc) return;
  double m;
  int64_t t;
  do {
    m = clock_sec(CLOCK_MONOTONIC);
    t = pario_ticks();
  } while (m - mono0 < 1e-3);
  if (t > tick0) tick_s = (m - mono0) / (double)(t - tick0);
#endif
}
double pario_tick_seconds(void) { return tick_s; }

/* The TSC is a clock only if it ticks at one rate in every P-state and C-state: the kernel says
 * so with both constant_tsc and nonstop_tsc. Read with raw system calls (our wrappers are live). */
static int tsc_invariant(void) {
#if defined(__x86_64__)
  char buf[8192];
  int fd = (int)syscall(SYS_open, "/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *flags = strstr(buf, "\nflags");
  if (!flags) return 0;
  char *eol = strchr(flags + 1, '\n');
  if (eol) *eol = 0;
  return strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
#else
  return 0;
#endif
}
double pario_ticks_to_epoch(double t) { return epoch0 + (t - (double)tick0) * tick_s; }

/* ---- missing real symbols: that wrapper is off, said once per name ---- */
/* Test hook: PARIO_PROFILE_TEST_MISSING=name makes that one symbol look missing. */
static const char *test_missing;
void *pario_real(const char *name) {
  static const char *told[64];
  static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
  void *p = test_missing && !strcmp(name, test_missing) ? NULL : dlsym(RTLD_NEXT, name);
  if (p) return p;
  pthread_mutex_lock(&lk);
  int k, seen = 0;
  for (k = 0; k < 64 && told[k]; k++)
    if (told[k] == name) seen = 1;
  if (!seen && k < 64) {
    told[k] = name;
    char msg[256];
    int n = snprintf(msg, sizeof msg, "pario-preload: %s not found after the profiler; calls to it fail with ENOSYS and are not profiled\n", name);
    syscall(SYS_write, 2, msg, (size_t)n);
  }
  pthread_mutex_unlock(&lk);
  return NULL;
}

static size_t env_size(const char *name, size_t dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  double x = strtod(v, &end);
  if (x <= 0) return dflt;
  double mul = 1024.0 * 1024; /* plain numbers are MiB */
  if (*end == 'k' || *end == 'K') mul = 1024;
  else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024;
  else if (*end == 'b' || *end == 'B') mul = 1;
  return (size_t)(x * mul);
}

static void read_settings(void) {
  const char *v = getenv("PARIO_PROFILE_DIR");
  if (v && *v) snprintf(pario_cfg.dir, sizeof pario_cfg.dir, "%s", v);
  else snprintf(pario_cfg.dir, sizeof pario_cfg.dir, "/tmp/pario-profile-%u", (unsigned)getuid());
  pario_cfg.mem_bound = env_size("PARIO_PROFILE_MEM", 64u << 20);
  if (pario_cfg.mem_bound < (1u << 20)) pario_cfg.mem_bound = 1u << 20;
  v = getenv("PARIO_PROFILE_TRACE");
  pario_cfg.trace = v && *v && strcmp(v, "0") != 0;
  v = getenv("PARIO_PROFILE_MEMALIGN");
  pario_cfg.mem_align = v && atoi(v) > 0 ? atoi(v) : 8;
  v = getenv("PARIO_PROFILE_VERBOSE");
  pario_cfg.verbose = v && *v && strcmp(v, "0") != 0;
  v = getenv("PARIO_PROFILE_EXCLUDE");
  snprintf(pario_cfg.exclude, sizeof pario_cfg.exclude, "%s",
           v ? v : "/proc/:/sys/:/dev/:/etc/:/usr/:/lib/:/lib64/:/bin/:/sbin/:/boot/:/run/");
}

/* ---- signals ---- */
static struct sigaction app_act[2]; /* the program's SIGTERM / SIGINT dispositions */
static int hooked[2];
static int sigslot(int sig) { return sig == SIGTERM ? 0 : sig == SIGINT ? 1 : -1; }

static void on_signal(int sig, siginfo_t *si, void *uc) {
  int s = sigslot(sig);
  if (!atomic_exchange(&shut_down, 1)) {
    atomic_store(&pario_active, 0);
    pario_calibrate();
    pario_log_write("signal", 1, 1);
    atomic_store(&shut_down, 0); /* the program may live on and exit normally */
    atomic_store(&pario_active, 1);
  }
  struct sigaction *a = &app_act[s];
  if (a->sa_flags & SA_SIGINFO) {
    if (a->sa_sigaction) a->sa_sigaction(sig, si, uc);
  } else if (a->sa_handler == SIG_IGN) {
    return;
  } else if (a->sa_handler == SIG_DFL) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
    raise(sig); /* blocked until this handler returns, then the default action ends the process */
  } else {
    a->sa_handler(sig);
  }
}

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static void hook_signals(void) {
  if (!PARIO_REAL(sigaction)) return;
  int sigs[2] = {SIGTERM, SIGINT};
  for (int k = 0; k < 2; k++) {
    struct sigaction cur, mine;
    if (real_sigaction(sigs[k], NULL, &cur) != 0 || (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN))
      continue; /* an ignored signal stays ignored (nohup, background jobs) */
    memset(&mine, 0, sizeof mine);
    mine.sa_sigaction = on_signal;
    mine.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&mine.sa_mask);
    app_act[k] = cur;
    if (real_sigaction(sigs[k], &mine, NULL) == 0) hooked[k] = 1;
  }
}

/* The program installing its own SIGTERM/SIGINT handler: keep ours first, chain to theirs. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  int s = sigslot(sig);
  if (!PARIO_REAL(sigaction)) { errno = ENOSYS; return -1; }
  if (s < 0 || !hooked[s]) return real_sigaction(sig, act, old);
  if (old) *old = app_act[s];
  if (act) app_act[s] = *act;
  return 0;
}

sighandler_t signal(int sig, sighandler_t h) {
  int s = sigslot(sig);
  static sighandler_t (*real_signal)(int, sighandler_t);
  if (s < 0 || !hooked[s]) {
    if (!PARIO_REAL(signal)) { errno = ENOSYS; return SIG_ERR; }
    return real_signal(sig, h);
  }
  sighandler_t prev = (app_act[s].sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))app_act[s].sa_sigaction : app_act[s].sa_handler;
  memset(&app_act[s], 0, sizeof app_act[s]);
  app_act[s].sa_handler = h;
  app_act[s].sa_flags = SA_RESTART;
  return prev;
}

/* ---- fork ---- */
static void after_fork_child(void) {
  pario_proc.ppid_fork = pario_proc.pid;
  pario_proc.pid = getpid();
  pario_proc.rank = -1; /* a child of a rank is not a rank */
  pario_proc.nprocs = 0;
  pario_proc.start_epoch = clock_sec(CLOCK_REALTIME);
  pario_records_reset_after_fork();
}

/* ---- start and end ---- */
__attribute__((constructor)) static void pario_init(void) {
  const char *off = getenv("PARIO_PROFILE_DISABLE");
  read_settings();
  pario_proc.rank = -1;
  pario_proc.pid = getpid();
  gethostname(pario_proc.host, sizeof pario_proc.host - 1);
  test_missing = getenv("PARIO_PROFILE_TEST_MISSING");
  const char *notsc = getenv("PARIO_PROFILE_TEST_NOTSC"); /* test hook: force the fallback clock */
  pario_use_tsc = !(notsc && *notsc && strcmp(notsc, "0") != 0) && tsc_invariant();
  mono0 = clock_sec(CLOCK_MONOTONIC);
  epoch0 = clock_sec(CLOCK_REALTIME);
  tick0 = pario_ticks();
  pario_proc.start_epoch = epoch0;
  if (off && *off && strcmp(off, "0") != 0) return;
  if (pario_records_init() != 0) {
    const char m[] = "pario-preload: cannot reserve the profiler's memory; profiling is off\n";
    syscall(SYS_write, 2, m, sizeof m - 1);
    return;
  }
  ready = 1;
  pthread_atfork(NULL, NULL, after_fork_child);
  hook_signals();
  atomic_store(&pario_active, 1);
}

void pario_shutdown(const char *reason, int partial) {
  if (atomic_exchange(&shut_down, 1)) return;
  if (!ready) return;
  atomic_store(&pario_active, 0);
  pario_calibrate();
  pario_log_write(reason, partial, 0);
}

__attribute__((destructor)) static void pario_fini(void) {
  if (atomic_load(&pario_active)) pario_shutdown("exit", 0);
}

void _exit(int status) {
  static void (*real__exit)(int);
  /* A vfork child shares our memory: leave the parent's state alone. */
  if (atomic_load(&pario_active) && getpid() == pario_proc.pid) pario_shutdown("exit", 0);
  if (PARIO_REAL(_exit)) real__exit(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

void _Exit(int status) { _exit(status); }

/* exec replaces the image: write what this image recorded first. A vfork child (Python's
 * subprocess, posix_spawn users) shares the parent's memory and must leave its state alone. */
static int vfork_child;
static void before_exec(void) {
  vfork_child = (pid_t)syscall(SYS_getpid) != pario_proc.pid;
  if (vfork_child || !atomic_load(&pario_active)) return;
  pario_shutdown("exec", 0);
}
static void exec_failed(void) {
  if (vfork_child) return;
  atomic_store(&shut_down, 0);
  atomic_store(&pario_active, 1);
}

int execve(const char *path, char *const argv[], char *const envp[]) {
  static int (*real_execve)(const char *, char *const[], char *const[]);
  if (!PARIO_REAL(execve)) { errno = ENOSYS; return -1; }
  before_exec();
  int rc = real_execve(path, argv, envp);
  int e = errno;
  exec_failed();
  errno = e;
  return rc;
}

int execv(const char *path, char *const argv[]) {
  static int (*real_execv)(const char *, char *const[]);
  if (!PARIO_REAL(execv)) { errno = ENOSYS; return -1; }
  before_exec();
  int rc = real_execv(path, argv);
  int e = errno;
  exec_failed();
  errno = e;
  return rc;
}

int execvp(const char *file, char *const argv[]) {
  static int (*real_execvp)(const char *, char *const[]);
  if (!PARIO_REAL(execvp)) { errno = ENOSYS; return -1; }
  before_exec();
  int rc = real_execvp(file, argv);
  int e = errno;
  exec_failed();
  errno = e;
  return rc;
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
  static int (*real_execvpe)(const char *, char *const[], char *const[]);
  if (!PARIO_REAL(execvpe)) { errno = ENOSYS; return -1; }
  before_exec();
  int rc = real_execvpe(file, argv, envp);
  int e = errno;
  exec_failed();
  errno = e;
  return rc;
}
