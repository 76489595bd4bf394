/* Every backend this build knows, built or not. */
#include <string.h>

#include "pario/backend.h"

extern const pario_backend pario_backend_posix, pario_backend_mpiio, pario_backend_null;

/* Library layers that are planned but not in this version: listed so that users see them. */
#define PLANNED(n, why) {.abi = PARIO_BACKEND_ABI, .name = n, .missing = why}
static const pario_backend hdf5 = PLANNED("hdf5", "not in this pario version yet (library layers are planned)");
static const pario_backend pnetcdf = PLANNED("pnetcdf", "not in this pario version yet (library layers are planned)");
static const pario_backend netcdf4 = PLANNED("netcdf4", "not in this pario version yet (library layers are planned)");
static const pario_backend adios2 = PLANNED("adios2", "not in this pario version yet (library layers are planned)");

static const pario_backend *const all[] = {
    &pario_backend_posix, &pario_backend_mpiio, &pario_backend_null, &hdf5, &pnetcdf, &netcdf4, &adios2, NULL};

const pario_backend *const *pario_backend_all(void) { return all; }

const pario_backend *pario_backend_find(const char *name) {
  for (int k = 0; all[k]; k++) {
    if (strcmp(all[k]->name, name)) continue;
    if (all[k]->abi != PARIO_BACKEND_ABI) return NULL;
    if (!all[k]->missing && (!all[k]->open || !all[k]->xfer || !all[k]->close)) return NULL;
    return all[k];
  }
  return NULL;
}
