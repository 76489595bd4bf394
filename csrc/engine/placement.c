/* Rank placement as the launcher gave it, gathered to rank 0; the srun singleton check. */
#define _GNU_SOURCE
#include "engine/placement.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pario/errors.h"

static int env_int(const char *name) {
  const char *v = getenv(name);
  char *end;
  if (!v || !*v) return -1;
  long x = strtol(v, &end, 10);
  return *end || x < 0 || x > 0x7fffffff ? -1 : (int)x;
}

/* Slurm's numbers are the ranks' only when srun started every rank itself (a step of as many
 * tasks as ranks): under hydra started through srun (mpiexec inside an allocation) the step's
 * tasks are hydra's proxies, one per node, and every rank sees its proxy's SLURM_PROCID. */
static const char *source_of(int nranks) {
  if (getenv("SLURM_STEP_ID") && env_int("SLURM_STEP_NUM_TASKS") == nranks && env_int("SLURM_PROCID") >= 0)
    return "slurm";
  if (env_int("OMPI_COMM_WORLD_RANK") >= 0) return "openmpi";
  if (env_int("PMI_RANK") >= 0) return "pmi";
  return "none";
}

static void cpu_ranges(char *out, size_t len) {
  cpu_set_t set;
  out[0] = 0;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  size_t used = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
    int n = e > c ? snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", c, e)
                  : snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
    if (n < 0 || (size_t)n >= len - used) { /* too many ranges: keep what fits, say so */
      snprintf(out + (len > 4 ? len - 4 : 0), 4, "...");
      return;
    }
    used += (size_t)n;
    c = e;
  }
}

/* /proc/sys/kernel/random/boot_id, "" where it cannot be read */
static void boot_id(char *out, size_t len) {
  out[0] = 0;
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if (!f) return;
  if (fgets(out, (int)len, f)) out[strcspn(out, "\n")] = 0;
  fclose(f);
}

static pario_place mine(const char *source) {
  pario_place me = {-1, -1, -1, {0}, {0}};
  if (!strcmp(source, "slurm")) {
    me.launcher_rank = env_int("SLURM_PROCID");
    me.local = env_int("SLURM_LOCALID");
    me.node = env_int("SLURM_NODEID");
  } else if (!strcmp(source, "openmpi")) {
    me.launcher_rank = env_int("OMPI_COMM_WORLD_RANK");
    me.local = env_int("OMPI_COMM_WORLD_LOCAL_RANK");
  } else if (!strcmp(source, "pmi")) {
    me.launcher_rank = env_int("PMI_RANK");
    me.local = env_int("MPI_LOCALRANKID"); /* hydra's */
  }
  cpu_ranges(me.cpus, sizeof me.cpus);
  boot_id(me.boot, sizeof me.boot);
  return me;
}

int pario_placement_init(pario_placement *p, const pario_world *w) {
  memset(p, 0, sizeof *p);
  snprintf(p->source, sizeof p->source, "%s", source_of(w->nranks));
  const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");
  snprintf(p->job, sizeof p->job, "%s", job ? job : "");
  snprintf(p->step, sizeof p->step, "%s", step ? step : "");
  pario_place me = mine(p->source);
  if (w->rank == 0) {
    p->ranks = calloc((size_t)w->nranks, sizeof *p->ranks);
    if (!p->ranks) return pario_err(PARIO_E_NOMEM, "out of memory for the placement of %d ranks", w->nranks);
    p->nranks = w->nranks;
  }
  /* a struct of ints and chars: sent as bytes between ranks of one program */
  MPI_Gather(&me, (int)sizeof me, MPI_BYTE, p->ranks, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
  return 0;
}

void pario_placement_free(pario_placement *p) {
  free(p->ranks);
  memset(p, 0, sizeof *p);
}

static void int_or_null(pario_jw *j, const char *key, int v) {
  if (v >= 0) pario_jw_int(j, key, v);
  else pario_jw_null(j, key);
}

void pario_placement_write(pario_jw *j, const pario_placement *p, const pario_world *w) {
  if (!p->ranks) return;
  pario_jw_obj(j, "placement");
  pario_jw_str(j, "source", p->source);
  if (p->job[0]) pario_jw_str(j, "slurm_job", p->job);
  if (p->step[0]) pario_jw_str(j, "slurm_step", p->step);
  pario_jw_arr(j, "ranks");
  for (int r = 0; r < p->nranks; r++) {
    const pario_place *q = &p->ranks[r];
    pario_jw_obj(j, NULL);
    pario_jw_int(j, "rank", r);
    pario_jw_str(j, "host", w->host_names[w->rank_host[r]]);
    int_or_null(j, "launcher_rank", q->launcher_rank);
    int_or_null(j, "local", q->local);
    int_or_null(j, "node", q->node);
    pario_jw_str(j, "cpus", q->cpus);
    if (q->boot[0]) pario_jw_str(j, "boot", q->boot);
    pario_jw_obj_end(j);
  }
  pario_jw_arr_end(j);
  pario_jw_obj_end(j);
}

int pario_launch_check(int nranks) {
  int tasks = env_int("SLURM_STEP_NUM_TASKS");
  if (!getenv("SLURM_STEP_ID") || tasks <= nranks) return 0;
  /* ranks of mpirun or mpiexec inside an allocation: the step's tasks are the launcher's daemons
   * (Open MPI's orted, hydra's proxies), one per node of the allocation, so an `mpirun -n 1` in an
   * allocation of 3 nodes runs in a step of 3 tasks, rightly */
  if (getenv("OMPI_MCA_orte_hnp_uri") || getenv("MPI_LOCALRANKID")) return 0;
  const char *plugin = getenv("SLURM_MPI_TYPE");
  return pario_err(PARIO_E_MPI,
                   "srun started %d tasks but MPI sees %d rank%s: each task started alone, so srun's --mpi=%s "
                   "does not match this MPI (MPICH needs --mpi=pmi2, Open MPI --mpi=pmix; unset SLURM_MPI_TYPE "
                   "to let pario choose)",
                   tasks, nranks, nranks == 1 ? "" : "s", plugin && *plugin ? plugin : "none");
}
