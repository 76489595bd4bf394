#!/usr/bin/env bash
# Set up what pario needs, using what is already here: a C compiler, make, CMake >= 3.18,
# an MPI (mpicc on PATH, e.g. from a site module), Python >= 3.9 with venv; then a virtual
# environment in .venv with pario installed (pip builds the C engine through CMake).
#
# Missing system packages are installed with apt only when running as root on Debian/Ubuntu
# (set PARIO_SETUP_APT=0 to forbid that); otherwise this prints what to install and fails.
# Quick when everything is there: pario is rebuilt only when its sources changed.
set -euo pipefail

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

# ---- 3. pario itself, rebuilt only when its sources changed --------------------------------

sources_hash() {
    { find pyproject.toml CMakeLists.txt README.md src csrc include schemas -type f \
        -not -name '*.pyc' -not -path '*/__pycache__/*' -print0 2>/dev/null || true; } \
        | sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1
}
want=$(sources_hash)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/pario" ]; then
    say "pario is installed and up to date in $VENV"
else
    say "installing pario and its test tools into $VENV (builds the C engine; a minute the first time)"
    # The venv's bin first, so that a pip-installed cmake is found by the build.
    rm -f "$STAMP"
    PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pip install -q --disable-pip-version-check ".[test]" \
        || die "pip could not build or install pario (its messages are above)"
    echo "$want" > "$STAMP"
fi

if ls "$VENV"/lib/python*/site-packages/pario/bin/pario-engine >/dev/null 2>&1; then
    say "ready: $VENV/bin/pario (engine built)"
else
    say "ready: $VENV/bin/pario (warning: pario-engine was not built; pario bench will say why)"
fi
