/* The interposition layer of libpario-preload.so, as the modules it carries see it.
 *
 * One library is preloaded; it carries modules (the profiler, csrc/profile; later the buffer,
 * issue 11), which register with this layer like Darshan's modules with darshan-core. The layer
 * owns what they share: the real symbols and the table of next calls (calls.h), the clock
 * (clock.h), the process's identity, the reentrancy guard, and the life of the process image:
 * start, fork, MPI_Init/MPI_Finalize, signals, exec and exit (lifecycle.c, lifecycle_mpi.c),
 * which it turns into calls of each module's hooks. It never calls a module by name. Calls that
 * only a module needs to see (fcntl, flock, posix_spawn...) it passes on itself (passthru.c). */
#ifndef PARIO_INTERCEPT_H
#define PARIO_INTERCEPT_H

#include <stdint.h>
#include <sys/types.h>

#include "intercept/calls.h"
#include "intercept/clock.h"

#pragma GCC visibility push(hidden)

#define PARIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define PARIO_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Non-zero while this thread is inside the library (its own I/O, or libc calling back into a
 * wrapped symbol): wrappers then only pass the call on. */
extern __thread int pario_guard __attribute__((tls_model("initial-exec")));

/* A module's critical section: a SIGTERM/SIGINT/SIGHUP that arrives while this thread is inside
 * one is held until the section ends, then raised again, so that the modules' stop never runs
 * on state the interrupted code was changing (the buffer, half-way through a flush). Costs two
 * thread-local increments. */
extern __thread int pario_crit_depth __attribute__((tls_model("initial-exec")));
extern __thread volatile int pario_crit_pending __attribute__((tls_model("initial-exec")));
void pario_crit_deliver(void); /* raise the held signals again (lifecycle.c) */
static inline void pario_crit_enter(void) {
  pario_crit_depth++;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void pario_crit_leave(void) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (--pario_crit_depth == 0 && PARIO_UNLIKELY(pario_crit_pending)) pario_crit_deliver();
}

/* Who this process image is. */
struct pario_proc {
  int rank, nprocs;     /* MPI_COMM_WORLD after MPI_Init; -1 / 0 outside MPI */
  pid_t pid, ppid_fork; /* ppid_fork: parent pid if this process is a fork child */
  char host[256];
  double start_epoch; /* start of this image (or of the fork child) */
  int mpi_finalized;  /* MPI_Finalize was called */
  int mpi_aborted, mpi_abort_code; /* MPI_Abort was called (and its error code): the log is written then */
};
extern struct pario_proc pario_proc;

/* A module's hooks; any may be NULL. They run in registration order, except stop, which runs in
 * reverse: a module registered later sits nearer the real calls (the buffer flushes before the
 * profiler writes its log). */
struct pario_intercept_module {
  const char *name;
  int (*start)(void);         /* in the library's constructor; non-zero: the module stays off */
  void (*fork_prepare)(void); /* in fork(), before the child is made (pthread_atfork prepare) */
  void (*fork_parent)(void);  /* in the parent after fork() (atfork parent) */
  void (*fork_child)(void);   /* in the child of fork(), after pario_proc was updated */
  void (*mpi_finalize)(void); /* inside MPI_Finalize, before PMPI_Finalize: collectives work */
  /* The image ends or may end: reason "exit", "exec", "signal" or "mpi_abort"; partial: the program did not
   * finish; from_signal: inside a signal handler (async-signal-safe work only; no thread of the
   * process is then inside a critical section of this thread's, see pario_crit_enter). */
  void (*stop)(const char *reason, int partial, int from_signal);
  void (*resume)(void); /* the image lives on after stop (a signal handled, exec failed) */
};

#define PARIO_MAX_MODULES 4
/* Register from a constructor of priority PARIO_REGISTER_PRIORITY, which runs before the
 * layer's own constructor starts the modules:
 *   __attribute__((constructor(PARIO_REGISTER_PRIORITY))) static void reg(void) { pario_intercept_register(&m); } */
#define PARIO_REGISTER_PRIORITY 101
void pario_intercept_register(const struct pario_intercept_module *m);

#pragma GCC visibility pop
#endif
