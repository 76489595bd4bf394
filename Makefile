# The README's entry points. Each target first sets up whatever is missing (scripts/setup.sh).
VENV := .venv
# The venv's bin first: it holds pip's cmake on systems whose CMake is older than 3.18.
WITH_VENV := PATH="$(CURDIR)/$(VENV)/bin:$$PATH"

.PHONY: demo demo-pfs test lint setup setup-tests clean

# The engine the venv's pario runs; the end-to-end tests use it (and fail if it was not built).
define ENGINE_OF_VENV
import sys
from pario.platform.engine import engine_path
from pario.model.errors import ParioError
try:
    print(engine_path())
except ParioError as exc:
    sys.exit(f"make test: {exc}")
endef
export ENGINE_OF_VENV

setup:
	@bash scripts/setup.sh

# The same, plus what the tests run against (MPICH beside Open MPI, a local Slurm, Chromium).
setup-tests:
	@bash scripts/setup.sh --tests

demo: setup
	$(VENV)/bin/pario bench

# Striping for real: a CephFS of 4 object servers on this machine, each capped at 50 MiB/s
# (scripts/local-pfs.sh; root and /dev/fuse), the KAUST stripe-count preset on one 128 MiB shared
# file, each row's bytes per server from the servers' own counters beside the time their placement
# predicts; the file system is stopped afterwards whatever happened. PFS_DIR: where it lives.
PFS_DIR ?= /tmp/pario-demo-pfs
demo-pfs:
	@bash scripts/setup.sh --pfs
	bash scripts/local-pfs.sh start --cap 50m --dir $(PFS_DIR)
	$(VENV)/bin/pario bench --preset kaust-striping -n 4 --scale 0.5 --dir $(PFS_DIR)/mnt/demo; \
		rc=$$?; bash scripts/local-pfs.sh stop --dir $(PFS_DIR); exit $$rc

# Lint and types first (ruff, mypy: a finding fails the target), then C tests (ctest), then Python tests; where Debian's MPICH is installed beside Open MPI
# (mpicc.mpich), the engine is also built against it and the flavour tests run under both. No tests found fails in both (ctest --no-tests=error,
# pytest exit code 5).
# (cd + ctest rather than ctest --test-dir, which needs CMake 3.20; we support 3.18.)
test: setup-tests
	$(MAKE) --no-print-directory lint
	$(WITH_VENV) cmake -S . -B build/ctest -DPARIO_TESTS=ON
	$(WITH_VENV) cmake --build build/ctest -j $$(nproc 2>/dev/null || echo 2)
	cd build/ctest && $(WITH_VENV) ctest --output-on-failure --no-tests=error
	if [ -z "$$PARIO_ENGINE_MPICH" ] && command -v mpicc.mpich >/dev/null 2>&1; then \
		$(WITH_VENV) sh scripts/build-mpich-engine.sh build/mpich >/dev/null && \
		PARIO_ENGINE_MPICH="$(CURDIR)/build/mpich/pario-engine" && \
		PARIO_PRELOAD_MPICH="$(CURDIR)/build/mpich/csrc/intercept/libpario-preload.so"; fi; \
	export PARIO_ENGINE_MPICH PARIO_PRELOAD_MPICH; \
	PARIO_ENGINE="$$($(VENV)/bin/python -c "$$ENGINE_OF_VENV")" && export PARIO_ENGINE && \
		$(VENV)/bin/python -m pytest -q

# ruff over the package, its tests and the benchmarks' scripts; mypy over the package (the benchmarks'
# scripts are not typed). A finding fails the target.
lint:
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy

# Build artefacts only; the venv (make setup recreates it) and the results database stay.
clean:
	rm -rf build .pytest_cache
	find src tests -name __pycache__ -type d -prune -exec rm -rf {} +
	find src -name '*.egg-info' -type d -prune -exec rm -rf {} +
