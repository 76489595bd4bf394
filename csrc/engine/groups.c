/* Ranks, hosts (by real processor name) and the file groups of each strategy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "engine/groups.h"
#include "pario/errors.h"
#include "pario/pattern.h"

int pario_world_init(pario_world *w) {
  memset(w, 0, sizeof *w);
  MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w->nranks);
  char me[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0, fake = 0;
  MPI_Get_processor_name(me, &len);
  /* Testing aid: PARIO_TEST_HOSTS=K pretends the ranks sit on K hosts (contiguous blocks),
   * so that per-node files and cross-host read shifts are testable on one machine. */
  const char *th = getenv("PARIO_TEST_HOSTS");
  if (th && (fake = atoi(th)) > 0) {
    snprintf(me, sizeof me, "testhost%d", (int)((long)w->rank * fake / w->nranks));
    if (w->rank == 0) pario_log(PARIO_LOG_WARN, "PARIO_TEST_HOSTS=%d: host names are simulated", fake);
  }
  char(*all)[MPI_MAX_PROCESSOR_NAME] = calloc((size_t)w->nranks, sizeof *all);
  w->rank_host = calloc((size_t)w->nranks, sizeof *w->rank_host);
  w->host_names = calloc((size_t)w->nranks, sizeof *w->host_names);
  w->host_counts = calloc((size_t)w->nranks, sizeof *w->host_counts);
  if (!all || !w->rank_host || !w->host_names || !w->host_counts) {
    free(all);
    return pario_err(PARIO_E_NOMEM, "out of memory for %d host names", w->nranks);
  }
  MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < w->nranks; r++) {
    int h;
    for (h = 0; h < w->nhosts; h++)
      if (!strcmp(w->host_names[h], all[r])) break;
    if (h == w->nhosts) strcpy(w->host_names[w->nhosts++], all[r]);
    if (r == w->rank) w->host_rank = w->host_counts[h];
    w->host_counts[h]++;
    w->rank_host[r] = h;
  }
  w->host_index = w->rank_host[w->rank];
  w->host_size = w->host_counts[w->host_index];
  free(all);
  return 0;
}

void pario_world_free(pario_world *w) {
  free(w->host_names);
  free(w->host_counts);
  free(w->rank_host);
  memset(w, 0, sizeof *w);
}

int pario_group_make(const pario_case *cs, const pario_world *w, pario_group *g) {
  memset(g, 0, sizeof *g);
  g->comm = MPI_COMM_NULL;
  g->aggregate = cs->aggregate;
  switch (cs->strategy) {
    case PARIO_SERIAL:
    case PARIO_SHARED:
      g->nfiles = 1;
      g->file_index = 0;
      break;
    case PARIO_FPP:
      g->nfiles = w->nranks;
      g->file_index = w->rank;
      break;
    case PARIO_NFILES:
      if (cs->nfiles < 1 || cs->nfiles > w->nranks)
        return pario_err(PARIO_E_SPEC, "case %s: nfiles %d must be between 1 and the number of ranks (%d)",
                         cs->name, cs->nfiles, w->nranks);
      g->nfiles = cs->nfiles;
      g->file_index = (int)((long)w->rank * cs->nfiles / w->nranks); /* contiguous blocks of ranks */
      break;
    case PARIO_PERNODE:
      g->nfiles = w->nhosts;
      g->file_index = w->host_index;
      break;
  }
  /* A file of one rank is opened on (a duplicate of) MPI_COMM_SELF, as IOR and applications do:
   * MPI libraries give it trivial collectives, which a size-1 communicator from a split may lack. */
  int err = cs->strategy == PARIO_FPP ? MPI_Comm_dup(MPI_COMM_SELF, &g->comm)
                                      : MPI_Comm_split(MPI_COMM_WORLD, g->file_index, w->rank, &g->comm);
  if (err != MPI_SUCCESS) return pario_err(PARIO_E_MPI, "cannot make the file's communicator");
  MPI_Comm_rank(g->comm, &g->member);
  MPI_Comm_size(g->comm, &g->nmembers);
  g->members = malloc(sizeof *g->members * (size_t)g->nmembers);
  if (!g->members) return pario_err(PARIO_E_NOMEM, "out of memory");
  MPI_Allgather((void *)&w->rank, 1, MPI_INT, g->members, 1, MPI_INT, g->comm);
  if (cs->pat.kind == PARIO_SUBARRAY) {
    /* the global array must not overflow MPI's int sizes when a view describes it */
    int grid[PARIO_MAX_DIMS];
    pario_pattern_grid(g->nmembers, cs->pat.ndims, grid);
    for (int d = 0; d < cs->pat.ndims; d++)
      if (cs->pat.ldims[d] * (uint64_t)grid[d] > 0x7fffffff)
        return pario_err(PARIO_E_SPEC, "case %s: global dimension %d is too large for MPI", cs->name, d);
  }
  if (cs->pat.kind == PARIO_BTIO) {
    int p = pario_btio_cells(g->nmembers);
    if (!p)
      return pario_err(PARIO_E_SPEC, "case %s: btio needs a square number of ranks (1, 4, 9, 16, ...), not %d",
                       cs->name, g->nmembers);
    for (int d = 0; d < 3; d++)
      if (cs->pat.points[d] < (uint64_t)p)
        return pario_err(PARIO_E_SPEC, "case %s: btio over %d ranks needs at least %d grid points per dimension",
                         cs->name, g->nmembers, p);
    for (int m = 0; m < g->nmembers; m++) /* one call per step: MPI counts are ints */
      if (pario_btio_step_bytes(&cs->pat, m, g->nmembers) > 0x7fffffff)
        return pario_err(PARIO_E_SPEC, "case %s: btio step of rank %d is over 2 GiB; use more ranks or a smaller grid",
                         cs->name, m);
  }
  return 0;
}

void pario_group_free(pario_group *g) {
  if (g->comm != MPI_COMM_NULL) MPI_Comm_free(&g->comm);
  free(g->members);
  memset(g, 0, sizeof *g);
  g->comm = MPI_COMM_NULL;
}

void pario_file_path(const pario_run *run, int case_index, int file_index, char *out, size_t len) {
  if (run->cases[case_index].unique_dir) /* IOR's -u: fpp, DIR/<rank>/ (the front end makes them) */
    snprintf(out, len, "%s/%d/%s.%d.%d", run->dir, file_index, run->prefix, case_index, file_index);
  else
    snprintf(out, len, "%s/%s.%d.%d", run->dir, run->prefix, case_index, file_index);
}
