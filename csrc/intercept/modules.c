/* The modules the library carries (see intercept.h), and the walk over their hooks. */
#include "intercept/modules.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct pario_intercept_module *mods[PARIO_MAX_MODULES];
static int started[PARIO_MAX_MODULES];
static int nmods;
static atomic_int stopped; /* a stop ran and nothing resumed: later stops do nothing */

void pario_intercept_register(const struct pario_intercept_module *m) {
  if (nmods < PARIO_MAX_MODULES) {
    mods[nmods++] = m;
    return;
  }
  static const char msg[] = "pario-preload: too many modules (PARIO_MAX_MODULES); one is left off\n";
  syscall(SYS_write, 2, msg, sizeof msg - 1);
}

int pario_modules_start(void) {
  int n = 0;
  for (int k = 0; k < nmods; k++) n += started[k] = !mods[k]->start || mods[k]->start() == 0;
  return n;
}

/* prepare in reverse order (the module nearest the real calls first), parent and child forward */
void pario_modules_fork_prepare(void) {
  for (int k = nmods - 1; k >= 0; k--)
    if (started[k] && mods[k]->fork_prepare) mods[k]->fork_prepare();
}

void pario_modules_fork_parent(void) {
  for (int k = 0; k < nmods; k++)
    if (started[k] && mods[k]->fork_parent) mods[k]->fork_parent();
}

void pario_modules_fork_child(void) {
  for (int k = 0; k < nmods; k++)
    if (started[k] && mods[k]->fork_child) mods[k]->fork_child();
}

void pario_modules_mpi_finalize(void) {
  for (int k = 0; k < nmods; k++)
    if (started[k] && mods[k]->mpi_finalize) mods[k]->mpi_finalize();
}

int pario_modules_stop(const char *reason, int partial, int from_signal) {
  if (atomic_exchange(&stopped, 1)) return 0;
  for (int k = nmods - 1; k >= 0; k--)
    if (started[k] && mods[k]->stop) mods[k]->stop(reason, partial, from_signal);
  return 1;
}

void pario_modules_resume(void) {
  for (int k = 0; k < nmods; k++)
    if (started[k] && mods[k]->resume) mods[k]->resume();
  atomic_store(&stopped, 0);
}
