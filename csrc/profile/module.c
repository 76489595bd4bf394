/* The profiler as a module of the interposition layer (intercept.h): it starts recording in the
 * library's constructor, forgets the parent's records in a fork child, reduces shared files
 * across ranks inside MPI_Finalize, and writes its log whenever the image stops. */
#include <sys/syscall.h>
#include <unistd.h>

#include "profile/profile.h"
#include "profile/reduce_mpi.h"

static int was_active; /* recording when the last stop came (resume restores it) */

static int start(void) {
  if (pario_settings_read() != 0) return -1;
  if (pario_records_init() != 0) {
    static const char m[] = "pario-preload: cannot reserve the profiler's memory; profiling is off\n";
    syscall(SYS_write, 2, m, sizeof m - 1);
    return -1;
  }
  atomic_store(&pario_active, 1);
  return 0;
}

static void fork_child(void) { pario_records_reset_after_fork(); }

static void stop(const char *reason, int partial, int from_signal) {
  was_active = atomic_exchange(&pario_active, 0);
  if (!was_active) return;
  pario_calibrate();
  pario_profile_write(reason, partial, from_signal);
}

static void resume(void) {
  if (was_active) atomic_store(&pario_active, 1);
}

/* Shared files are reduced across ranks while MPI still works; the log is written now, since
 * the program may never exit normally after MPI_Finalize (and is written again at exit). */
static void mpi_finalize(void) {
  if (!atomic_load(&pario_active)) return;
#ifdef PARIO_HAVE_MPI
  pario_guard = 1;
  pario_calibrate(); /* the reduction converts ticks to seconds */
  pario_mpi_reduce();
  pario_guard = 0;
#endif
  pario_profile_write("finalize", 0, 0);
}

static const struct pario_intercept_module profiler = {
    .name = "profile",
    .start = start,
    .fork_child = fork_child,
    .mpi_finalize = mpi_finalize,
    .stop = stop,
    .resume = resume,
};

__attribute__((constructor(PARIO_REGISTER_PRIORITY))) static void register_profiler(void) {
  pario_intercept_register(&profiler);
}
