/* What a timed phase measured on every rank, reduced onto rank 0; errors agreed by all ranks.
 * The data phases (phases.c) and the metadata phases (metadata.c) share it, and report each
 * finished phase to their caller through pario_hooks, so that neither calls back up. */
#ifndef PARIO_ENGINE_REDUCE_H
#define PARIO_ENGINE_REDUCE_H

#include <stdint.h>

#include "engine/groups.h"
#include "engine/pagecache.h"
#include "pario/backend.h"
#include "pario/case.h"

/* One timed phase, reduced on rank 0. Per-rank arrays hold nranks values. */
typedef struct {
  pario_op op;
  int rep;
  uint64_t bytes, ops;
  double t_start, t_end, xfer_start, xfer_end;
  double first_done, open_close_max;
  double *r_open, *r_xfer, *r_sync, *r_close, *r_done, *r_bytes;
  double *r_fs_written, *r_fs_read; /* NULL when not counted on every rank (metadata phases) */
  uint64_t checked_bytes, errors;
  uint64_t syncs, stonewalled; /* -Y/-e sync calls; ranks the -D deadline stopped (all ranks) */
  double check_s; /* timed reads: the longest time a rank spent checking, taken out of its timings */
  int bad_rank, bad_file;
  uint64_t bad_offset, bad_expected, bad_got;
  pario_cache_fig cache; /* the eviction and residency before a read or verify (cache.measured / evicted) */
} pario_phase_rec;

/* One case: what rank 0 records while the case runs. */
typedef struct {
  int index;
  int files;
  uint64_t file_bytes, bytes_per_rank, total_bytes, ops_per_rank, call_bytes;
  int reorder_shift, verify_exact;
  int grid[PARIO_MAX_DIMS];
  pario_info effective; /* rank 0's file after its first open */
  int have_effective;
  pario_info lib_effective; /* library layers: what the library reports it did (backend lib_info) */
  int have_lib_effective;
  char fs_layout[256]; /* the layout rank 0's file got, as the file system reports it (CephFS) */
  const char *fs_layout_means;
  /* metadata workload: totals over all ranks and repetitions */
  uint64_t md_created, md_removed, md_dirs, md_left, md_files_per_rep;
  int nphases, cap;
  pario_phase_rec *phases;
  int reps_run, time_up; /* repetitions that ran; whether -T (max_time_ms) stopped the rest */
} pario_case_rec;

void pario_case_rec_free(pario_case_rec *rec);

/* Per-rank outcome of one timed phase (data or metadata), reduced by pario_phase_finish. */
typedef struct {
  /* open start, open end, xfer end, sync end, close end, bytes; the bytes written and read at the
   * file system's calls (fsbytes.h) and whether they were counted (1) */
  double t[9];
  uint64_t bytes, ops, checked, errors;
  uint64_t syncs, stonewalled; /* sync calls made; 1 when the deadline stopped this rank's loop */
  uint64_t bad_off, bad_exp, bad_got, bad_file;
  double check_s; /* time spent checking inside the timed loop (reads), not counted as I/O */
  int rc;
} pario_outcome;

/* What the caller of a case runner does after each phase that completed on every rank (main.c:
 * rewrite the result document), and the progress count of the run. */
typedef struct {
  void (*phase_done)(void *arg);
  void *arg;
  int step, steps;
} pario_hooks;

/* The same error code and message on every rank; 0 when all succeeded (collective). */
int pario_agree(int rc, const pario_world *w);
/* Reduce one phase's outcomes into rec (rank 0), with the cache step before it (or NULL), tell the
 * hooks, print the progress line. */
void pario_phase_finish(const pario_world *w, int ci, const pario_case *cs, pario_op op, int rep,
                        const pario_outcome *o, const pario_cache_fig *cache, pario_case_rec *rec, pario_hooks *h);

#endif
