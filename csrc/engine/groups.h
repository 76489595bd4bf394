/* Ranks and hosts (from real processor names), and the file groups of each strategy. */
#ifndef PARIO_ENGINE_GROUPS_H
#define PARIO_ENGINE_GROUPS_H

#include <mpi.h>
#include <stddef.h>

#include "engine/spec.h"
#include "pario/case.h"

typedef struct {
  int rank, nranks;
  int host_index, nhosts;                     /* hosts numbered by first appearance in rank order */
  int host_rank, host_size;                   /* this rank's index on its host, ranks on its host */
  char (*host_names)[MPI_MAX_PROCESSOR_NAME]; /* nhosts names (all ranks hold them) */
  int *host_counts;                           /* ranks per host */
  int *rank_host;                             /* host index of every rank */
} pario_world;

int pario_world_init(pario_world *w);
void pario_world_free(pario_world *w);

typedef struct {
  int file_index, nfiles;
  MPI_Comm comm; /* the ranks of this file */
  int member, nmembers;
  int *members;  /* global rank of each member */
  int aggregate; /* leaders do all I/O of the group */
} pario_group;

int pario_group_make(const pario_case *cs, const pario_world *w, pario_group *g);
void pario_group_free(pario_group *g);
/* DIR/PREFIX.CASE.FILE */
void pario_file_path(const pario_run *run, int case_index, int file_index, char *out, size_t len);

#endif
