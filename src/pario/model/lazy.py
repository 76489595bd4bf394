"""A package's names loaded when first used: `from pario.settings import Settings` imports the
module that defines Settings then, so that a caller of one light submodule (`from pario.settings
import knobs`, as every command's parser does) does not load the package's heavier ones."""
from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from typing import Any, Callable


def exports(package: str, home: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `home` from the module it names."""
    def getattr_(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(package)
        value = getattr(importlib.import_module(home[name]), name)
        setattr(module, name, value)  # found directly from now on
        return value

    return getattr_
