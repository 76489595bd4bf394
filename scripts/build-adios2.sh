#!/usr/bin/env bash
# Build ADIOS2 with MPI (BP5 engine only) into a cache directory that later pario builds reuse.
#
# ADIOS2 is not packaged in Debian 12, and the `adios2` binary wheel on PyPI is serial (no MPI),
# so it cannot serve a parallel benchmark. The PyPI *source* distribution is the full upstream
# tree; we fetch it with `pip download --no-binary adios2` (NOT --no-binary=:all:, which makes pip
# rebuild all build dependencies from source too and takes ~11 min instead of seconds).
#
# Usage: scripts/build-adios2.sh [--force]
#   ADIOS2_VERSION   version to fetch (default 2.12.1.1001, the PyPI release checked on Debian 12)
#   PARIO_ADIOS2_PREFIX  install prefix (default ${XDG_CACHE_HOME:-$HOME/.cache}/pario/adios2-<version>)
#   PARIO_ADIOS2_JOBS    parallel build jobs (default: number of CPUs)
# Prints the install prefix on the last line of stdout. Takes about 4 minutes on 2 cores.
set -euo pipefail

say() { printf 'build-adios2: %s\n' "$*" >&2; }
die() { printf 'build-adios2: error: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1

VERSION="${ADIOS2_VERSION:-2.12.1.1001}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/pario"
PREFIX="${PARIO_ADIOS2_PREFIX:-$CACHE/adios2-$VERSION}"
JOBS="${PARIO_ADIOS2_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# An ADIOS2 with MPI is "findable" when its adios2-config answers for the MPI flavour (-m).
adios2_mpi_ok() {  # adios2_mpi_ok CONFIG
    [ -x "$1" ] && "$1" --c-libs -m >/dev/null 2>&1 &&
        "$1" --c-libs -m 2>/dev/null | grep -q 'adios2_c_mpi'
}

if [ "$FORCE" = 0 ]; then
    if adios2_mpi_ok "$PREFIX/bin/adios2-config"; then
        say "already built: $PREFIX"
        echo "$PREFIX"; exit 0
    fi
    if have adios2-config && adios2_mpi_ok "$(command -v adios2-config)"; then
        found=$(cd "$(dirname "$(command -v adios2-config)")/.." && pwd)
        say "an ADIOS2 with MPI is already on PATH ($found); nothing to build"
        echo "$found"; exit 0
    fi
    if [ -n "${ADIOS2_DIR:-}" ] && [ -d "$ADIOS2_DIR" ]; then
        say "ADIOS2_DIR is set ($ADIOS2_DIR); nothing to build"
        echo "$ADIOS2_DIR"; exit 0
    fi
fi

have mpicc || die "mpicc not found: install an MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) or load your site's MPI module"
have mpicxx || die "mpicxx not found: ADIOS2 is C++; install the MPI C++ wrappers (Debian: libopenmpi-dev) and g++"
have cmake || die "cmake not found: install CMake >= 3.18 (Debian: apt-get install cmake)"
PY=$(command -v python3 || true)
[ -n "$PY" ] || die "python3 not found: it is needed to fetch the ADIOS2 source with pip"
GEN=()
have ninja && GEN=(-G Ninja)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pario-adios2.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

say "fetching the adios2 $VERSION source distribution from PyPI"
"$PY" -m pip download --quiet --no-deps --no-binary adios2 "adios2==$VERSION" -d "$WORK/dl" \
    || die "pip download of the adios2 $VERSION source failed (network? set ADIOS2_VERSION to an existing release)"
SDIST=$(ls "$WORK"/dl/adios2-*.tar.gz 2>/dev/null | head -n1)
[ -n "$SDIST" ] || die "no adios2 source archive was downloaded (pip fetched a wheel?)"
tar -xzf "$SDIST" -C "$WORK"
SRC=$(find "$WORK" -maxdepth 2 -name CMakeLists.txt -path '*adios2-*' -printf '%h\n' | head -n1)
[ -n "$SRC" ] || die "the adios2 source archive has no CMakeLists.txt"

say "configuring (MPI on, BP5 only) into $PREFIX"
mkdir -p "$(dirname "$PREFIX")"
cmake "${GEN[@]}" -S "$SRC" -B "$WORK/build" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
    -DADIOS2_USE_MPI=ON -DADIOS2_USE_Python=OFF -DADIOS2_USE_Fortran=OFF \
    -DADIOS2_USE_HDF5=OFF -DADIOS2_USE_SST=OFF -DADIOS2_USE_DataMan=OFF \
    -DADIOS2_USE_ZeroMQ=OFF -DADIOS2_USE_Campaign=OFF -DADIOS2_USE_CURL=OFF \
    -DBUILD_TESTING=OFF -DADIOS2_BUILD_EXAMPLES=OFF >"$WORK/configure.log" 2>&1 \
    || { tail -n 30 "$WORK/configure.log" >&2; die "ADIOS2 configure failed (log above)"; }

say "building with $JOBS jobs (about 4 minutes on 2 cores)"
cmake --build "$WORK/build" -j "$JOBS" >"$WORK/build.log" 2>&1 \
    || { tail -n 30 "$WORK/build.log" >&2; die "ADIOS2 build failed (log above)"; }
cmake --install "$WORK/build" >"$WORK/install.log" 2>&1 \
    || { tail -n 30 "$WORK/install.log" >&2; die "ADIOS2 install failed (log above)"; }

adios2_mpi_ok "$PREFIX/bin/adios2-config" || die "the built ADIOS2 in $PREFIX has no MPI libraries"
say "installed into $PREFIX"
echo "$PREFIX"
