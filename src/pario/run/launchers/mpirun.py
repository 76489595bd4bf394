"""mpirun (or mpiexec) with the flags each MPI flavour needs."""
from __future__ import annotations

from pario.platform.mpi import MPI


def argv(mpi: MPI, ranks: int, *, io: str | None, env: dict[str, str], is_root: bool) -> list[str]:
    """The launcher part of the command line; `env` is forwarded to every rank."""
    out = [mpi.path, "-n", str(ranks)]
    if mpi.flavour == "openmpi":
        out.append("--oversubscribe")  # more ranks than cores is a valid (if slow) experiment
        if is_root:
            out.append("--allow-run-as-root")
        if io:
            out += ["--mca", "io", io]
        for key, value in sorted(env.items()):
            out += ["-x", f"{key}={value}"]
    elif mpi.flavour in ("mpich", "intel"):
        for key, value in sorted(env.items()):
            out += ["-genv", key, value]
    return out
