"""The buffer's settings as the preload library reads them (csrc/buffer/README.md), and where
its per-process stats files go. Launching reuses pario.profile.run (the library, mpirun, the
exports for a job script) and pario.run.child (signals and the exit status)."""
from __future__ import annotations

import os

from pario.model.errors import ParioError
from pario.model.units import parse_size

TYPE_CHECKING = False  # typing's own costs a wrapper's start (benchmarks/startup); type checkers take it as True
if TYPE_CHECKING:
    from pathlib import Path  # imported where used: it costs a wrapper's start (platform/outfile.py)

DEFAULT_SIZE = 64 << 20


def size_of(text: str, what: str = "--size") -> int:
    """'64m' -> bytes; 0 is allowed only where it means 'not buffered' (a pattern's size)."""
    if str(text).strip() == "0":
        return 0
    try:
        return parse_size(text, what)
    except ParioError:
        raise ParioError(f"{what} {text}: expected a size like 8m, 64m or 1g") from None


def pattern(spec: str, default: int) -> tuple[str, int]:
    """'*.out:size=8m' -> ('*.out', 8 MiB); '/scratch/*' -> ('/scratch/*', default). A pattern
    that is not absolute and does not start with '*' is made absolute against the current
    directory, since the library matches the absolute path the program opened."""
    glob, _, opts = spec.partition(":")
    if not glob:
        raise ParioError(f"--files {spec!r}: give a file pattern, e.g. '*.out' or '/scratch/*:size=8m'")
    if "," in spec:
        raise ParioError(f"--files {spec!r}: a pattern cannot hold ',' (give --files once per pattern)")
    size = default
    if opts:
        key, eq, value = opts.partition("=")
        if key != "size" or not eq:
            raise ParioError(f"--files {spec!r}: the only option is size=N (e.g. '{glob}:size=8m')")
        size = size_of(value, f"--files {spec!r}: size")
    if not glob.startswith(("/", "*")):
        from pario.platform.outfile import path_text

        rel = path_text(glob)   # as str(Path.cwd() / glob) writes it
        glob = os.getcwd() if rel == "." else os.path.join(os.getcwd(), rel)
    return glob, size


def settings(size_text: str, specs: list[str]) -> tuple[int, list[tuple[str, int]]]:
    """--size and --files as the library takes them (pario buffer, and pario profile --buffer)."""
    size = size_of(size_text)
    if size == 0:
        raise ParioError("--size 0: the buffer needs a size (e.g. 64m); to leave files unbuffered use "
                         "--files 'PATTERN:size=0'")
    return size, [pattern(spec, size) for spec in specs]


def buffer_env(lib: str, size: int, files: list[tuple[str, int]], stats_dir: str | None) -> dict[str, str]:
    """The variables the library reads; the profiler is off unless the caller turns it on."""
    env = {"LD_PRELOAD": lib, "PARIO_BUFFER": "1", "PARIO_BUFFER_SIZE": str(size), "PARIO_PROFILE_DISABLE": "1"}
    if files:
        env["PARIO_BUFFER_FILES"] = ",".join(f"{g}:size={s}" for g, s in files)
    if stats_dir:
        env["PARIO_BUFFER_STATS"] = stats_dir
    return env


def make_stats_dir(near: str | os.PathLike | None = None) -> Path:
    """A fresh directory for the per-process stats files: in the current directory (which the
    ranks of a multi-node job share), else the temporary directory."""
    import tempfile
    from pathlib import Path

    for where in ([near] if near else []) + [Path.cwd(), None]:
        try:
            return Path(tempfile.mkdtemp(prefix=".pario-buffer-stats-", dir=where))
        except OSError:
            continue
    raise ParioError("cannot create a directory for the buffer's stats (current and temporary directories)")


def remove_stats_dir(path: str | os.PathLike) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
