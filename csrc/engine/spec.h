/* The spec document (schemas/spec.schema.json) as the engine runs it: the run and its cases. */
#ifndef PARIO_ENGINE_SPEC_H
#define PARIO_ENGINE_SPEC_H

#include "pario/case.h"

typedef struct {
  char run_id[128];
  char dir[4096];
  char prefix[256];
  char status_dir[4096];
  int ncases;
  pario_case *cases;
} pario_run;

/* Parse and check the spec document; origin names it in errors. 0 or PARIO_E_SPEC/NOTBUILT/NOMEM. */
int pario_spec_parse(const char *text, const char *origin, pario_run *run);
void pario_spec_free(pario_run *run);

#endif
