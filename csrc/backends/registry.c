/* Every backend this build knows, built or not. A library layer that CMake did not find is
 * listed with the command that gets it (PARIO_HAVE_* come from CMakeLists.txt). */
#include <string.h>

#include "pario/backend.h"

extern const pario_backend pario_backend_posix, pario_backend_mpiio, pario_backend_null;

#define MISSING(n, why) {.abi = PARIO_BACKEND_ABI, .name = n, .missing = why}

#ifdef PARIO_HAVE_HDF5
extern const pario_backend pario_backend_hdf5;
#define HDF5 pario_backend_hdf5
#else
static const pario_backend hdf5_missing = MISSING(
    "hdf5", "install libhdf5-openmpi-dev (or load your site's parallel hdf5 module) and rebuild");
#define HDF5 hdf5_missing
#endif

#ifdef PARIO_HAVE_PNETCDF
extern const pario_backend pario_backend_pnetcdf;
#define PNETCDF pario_backend_pnetcdf
#else
static const pario_backend pnetcdf_missing = MISSING(
    "pnetcdf", "install libpnetcdf-dev (or load your site's pnetcdf module) and rebuild");
#define PNETCDF pnetcdf_missing
#endif

#ifdef PARIO_HAVE_NETCDF4
extern const pario_backend pario_backend_netcdf4;
#define NETCDF4 pario_backend_netcdf4
#else
static const pario_backend netcdf4_missing = MISSING(
    "netcdf4", "install libnetcdf-mpi-dev (or load your site's parallel netcdf-c module) and rebuild");
#define NETCDF4 netcdf4_missing
#endif

#ifdef PARIO_HAVE_ADIOS2
extern const pario_backend pario_backend_adios2;
#define ADIOS2 pario_backend_adios2
#else
static const pario_backend adios2_missing = MISSING(
    "adios2", "run scripts/build-adios2.sh (builds ADIOS2 with MPI into ~/.cache/pario) or load your site's adios2 module, then rebuild");
#define ADIOS2 adios2_missing
#endif

static const pario_backend *const all[] = {
    &pario_backend_posix, &pario_backend_mpiio, &pario_backend_null, &HDF5, &PNETCDF, &NETCDF4, &ADIOS2, NULL};

const pario_backend *const *pario_backend_all(void) { return all; }

unsigned pario_backend_caps(const pario_backend *be) {
  return (be->caps & ~(unsigned)PARIO_CAP_COLLECTIVE) | (be->xfer_all ? PARIO_CAP_COLLECTIVE : 0u);
}

const pario_backend *pario_backend_find(const char *name) {
  for (int k = 0; all[k]; k++) {
    if (strcmp(all[k]->name, name)) continue;
    if (all[k]->abi != PARIO_BACKEND_ABI) return NULL;
    if (!all[k]->missing && (!all[k]->open || !all[k]->xfer || !all[k]->close)) return NULL;
    return all[k];
  }
  return NULL;
}
