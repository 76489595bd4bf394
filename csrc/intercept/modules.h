/* The registry of modules, as the layer's own lifecycle code drives it (internal to intercept/;
 * modules see only intercept.h). */
#ifndef PARIO_INTERCEPT_MODULES_H
#define PARIO_INTERCEPT_MODULES_H

#include "intercept/intercept.h"

#pragma GCC visibility push(hidden)

int pario_modules_start(void); /* the number of modules that started */
void pario_modules_fork_prepare(void);
void pario_modules_fork_parent(void);
void pario_modules_fork_child(void);
void pario_modules_mpi_finalize(void);
/* Each started module's stop (reverse order) once: 0 if a stop had already run (and no resume). */
int pario_modules_stop(const char *reason, int partial, int from_signal);
void pario_modules_resume(void);

#pragma GCC visibility pop
#endif
