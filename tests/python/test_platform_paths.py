"""Where pario finds its native parts when nothing points at them: the engine and the preload
library installed inside the package (pario/bin, pario/lib), whichever module asks."""
from pathlib import Path

import pytest

import pario
from pario.platform.engine import engine_path
from pario.profile.run import LIB, preload_path

PACKAGE = Path(pario.__file__).resolve().parent


def test_engine_installed_with_the_package(monkeypatch):
    installed = PACKAGE / "bin" / "pario-engine"
    if not installed.is_file():
        pytest.skip(f"no engine installed in {PACKAGE} (running from the source tree)")
    monkeypatch.delenv("PARIO_ENGINE", raising=False)
    assert engine_path() == str(installed)


def test_preload_installed_with_the_package(monkeypatch):
    installed = PACKAGE / "lib" / LIB
    if not installed.is_file():
        pytest.skip(f"no preload library installed in {PACKAGE} (running from the source tree)")
    monkeypatch.delenv("PARIO_PRELOAD", raising=False)
    assert preload_path() == str(installed)
