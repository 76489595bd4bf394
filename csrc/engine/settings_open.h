/* pario-engine --settings: one untimed open and close per case whose layer takes MPI-IO hints. */
#ifndef PARIO_ENGINE_SETTINGS_OPEN_H
#define PARIO_ENGINE_SETTINGS_OPEN_H

#include "engine/groups.h"
#include "engine/spec.h"

int pario_settings_run(const pario_run *run, const pario_world *w);

#endif
