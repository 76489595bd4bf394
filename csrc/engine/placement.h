/* Where each rank runs, as its launcher placed it: host, the launcher's own numbering (Slurm's
 * SLURM_PROCID/LOCALID/NODEID, Open MPI's OMPI_COMM_WORLD_*, or PMI_RANK under MPICH's hydra)
 * and the CPUs it may run on; and the check that srun did not start every rank alone. */
#ifndef PARIO_ENGINE_PLACEMENT_H
#define PARIO_ENGINE_PLACEMENT_H

#include "common/json_write.h"
#include "engine/groups.h"

typedef struct {
  int launcher_rank, local, node; /* -1: the launcher did not say */
  char cpus[96];                  /* sched_getaffinity as ranges, "0-1,4" */
  char boot[40];                  /* the kernel's boot id: nodes that share it are one machine */
} pario_place;

typedef struct {
  char source[16]; /* slurm | openmpi | pmi | none (rank 0's view) */
  char job[32], step[32];
  pario_place *ranks; /* rank 0 only: one per rank */
  int nranks;
} pario_placement;

/* Collective over MPI_COMM_WORLD: gather every rank's placement to rank 0. */
int pario_placement_init(pario_placement *p, const pario_world *w);
void pario_placement_free(pario_placement *p);
/* The "placement" object of the result document (rank 0). */
void pario_placement_write(pario_jw *j, const pario_placement *p, const pario_world *w);
/* 0, or PARIO_E_MPI when this process is inside an srun step of more tasks than MPI ranks: srun's
 * --mpi plugin does not match this MPI and every task started as a 1-rank job (MPICH under
 * --mpi=pmix or none does that silently). Not collective: each such rank is alone anyway. */
int pario_launch_check(int nranks);

#endif
