"""Running a program under the profiler: where the preload library is, the environment it
reads, the command line (direct or through mpirun), and merging the per-process logs. `pario
buffer` uses it too, so it imports the log reader and the launchers only where they are used."""
from __future__ import annotations

import json
import os

from pario.model.errors import ParioError

LIB = "libpario-preload.so"
# Paths here are strings: pathlib costs a wrapper's start (platform/outfile.py)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
NOT_BUILT = ("the profiler library is not built: reinstall pario (make setup), or build it with "
             "`cmake -S csrc/intercept -B build/preload && cmake --build build/preload` and set "
             "PARIO_PRELOAD=build/preload/libpario-preload.so")


# The library's MPI-IO and PnetCDF wrappers are compiled against one MPI's mpi.h (Open MPI's by
# default): MPICH's handles are ints where Open MPI's are pointers, so an MPICH program needs the
# library built against MPICH (scripts/build-mpich-engine.sh builds both flavours of pario's C).
MPICH_NOT_BUILT = ("{what} runs under MPICH, and the profiler library here is built for Open MPI (its MPI "
                   "wrappers would crash the program): build its MPICH flavour with `sh scripts/build-mpich-engine.sh` "
                   "and set PARIO_PRELOAD_MPICH=build/mpich/csrc/intercept/libpario-preload.so")


def program_mpi(cmd: list[str]) -> str | None:
    """The MPI an executable is linked against, from the names of the shared libraries it needs
    (the dynamic string table holds them): "mpich", "openmpi", or None (not an ELF program, no MPI,
    or an interpreter such as python whose script loads MPI later)."""
    from pario.platform.elf import NotELF, dynamic_strings
    from pario.platform.which import which

    path = which(cmd[0]) if cmd else None
    try:
        with open(path or "", "rb") as f:
            data = dynamic_strings(f)
    except (OSError, NotELF):
        return None
    if data is None:  # a static program: nothing to preload into
        return None
    if b"libmpich.so" in data:
        return "mpich"
    if b"libmpi.so.40" in data or b"libopen-pal.so" in data or b"libmpi.so.20" in data:
        return "openmpi"
    return None


def preload_path(mpi: str | None = None, what: str = "the program") -> str:
    """The library for a program of MPI flavour `mpi`: for MPICH, $PARIO_PRELOAD_MPICH or the one
    installed under lib/mpich (else the refusal says how to build it); otherwise $PARIO_PRELOAD,
    else the library installed inside this package."""
    if mpi == "mpich":
        env = os.environ.get("PARIO_PRELOAD_MPICH")
        if env:
            if not os.path.isfile(env):
                raise ParioError(f"PARIO_PRELOAD_MPICH={env} is not a file; unset it or point it at the {LIB} of "
                                 "scripts/build-mpich-engine.sh")
            return os.path.abspath(env)
        here = os.path.join(_PACKAGE, "lib", "mpich", LIB)
        if os.path.isfile(here):
            return here
        raise ParioError(MPICH_NOT_BUILT.format(what=what), exit_code=3)
    env = os.environ.get("PARIO_PRELOAD")
    if env:
        if not os.path.isfile(env):
            raise ParioError(f"PARIO_PRELOAD={env} is not a file; unset it or point it at {LIB}")
        return os.path.abspath(env)
    here = os.path.join(_PACKAGE, "lib", LIB)
    if os.path.isfile(here):
        return here
    raise ParioError(NOT_BUILT, exit_code=3)


def profile_env(lib: str, parts_dir: str, trace: bool, mem_mib: float | None,
                runtime_files: bool = False) -> dict[str, str]:
    """The variables the preload library reads (csrc/profile/settings.c)."""
    env = {"LD_PRELOAD": lib, "PARIO_PROFILE_DIR": parts_dir}
    if trace:
        env["PARIO_PROFILE_TRACE"] = "1"
    if runtime_files:
        env["PARIO_PROFILE_RUNTIME_FILES"] = "1"
    if mem_mib:
        env["PARIO_PROFILE_MEM"] = f"{mem_mib:g}"
    return env


def env_exports(env: dict[str, str]) -> list[str]:
    """Shell lines for a job script that starts its own launcher (srun keeps the environment)."""
    lines = []
    for key, val in env.items():
        if key == "LD_PRELOAD":
            lines.append(f'export LD_PRELOAD="{val}${{LD_PRELOAD:+:$LD_PRELOAD}}"')
        else:
            lines.append(f'export {key}="{val}"')
    return lines


def merged_preload(lib: str, environ=None) -> str:
    """Our library first, keeping whatever the caller already preloads."""
    environ = os.environ if environ is None else environ
    old = environ.get("LD_PRELOAD", "")
    return f"{lib}:{old}" if old else lib


