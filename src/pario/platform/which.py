"""The file exec runs for a command name: shutil.which's answer without loading shutil (and the
compression modules it imports), for the commands that wrap a program, whose start is the
program's (benchmarks/startup)."""
from __future__ import annotations

import os


def which(name: str) -> str | None:
    """The executable file `name` names: itself when it holds a '/', else the first on $PATH
    (the system's default path when PATH is unset), or None."""
    if os.sep in name:
        return name if _runnable(name) else None
    for folder in (os.environ.get("PATH") or os.confstr("CS_PATH") or os.defpath).split(os.pathsep):
        path = os.path.join(folder, name)
        if _runnable(path):
            return path
    return None


def _runnable(path: str) -> bool:
    return os.access(path, os.X_OK) and not os.path.isdir(path)
