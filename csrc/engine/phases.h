/* The data workload of one case: timed write, read and verify phases. */
#ifndef PARIO_ENGINE_PHASES_H
#define PARIO_ENGINE_PHASES_H

#include "engine/groups.h"
#include "engine/reduce.h"
#include "engine/spec.h"

/* Run case ci on every rank; rank 0 fills rec. Returns 0 or a code (the same on all ranks). */
int pario_data_run(const pario_run *run, int ci, const pario_world *w, pario_case_rec *rec, pario_hooks *h);

#endif
