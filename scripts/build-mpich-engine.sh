#!/bin/sh
# Build pario-engine and the profiler's library (libpario-preload.so) against Debian's MPICH, beside
# the Open MPI build, in build/mpich (or $1).
#
# Needs: apt-get install -y --no-install-recommends mpich libmpich-dev
#        and, for the hdf5 backend, libhdf5-mpich-dev (it keeps Open MPI as the default h5pcc).
# Debian's PnetCDF, NetCDF-4 and the cached ADIOS2 are built with Open MPI: linking them into an
# MPICH program would mix two MPIs, so this build leaves those layers out (CMake's pkg-config
# look-up names hdf5-openmpi, so pkg-config is switched off and HDF5 is found through h5pcc.mpich).
# Then: PARIO_ENGINE_MPICH=build/mpich/pario-engine runs the Python tests under MPICH too, and
# PARIO_PRELOAD_MPICH=build/mpich/csrc/intercept/libpario-preload.so profiles MPICH programs.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build/mpich}

if ! command -v mpicc.mpich >/dev/null 2>&1 || ! command -v mpiexec.mpich >/dev/null 2>&1; then
  echo "build-mpich-engine: mpicc.mpich/mpiexec.mpich not found; apt-get install mpich libmpich-dev" >&2
  exit 3
fi
GEN=""
if command -v ninja >/dev/null 2>&1; then GEN="-G Ninja"; fi

ARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# The Open MPI flavours of the NetCDF/PnetCDF headers must not be found by this build.
IGNORE="/usr/include;/usr/lib/$ARCH/netcdf/mpi;/usr/lib/$ARCH/netcdf/mpi/include;/usr/lib/$ARCH/netcdf/mpi/lib"
HDF5=""
if [ -x /usr/bin/h5pcc.mpich ]; then
  HDF5="-DHDF5_C_COMPILER_EXECUTABLE=/usr/bin/h5pcc.mpich"
else
  HDF5="-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON"
  echo "build-mpich-engine: no h5pcc.mpich: the hdf5 backend is left out (apt-get install libhdf5-mpich-dev)" >&2
fi

# shellcheck disable=SC2086  # GEN and HDF5 are deliberately split into words
cmake -S "$ROOT" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=mpicc.mpich -DMPI_C_COMPILER=mpicc.mpich \
  -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)" \
  -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_ADIOS2=ON \
  "-DCMAKE_IGNORE_PATH=$IGNORE" $HDF5
cmake --build "$BUILD" --target pario-engine pario-preload
if ldd "$BUILD/pario-engine" | grep -q "libmpi\.so"; then
  echo "build-mpich-engine: $BUILD/pario-engine links Open MPI's libmpi.so too; see the CMake output" >&2
  exit 1
fi
echo "PARIO_ENGINE_MPICH=$BUILD/pario-engine"
# the profiler's library, its MPI-IO wrappers compiled against MPICH's mpi.h (pario profile and
# pario buffer pick it for MPICH programs)
echo "PARIO_PRELOAD_MPICH=$BUILD/csrc/intercept/libpario-preload.so"
