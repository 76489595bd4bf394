#!/usr/bin/env bash
# Set up what pario needs, using what is already here: a C compiler, make, CMake >= 3.18,
# an MPI (mpicc on PATH, e.g. from a site module), Python >= 3.9 with venv; then a virtual
# environment in .venv with pario installed (pip builds the C engine through CMake).
#
# Missing system packages are installed with apt only when running as root on Debian/Ubuntu
# (set PARIO_SETUP_APT=0 to forbid that); otherwise this prints what to install and fails.
# Quick when everything is there: pario is rebuilt only when its sources changed.
# `setup.sh --tests` (what `make test` runs) also gets what the tests run against (section 1c).
set -euo pipefail

FOR_TESTS=0
FOR_PFS=0   # --pfs: only the CephFS packages of the test set (make demo-pfs)
for arg in "$@"; do
    case "$arg" in
        --tests) FOR_TESTS=1 ;;
        --pfs) FOR_PFS=1 ;;
        *) printf 'setup: unknown option %s (use --tests or --pfs)\n' "$arg" >&2; exit 2 ;;
    esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"
STAMP="$VENV/.pario-installed"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
join() { local out="" item; for item in "$@"; do out="${out:+$out; }$item"; done; printf '%s' "$out"; }

version_ge() {  # version_ge 3.25.1 3.18
    [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

can_apt() {
    [ "${PARIO_SETUP_APT:-1}" != 0 ] && [ "$(id -u)" = 0 ] && [ -r /etc/debian_version ] && have apt-get
}

python_ok() {  # python_ok EXE: Python >= 3.9 that can make a venv with pip
    "$1" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' >/dev/null 2>&1
}

cmake_ok() {
    have cmake || return 1
    local v
    v=$(cmake --version 2>/dev/null | awk 'NR == 1 {print $3}')
    [ -n "$v" ] && version_ge "$v" 3.18
}

# ---- 1. system tools: find what is missing -------------------------------------------------

pkgs=()      # Debian package names of what is missing
missing=()   # the same, in words, for systems where we cannot install

if ! have cc && ! have gcc; then pkgs+=(gcc libc6-dev); missing+=("a C compiler (gcc or clang)"); fi
if ! have make; then pkgs+=(make); missing+=("make"); fi
if ! cmake_ok; then
    # Debian's own cmake is new enough; elsewhere pip's cmake goes into the venv (below).
    if can_apt; then pkgs+=(cmake); fi
fi
if ! have mpicc; then
    pkgs+=(openmpi-bin libopenmpi-dev)
    missing+=("an MPI with mpicc on PATH (load your site's MPI module, e.g. 'module load openmpi', or install Open MPI / MPICH development packages)")
fi
PY=python3
if ! have python3 || ! python_ok python3; then
    if have python3 && python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
        pkgs+=(python3-venv); missing+=("the venv module of python3 (Debian/Ubuntu: python3-venv)")
    else
        pkgs+=(python3 python3-venv); missing+=("Python >= 3.9 with venv")
    fi
fi

if [ ${#pkgs[@]} -gt 0 ]; then
    if can_apt; then
        say "installing ${pkgs[*]} (apt)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
    elif [ -r /etc/debian_version ]; then
        die "missing: $(join "${missing[@]}"). Install them with: sudo apt-get install -y --no-install-recommends ${pkgs[*]} (or load your site's modules), then rerun."
    else
        die "missing: $(join "${missing[@]}"). Install them with your package manager or load your site's modules, then rerun."
    fi
fi

# ---- 1b. the optional I/O libraries of the library layers (hdf5, pnetcdf, netcdf4) ----------
# Each layer is optional: without its library the engine lists the backend as not built and
# says how to get it. Set PARIO_SETUP_LAYERS=0 to skip them.
LAYER_PKGS=(libhdf5-openmpi-dev hdf5-tools libpnetcdf-dev pnetcdf-bin libnetcdf-mpi-dev netcdf-bin)
if [ "${PARIO_SETUP_LAYERS:-1}" != 0 ] && [ -r /etc/debian_version ] && have dpkg-query; then
    layer_missing=()
    for p in "${LAYER_PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || layer_missing+=("$p")
    done
    if [ ${#layer_missing[@]} -gt 0 ]; then
        if can_apt; then
            say "installing the I/O libraries of the hdf5, pnetcdf and netcdf4 layers: ${layer_missing[*]} (apt)"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -qq --no-install-recommends "${layer_missing[@]}" >/dev/null 2>&1 || {
                apt-get update -qq && apt-get install -y -qq --no-install-recommends "${layer_missing[@]}" >/dev/null; } \
                || say "note: could not install ${layer_missing[*]}; those layers will be listed as not built"
        else
            say "note: optional I/O libraries missing: ${layer_missing[*]}; their layers will not be built" \
                "(install them with: sudo apt-get install -y --no-install-recommends ${layer_missing[*]}, then rerun)"
        fi
    fi
elif [ "${PARIO_SETUP_LAYERS:-1}" != 0 ]; then
    say "note: the hdf5, pnetcdf and netcdf4 layers need parallel HDF5, PnetCDF and NetCDF-4 with MPI; load your site's modules before setup to build them"
fi

# ---- 1c. what the tests run against (only with --tests, as `make test` runs this) --------------
# MPICH beside Open MPI (the flavour tests build the engine against both: the ROMIO that Cray
# MPICH and Intel MPI derive from), a real one-node Slurm (scripts/local-slurm.sh) and a headless
# browser for the pages of `pario report` (Debian's chromium + chromedriver), and a real striped file
# system, CephFS on 127.0.0.1 (scripts/local-pfs.sh: monitor, object and metadata servers, the FUSE
# client, `setfattr` for layouts), and strace (a test reads which files the engine fsyncs). A missing
# tool skips its tests with a reason; PARIO_SETUP_BROWSER=0 leaves the browser out, PARIO_SETUP_PFS=0 CephFS.
TEST_PKGS=(mpich libmpich-dev libhdf5-mpich-dev slurmctld slurmd slurm-client munge strace)
[ "${PARIO_SETUP_BROWSER:-1}" != 0 ] && TEST_PKGS+=(chromium chromium-driver)
PFS_PKGS=(ceph-mon ceph-osd ceph-mds ceph-fuse ceph-common attr fuse3)
[ "${PARIO_SETUP_PFS:-1}" != 0 ] && TEST_PKGS+=("${PFS_PKGS[@]}")
[ "$FOR_PFS" = 1 ] && [ "$FOR_TESTS" = 0 ] && TEST_PKGS=("${PFS_PKGS[@]}") && FOR_TESTS=1
if [ "$FOR_TESTS" = 1 ] && [ -r /etc/debian_version ] && have dpkg-query; then
    test_missing=()
    for p in "${TEST_PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || test_missing+=("$p")
    done
    if [ ${#test_missing[@]} -gt 0 ]; then
        if can_apt; then
            say "installing what the tests run against: ${test_missing[*]} (apt)"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -qq --no-install-recommends "${test_missing[@]}" >/dev/null 2>&1 || {
                apt-get update -qq && apt-get install -y -qq --no-install-recommends "${test_missing[@]}" >/dev/null; } \
                || say "note: could not install ${test_missing[*]}; the tests that need them will be skipped"
        else
            say "note: ${test_missing[*]} not installed; the tests that need them will be skipped" \
                "(install them with: sudo apt-get install -y --no-install-recommends ${test_missing[*]})"
        fi
    fi
fi

have mpicc || die "mpicc is still not on PATH; load your site's MPI module and rerun"
python_ok "$PY" || die "python3 ($(command -v python3)) is older than 3.9 or lacks venv/ensurepip; install Python >= 3.9 with venv"
say "C compiler: $(command -v cc || command -v gcc); MPI: $(command -v mpicc); python: $(command -v "$PY") ($("$PY" -c 'import platform; print(platform.python_version())'))"

# ---- 2. the virtual environment ------------------------------------------------------------

if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    say "recreating $VENV (its python no longer runs)"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    "$PY" -m venv "$VENV"
fi

if ! cmake_ok && ! { [ -x "$VENV/bin/cmake" ] && version_ge "$("$VENV/bin/cmake" --version | awk 'NR == 1 {print $3}')" 3.18; }; then
    say "installing cmake into $VENV (no CMake >= 3.18 on PATH)"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "cmake>=3.18" \
        || die "could not install cmake with pip; install CMake >= 3.18 (or load a cmake module) and rerun"
fi

# ---- 2b. ADIOS2 with MPI for the adios2 layer (not packaged in Debian 12): built once, cached --

ADIOS2_PREFIX=""
if [ "${PARIO_SETUP_ADIOS2:-1}" != 0 ]; then
    if ! have mpicxx || ! { have g++ || have c++; }; then
        if can_apt; then
            say "installing g++ (ADIOS2 is C++)"
            apt-get install -y -qq --no-install-recommends g++ >/dev/null 2>&1 || true
        fi
    fi
    cached=$(ls -d "${XDG_CACHE_HOME:-$HOME/.cache}"/pario/adios2-*/bin/adios2-config 2>/dev/null | head -n1 || true)
    if [ -z "$cached" ] && ! { have adios2-config && adios2-config --c-libs -m 2>/dev/null | grep -q adios2_c_mpi; }; then
        say "building ADIOS2 with MPI for the adios2 layer: about 4 minutes, once (cached in ${XDG_CACHE_HOME:-$HOME/.cache}/pario; PARIO_SETUP_ADIOS2=0 skips it)"
    fi
    if out=$(PATH="$VENV/bin:$PATH" bash scripts/build-adios2.sh 2> >(sed 's/^/setup: /' >&2)); then
        ADIOS2_PREFIX=$(printf '%s\n' "$out" | tail -n1)
    else
        say "note: ADIOS2 could not be built (messages above); the adios2 layer will be listed as not built"
    fi
fi
CMAKE_ARGS=()
adios2_cfg=$(find "$ADIOS2_PREFIX" -name 'adios2-config.cmake' -path '*cmake/adios2*' 2>/dev/null | head -n1 || true)
if [ -n "$ADIOS2_PREFIX" ] && [ -n "$adios2_cfg" ]; then
    # pip builds in isolation: name the ADIOS2 to use explicitly rather than rely on the cache glob
    CMAKE_ARGS=(--config-settings="cmake.define.ADIOS2_DIR=$(dirname "$adios2_cfg")")
fi

# ---- 3. pario itself, rebuilt only when its sources changed --------------------------------

sources_hash() {
    { find pyproject.toml CMakeLists.txt README.md src csrc include schemas examples/presets -type f \
        -not -name '*.pyc' -not -path '*/__pycache__/*' -print0 2>/dev/null || true; } \
        | sort -z | xargs -0 -r sha256sum
    # the libraries the engine can link: a library installed or built later means a rebuild
    printf '%s\n' "$ADIOS2_PREFIX" "${CMAKE_ARGS[@]}"
    dpkg-query -W "${LAYER_PKGS[@]}" 2>/dev/null || true
}
layers_hash() { sources_hash | sha256sum | cut -d' ' -f1; }
want=$(layers_hash)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/pario" ]; then
    say "pario is installed and up to date in $VENV"
else
    say "installing pario and its test tools into $VENV (builds the C engine; a minute the first time)"
    # The venv's bin first, so that a pip-installed cmake is found by the build.
    rm -f "$STAMP"
    # the darshan extra: PyDarshan, so that `pario advise` reads Darshan logs
    PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${CMAKE_ARGS[@]}" ".[test,darshan]" \
        || die "pip could not build or install pario (its messages are above)"
    echo "$want" > "$STAMP"
fi

if ls "$VENV"/lib/python*/site-packages/pario/bin/pario-engine >/dev/null 2>&1; then
    engine=$(ls "$VENV"/lib/python*/site-packages/pario/bin/pario-engine | head -n1)
    layers=$("$engine" --list 2>/dev/null | "$VENV/bin/python" -c 'import json, sys
print(" ".join(b["name"] for b in json.load(sys.stdin)["backends"] if b.get("version") and b.get("built")))' 2>/dev/null || true)
    say "ready: $VENV/bin/pario (engine built; library layers: ${layers:-none})"
else
    say "ready: $VENV/bin/pario (warning: pario-engine was not built; pario bench will say why)"
fi
