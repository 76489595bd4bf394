/* The metadata workload of one case (mdtest-like): many small files in a directory tree. */
#ifndef PARIO_ENGINE_METADATA_H
#define PARIO_ENGINE_METADATA_H

#include "engine/groups.h"
#include "engine/reduce.h"
#include "engine/spec.h"

/* Same contract as pario_data_run. */
int pario_md_run(const pario_run *run, int ci, const pario_world *w, pario_case_rec *rec, pario_hooks *h);

#endif
