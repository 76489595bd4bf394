/* The spec document (schemas/spec.schema.json) as the engine runs it: the run and its cases. */
#ifndef PARIO_ENGINE_SPEC_H
#define PARIO_ENGINE_SPEC_H

#include "pario/case.h"

typedef struct {
  char run_id[128];
  char dir[4096];
  char prefix[256];
  char status_dir[4096];
  /* the orphan guard (guard.h): the front end's pid, start time, host's boot id, its directory of
     this run, and whether it made the scratch directory; guard_pid 0 when the spec has none */
  long guard_pid;
  unsigned long long guard_start;
  char guard_boot[64];
  char guard_dir[4096];
  int guard_rmdir;
  int ncases;
  pario_case *cases;
} pario_run;

/* Parse and check the spec document; origin names it in errors. 0 or PARIO_E_SPEC/NOTBUILT/NOMEM. */
int pario_spec_parse(const char *text, const char *origin, pario_run *run);
void pario_spec_free(pario_run *run);

#endif
