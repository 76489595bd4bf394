"""Ranks over several nodes (--nodes N): the launcher's flags that place them in blocks (srun -N
with --ntasks-per-node, Open MPI's --map-by ppr:K:node, hydra's -ppn K), where the launcher takes
its hosts from (a Slurm allocation, a hostfile), and whether the ranks may run on other hosts than
pario itself (then the run's own files must be on a file system they all see)."""
from __future__ import annotations

import os

from pario.model.errors import ParioError
from pario.platform.mpi import MPI

# The hostfiles each MPI's launcher reads from the environment (Open MPI: orte_default_hostfile;
# hydra: HYDRA_HOST_FILE; PBS and others hand theirs to mpirun through these too).
HOSTFILE_VARS = {"openmpi": ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_hostfile", "PBS_NODEFILE"),
                 "mpich": ("HYDRA_HOST_FILE", "PBS_NODEFILE"), "intel": ("I_MPI_HYDRA_HOST_FILE", "HYDRA_HOST_FILE",
                                                                       "PBS_NODEFILE")}


def per_node(ranks: int, nodes: int) -> int:
    """Ranks on each node, in blocks: -n 6 over 3 nodes is 2 each; -n 5 is 2, 2, 1."""
    return -(-ranks // nodes)


def argv(mpi: MPI, launcher: str, ranks: int, nodes: int | None) -> list[str]:
    """The flags that spread `ranks` over `nodes` in blocks (rank r on node r // per_node)."""
    if not nodes:
        return []
    k = per_node(ranks, nodes)
    if launcher == "srun":
        return ["-N", str(nodes), f"--ntasks-per-node={k}"]
    if mpi.flavour == "openmpi":
        return ["--map-by", f"ppr:{k}:node"]
    if mpi.flavour in ("mpich", "intel"):
        return ["-ppn", str(k)]
    raise ParioError(f"--nodes: pario does not know how {mpi.flavour} ({mpi.version}) places ranks per node; "
                     "run inside a Slurm allocation with --launcher srun")


def hostfile(mpi: MPI, environ=None) -> tuple[str, str] | None:
    """(variable, path) of the hostfile this MPI's launcher reads from the environment, or None."""
    env = os.environ if environ is None else environ
    for var in HOSTFILE_VARS.get(mpi.flavour, ()):
        if env.get(var):
            return var, env[var]
    return None


def hosts_in(path: str) -> list[str]:
    """The hosts a hostfile names (Open MPI's `host slots=K`, hydra's `host:K`, one per line), in order."""
    out: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                word = line.split("#", 1)[0].split()
                if word:
                    name = word[0].split(":", 1)[0]
                    if name not in out:
                        out.append(name)
    except OSError as exc:
        raise ParioError(f"cannot read the hostfile {path}: {exc.strerror}") from None
    return out


def check(mpi: MPI, launcher: str, ranks: int, nodes: int | None, environ=None) -> None:
    """--nodes N is refused before anything runs where it cannot be done: more nodes than ranks,
    more than the allocation has, or (mpirun outside Slurm) no hostfile naming N hosts."""
    if not nodes:
        return
    if nodes > ranks:
        raise ParioError(f"--nodes {nodes} with -n {ranks}: every node runs at least one rank; give -n {nodes} "
                         "or more, or fewer nodes")
    from pario.platform import slurm  # here: a launch without --nodes needs none

    alloc = slurm.allocation(environ)
    if alloc is not None:
        if alloc.nodes and nodes > alloc.nodes:
            raise ParioError(f"--nodes {nodes}, but Slurm job {alloc.job} has {alloc.nodes} node"
                             f"{'s' if alloc.nodes != 1 else ''} ({alloc.nodelist}); ask salloc/sbatch for -N {nodes}")
        return
    if launcher == "srun":
        return   # srun outside an allocation asks Slurm for one of N nodes itself
    found = hostfile(mpi, environ)
    if found is None:
        names = " or ".join(HOSTFILE_VARS.get(mpi.flavour, ("a hostfile variable",))[:2])
        raise ParioError(f"--nodes {nodes}: outside a Slurm allocation {os.path.basename(mpi.path)} knows no other "
                         f"host than this one; run inside `salloc -N {nodes}`, or name a hostfile ({names}), "
                         f"e.g. the local cluster's: eval \"$(scripts/local-cluster.sh env)\"")
    hosts = hosts_in(found[1])
    if len(hosts) < nodes:
        raise ParioError(f"--nodes {nodes}, but the hostfile {found[1]} ({found[0]}) names {len(hosts)} host"
                         f"{'s' if len(hosts) != 1 else ''}; give --nodes {len(hosts) or 1} or a longer hostfile")


def reachable(mpi: MPI, environ=None) -> int:
    """How many nodes this MPI's launches can reach from here: the Slurm allocation's nodes, else
    the hosts of the launcher's hostfile, else 1."""
    from pario.platform import slurm

    alloc = slurm.allocation(environ)
    if alloc is not None:
        return alloc.nodes or 1
    found = hostfile(mpi, environ)
    if found is None:
        return 1
    try:
        return max(1, len(hosts_in(found[1])))
    except ParioError:
        return 1


def elsewhere(mpi: MPI, launcher: str, nodes: int | None, environ=None) -> bool:
    """Whether ranks may run on other hosts than this process (rank 0 included: it reads the spec
    and writes the result), so that the run's own directory must be on a shared file system."""
    env = os.environ if environ is None else environ
    if nodes and nodes > 1:
        return True
    from pario.platform import slurm

    alloc = slurm.allocation(env)
    if alloc is not None:   # a batch script or step runs on a node of its allocation; salloc's shell
        return not env.get("SLURMD_NODENAME") or bool(alloc.nodes and alloc.nodes > 1)  # where it was typed
    if launcher == "srun":
        return True   # srun asks Slurm for nodes and runs there
    return hostfile(mpi, env) is not None