def make_parts_dir(output: str) -> str:
    """A fresh directory next to the output (shared file systems see it from every node)."""
    from pario.platform.outfile import new_dir, path_text

    output = path_text(output)
    parent = os.path.dirname(output) or "."
    try:
        return new_dir(parent, f".{os.path.basename(output)}.parts-")
    except OSError as exc:   # the command line checked the place; a file system can still refuse
        raise ParioError(f"cannot make the profile's parts directory in {parent}: {exc.strerror}; choose another "
                         "place with -o") from None


def mpirun_argv(ranks: int, env: dict[str, str], app: list[str]) -> list[str]:
    """mpirun with the profiler's variables exported to the ranks only (not to mpirun itself)."""
    return launch_argv(ranks, env, app, "mpirun")


_LAUNCHERS: dict[str, object] = {}


def launcher_mpi(detect, mpirun: str):
    """detect(mpirun), asked once per launcher (the flavour choice and the launch both need it)."""
    if mpirun not in _LAUNCHERS:
        _LAUNCHERS[mpirun] = detect(mpirun)
    return _LAUNCHERS[mpirun]


def mpi_of_launch(cmd: list[str], ranks: int | None, launcher: str | None) -> str | None:
    """The MPI flavour the program runs under: its own linkage, else (launched with -n) the
    launcher's MPI. srun starts whatever the program links, so it says nothing."""
    own = program_mpi(cmd)
    if own or not ranks or launcher == "srun":
        return own
    from pario.platform.mpi import detect, find_mpirun

    return getattr(launcher_mpi(detect, find_mpirun()), "flavour", None)


def launch_argv(ranks: int, env: dict[str, str], app: list[str], launcher: str, nodes: int | None = None) -> list[str]:
    """The MPI launch of `app` with the profiler's variables set in the ranks only: mpirun exports
    them (-x/-genv); under srun, which would pass its own environment on (and be profiled itself),
    `env VAR=VALUE... app` sets them in each task just before the program starts."""
    # the launcher logic of the engine runs (flavour detection, root and oversubscribe flags, srun's plugin)
    from pario.platform.mpi import detect, find_mpirun
    from pario.run.launchers import check_launcher, command
    from pario.run.launchers import nodes as placement

    mpi = launcher_mpi(detect, find_mpirun())
    placement.check(mpi, launcher, ranks, nodes)
    if launcher == "srun":
        check_launcher("srun", mpi)
        return command(mpi, ranks, ["env", *(f"{k}={v}" for k, v in env.items()), *app], launcher="srun",
                       nodes=nodes)
    return command(mpi, ranks, app, env=env, nodes=nodes)


def merge(parts_dir: str, output: str, job: dict, ended_by: int | None = None, extra: dict | None = None) -> dict:
    """Write one job log from the parts (and `extra` top-level keys, such as the file system's
    view of a buffered run), atomically and compact (logread.compact); return it. ended_by: the
    signal that ended the program, if one did."""
    from pario.analysis.profile.logread import _load_json, compact, job_from_parts, parts_in
    from pario.platform.outfile import write_output

    files = parts_in(parts_dir)
    if not files:
        import signal
        why = (f"{signal.Signals(ended_by).name} ended it before it wrote one" if ended_by
               else "it may not use dynamic linking (static binaries cannot be preloaded)")
        raise ParioError(f"the program left no profile logs in {parts_dir}: {why}", exit_code=128 + ended_by
                         if ended_by else 2)
    try:  # the parts our library just wrote: the schema is checked only if they are not as it writes them
        doc = job_from_parts([_load_json(f, schema=False) for f in files], job)
        doc.update(extra or {})
        data = json.dumps(compact(doc), separators=(",", ":")) + "\n"
    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
        for f in files:
            _load_json(f)  # the schema names the damaged part in one line
        raise
    write_output(output, data.encode("utf-8"))
    return doc


def remove_parts(parts_dir: str) -> None:
    """Remove the parts directory pario created (only our *.json parts and leftovers in it)."""
    from pario.platform.outfile import suffix

    for name in os.listdir(parts_dir):
        f = os.path.join(parts_dir, name)
        if suffix(name) in (".json", ".tmp") and os.path.isfile(f):
            os.unlink(f)
    try:
        os.rmdir(parts_dir)
    except OSError:
        pass  # something else was written there; leave it


def default_output(app: list[str]) -> str:
    import time

    from pario.platform.outfile import path_text

    text = path_text(app[0]) if app else "job"
    name = "" if text == "." else os.path.basename(text)   # pathlib's name of '' and '.' ('' and '/': '')
    return f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.pario-profile.json"


__all__ = ["program_mpi", "mpi_of_launch", "preload_path", "profile_env", "env_exports", "merged_preload",
           "make_parts_dir", "mpirun_argv", "launch_argv", "merge", "remove_parts", "default_output"]
