"""`make test` does not depend on the user's environment: what a user exports as the README
suggests (PARIO_SCRATCH, PARIO_DB, an Open MPI io component, a ROMIO hints file) must not change
what the tests see (conftest.py clears it for the whole session)."""
import os
import subprocess
import sys

import pytest

from engine_support import ENGINE, HAVE_MPIRUN, ROOT

USER_ENV = {"PARIO_SCRATCH": "{tmp}/user-scratch", "PARIO_DB": "{tmp}/user.db", "PARIO_MPIRUN": "mpirun",
            "OMPI_MCA_io": "romio321", "ROMIO_HINTS": "{tmp}/hints", "PARIO_FAULT": "die:1"}


def test_conftest_clears_the_user_variables():
    import conftest
    for name in USER_ENV:
        assert conftest.is_user_setting(name), name
    for name in ("PARIO_ENGINE", "PARIO_ENGINE_MPICH", "PARIO_PRELOAD", "PATH", "HOME"):
        assert not conftest.is_user_setting(name), name
    assert not [k for k in os.environ if conftest.is_user_setting(k)]


@pytest.mark.e2e
@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")
def test_a_default_directory_test_passes_with_the_user_environment(tmp_path):
    # This test keeps its files in ./pario-scratch, the default directory: with PARIO_SCRATCH
    # exported (README: "export PARIO_SCRATCH=/path/on/your/fs") it used to fail.
    (tmp_path / "hints").write_text("romio_cb_write enable\n")
    env = dict(os.environ, **{k: v.format(tmp=tmp_path) for k, v in USER_ENV.items()})
    env["PARIO_ENGINE"] = ENGINE
    test = "tests/python/test_bench_e2e.py::test_keep_keeps_the_files_and_default_dir"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:]
    assert not (tmp_path / "user-scratch").exists() and not (tmp_path / "user.db").exists()
