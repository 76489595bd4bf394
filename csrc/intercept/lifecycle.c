/* The life of the process image, told to every module (intercept.h): start, fork, signals, exec
 * and exit. MPI_Init and MPI_Finalize are in lifecycle_mpi.c.
 *
 * Modules stop at exit (destructor and _exit), before exec, and on SIGTERM/SIGINT/SIGHUP, where
 * the program's own handler (or the default action) runs afterwards. A signal that arrives while
 * the thread is inside a module's critical section (intercept.h) is held and raised again when
 * the section ends. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "intercept/modules.h"

__thread int pario_guard __attribute__((tls_model("initial-exec")));
__thread int pario_crit_depth __attribute__((tls_model("initial-exec")));
__thread volatile int pario_crit_pending __attribute__((tls_model("initial-exec")));
struct pario_proc pario_proc;

/* ---- signals ---- */
#define NHOOKED 3
static const int hooked_sigs[NHOOKED] = {SIGTERM, SIGINT, SIGHUP};
static struct sigaction app_act[NHOOKED]; /* the program's dispositions of those */
static int hooked[NHOOKED];
static int sigslot(int sig) { return sig == SIGTERM ? 0 : sig == SIGINT ? 1 : sig == SIGHUP ? 2 : -1; }

/* The signals held during a critical section, raised again at its end: to this thread, so that
 * the handler runs here, now outside the section. */
void pario_crit_deliver(void) {
  int held = pario_crit_pending;
  pario_crit_pending = 0;
  for (int s = 0; s < NHOOKED; s++)
    if (held & (1 << s)) syscall(SYS_tgkill, (pid_t)syscall(SYS_getpid), (pid_t)syscall(SYS_gettid), hooked_sigs[s]);
}

static void on_signal(int sig, siginfo_t *si, void *uc) {
  int s = sigslot(sig);
  if (pario_crit_depth) {
    pario_crit_pending |= 1 << s;
    return;
  }
  if (pario_modules_stop("signal", 1, 1)) pario_modules_resume(); /* the program may live on */
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

static void hook_signals(void) {
  __typeof__(sigaction) *real_sigaction = PARIO_REAL(sigaction);
  if (!real_sigaction) return;
  for (int k = 0; k < NHOOKED; k++) {
    struct sigaction cur, mine;
    if (real_sigaction(hooked_sigs[k], NULL, &cur) != 0 || (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN))
      continue; /* an ignored signal stays ignored (nohup, background jobs) */
    memset(&mine, 0, sizeof mine);
    mine.sa_sigaction = on_signal;
    mine.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&mine.sa_mask);
    app_act[k] = cur;
    if (real_sigaction(hooked_sigs[k], &mine, NULL) == 0) hooked[k] = 1;
  }
}

/* The program installing its own SIGTERM/SIGINT/SIGHUP handler: keep ours first, chain to theirs. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  int s = sigslot(sig);
  if (!PARIO_REAL(sigaction)) {
    errno = ENOSYS;
    return -1;
  }
  if (s < 0 || !hooked[s]) return pario_real.sigaction(sig, act, old);
  if (old) *old = app_act[s];
  if (act) app_act[s] = *act;
  return 0;
}

sighandler_t signal(int sig, sighandler_t h) {
  int s = sigslot(sig);
  if (s < 0 || !hooked[s]) {
    if (!PARIO_REAL(signal)) {
      errno = ENOSYS;
      return SIG_ERR;
    }
    return pario_real.signal(sig, h);
  }
  sighandler_t prev = (app_act[s].sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))app_act[s].sa_sigaction
                                                         : app_act[s].sa_handler;
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
  pario_proc.start_epoch = pario_epoch_now();
  pario_modules_fork_child();
}

/* ---- start and end ---- */
__attribute__((constructor(PARIO_REGISTER_PRIORITY + 1))) static void pario_init(void) {
  pario_proc.rank = -1;
  pario_proc.pid = getpid();
  gethostname(pario_proc.host, sizeof pario_proc.host - 1);
  pario_proc.start_epoch = pario_clock_start();
  if (!pario_modules_start()) return;
  pthread_atfork(pario_modules_fork_prepare, pario_modules_fork_parent, after_fork_child);
  hook_signals();
}

__attribute__((destructor)) static void pario_fini(void) { pario_modules_stop("exit", 0, 0); }

void _exit(int status) {
  /* A vfork child shares our memory: leave the parent's state alone. */
  if (getpid() == pario_proc.pid) pario_modules_stop("exit", 0, 0);
  if (PARIO_REAL(_exit)) pario_real._exit(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

void _Exit(int status) { _exit(status); }

/* exec replaces the image: the modules stop first. A vfork child (Python's subprocess,
 * posix_spawn users) shares the parent's memory and must leave its state alone. */
static int vfork_child, stopped_for_exec;
static void before_exec(void) {
  vfork_child = (pid_t)syscall(SYS_getpid) != pario_proc.pid;
  stopped_for_exec = !vfork_child && pario_modules_stop("exec", 0, 0);
}
static void exec_failed(void) {
  if (stopped_for_exec) pario_modules_resume();
  stopped_for_exec = 0;
}

#define EXEC_WRAP(fn, params, args) \
  int fn params {                   \
    if (!PARIO_REAL(fn)) {          \
      errno = ENOSYS;               \
      return -1;                    \
    }                               \
    before_exec();                  \
    int rc = pario_real.fn args;    \
    int e = errno;                  \
    exec_failed();                  \
    errno = e;                      \
    return rc;                      \
  }
EXEC_WRAP(execve, (const char *path, char *const argv[], char *const envp[]), (path, argv, envp))
EXEC_WRAP(execv, (const char *path, char *const argv[]), (path, argv))
EXEC_WRAP(execvp, (const char *file, char *const argv[]), (file, argv))
EXEC_WRAP(execvpe, (const char *file, char *const argv[], char *const envp[]), (file, argv, envp))

/* execl, execlp and execle call execve inside libc, where no interposer sees it: they are
 * rebuilt here on the wrapped forms, so that the modules stop before the image goes (the
 * buffer would otherwise lose what it holds). */
#define ARGV_OF(first, ap, argv)                                        \
  int n_ = 1;                                                           \
  va_list ap2_;                                                         \
  va_copy(ap2_, ap);                                                    \
  while (va_arg(ap2_, const char *)) n_++;                              \
  va_end(ap2_);                                                         \
  char **argv = __builtin_alloca(sizeof(char *) * (size_t)(n_ + 1));    \
  argv[0] = (char *)(first);                                            \
  for (int k_ = 1; k_ <= n_; k_++) argv[k_] = va_arg(ap, char *);

int execl(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  ARGV_OF(arg, ap, argv)
  va_end(ap);
  return execv(path, argv);
}
int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  ARGV_OF(arg, ap, argv)
  va_end(ap);
  return execvp(file, argv);
}
int execle(const char *path, const char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  ARGV_OF(arg, ap, argv)
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, argv, envp);
}
