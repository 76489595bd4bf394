"""srun inside a Slurm allocation."""
from __future__ import annotations

from pario.platform.mpi import MPI


def argv(mpi: MPI, ranks: int) -> list[str]:
    """The launcher part of the command line. srun exports the caller's environment (--export=ALL):
    the forwarded variables and the io component go through it (env_of)."""
    out = ["srun", "-n", str(ranks)]
    if mpi.flavour == "openmpi":
        out.append("--mpi=pmix")  # Open MPI 4 under srun starts singletons with pmi2
    elif mpi.flavour in ("mpich", "intel"):
        out.append("--mpi=pmi2")
    return out


def env_of(io: str | None, env: dict[str, str]) -> dict[str, str]:
    """The launcher's own environment, which srun passes to the ranks."""
    if io:
        env = {**env, "OMPI_MCA_io": io}
    return env



