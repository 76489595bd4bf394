/* The engine's internal contracts: the run, the world of ranks, file groups, phase records. */
#ifndef PARIO_ENGINE_H
#define PARIO_ENGINE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "pario/backend.h"
#include "pario/case.h"

typedef struct {
  char run_id[128];
  char dir[4096];
  char prefix[256];
  char status_dir[4096];
  int ncases;
  pario_case *cases;
} pario_run;

/* spec.c: parse and check the spec document (schemas/spec.schema.json); origin names it in errors. */
int pario_spec_parse(const char *text, const char *origin, pario_run *run);
void pario_spec_free(pario_run *run);

/* Ranks and hosts, from real processor names. */
typedef struct {
  int rank, nranks;
  int host_index, nhosts;   /* hosts numbered by first appearance in rank order */
  int host_rank, host_size; /* this rank's index on its host, ranks on its host */
  char (*host_names)[MPI_MAX_PROCESSOR_NAME]; /* nhosts names (all ranks hold them) */
  int *host_counts;         /* ranks per host */
  int *rank_host;           /* host index of every rank */
} pario_world;

/* groups.c */
int pario_world_init(pario_world *w);
void pario_world_free(pario_world *w);

typedef struct {
  int file_index, nfiles;
  MPI_Comm comm;       /* the ranks of this file */
  int member, nmembers;
  int *members;        /* global rank of each member */
  int aggregate;       /* leaders do all I/O of the group */
} pario_group;

int pario_group_make(const pario_case *cs, const pario_world *w, pario_group *g);
void pario_group_free(pario_group *g);
/* DIR/PREFIX.CASE.FILE */
void pario_file_path(const pario_run *run, int case_index, int file_index, char *out, size_t len);

/* timing.c: this rank's clock aligned on rank 0's (monotonic seconds since the engine's start). */
int pario_clock_sync(MPI_Comm comm, double *max_offset);
double pario_t(void);

/* One timed phase, reduced on rank 0. Per-rank arrays hold nranks values. */
typedef struct {
  pario_op op;
  int rep;
  uint64_t bytes, ops;
  double t_start, t_end, xfer_start, xfer_end;
  double first_done, open_close_max;
  double *r_open, *r_xfer, *r_sync, *r_close, *r_done, *r_bytes;
  uint64_t checked_bytes, errors;
  int bad_rank, bad_file;
  uint64_t bad_offset, bad_expected, bad_got;
} pario_phase_rec;

typedef struct {
  int index;
  int files;
  uint64_t file_bytes, bytes_per_rank, total_bytes, ops_per_rank, call_bytes;
  int reorder_shift, verify_exact;
  int grid[PARIO_MAX_DIMS];
  pario_info effective;     /* rank 0's file after its first open */
  int have_effective;
  pario_info lib_effective; /* library layers: what the library reports it did (backend lib_info) */
  int have_lib_effective;
  /* metadata workload: totals over all ranks and repetitions */
  uint64_t md_created, md_removed, md_dirs, md_left, md_files_per_rep;
  int nphases, cap;
  pario_phase_rec *phases;
} pario_case_rec;

/* phases.c: run one case on every rank; rank 0 fills rec. Returns 0 or a code (same on all ranks). */
int pario_case_run(const pario_run *run, int case_index, const pario_world *w, pario_case_rec *rec,
                   int *step, int steps);

/* result.c: the result document (rank 0). */
typedef struct {
  const pario_run *run;
  const pario_world *world;
  char started[64];
  char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING];
  char mpi_standard[16];
  double clock_offset_max;
  int ncases;               /* cases recorded so far */
  pario_case_rec *cases;
  const char *status;       /* running, complete, partial, failed */
  int err_code, err_rank, err_case;
  char err_msg[1024];
  const char *err_op;
} pario_result;

int pario_result_save(const pario_result *res, const char *path);
void pario_phase_rec_free(pario_phase_rec *p);

/* main.c: rewrite the result document now (rank 0; after every phase). */
void pario_checkpoint(void);

/* settings_open.c: --settings, one untimed open and close per case (MPI-IO layers). */
int pario_settings_run(const pario_run *run, const pario_world *w);

/* probe.c: O_DIRECT device ceiling of a directory; prints one JSON object. */
int pario_probe(const char *dir, int mib);

/* Progress and status (phases.c). */
void pario_progress(const char *json); /* one "@pario {...}" line on stdout */
void pario_status_open(const char *status_dir, int rank);
void pario_status(int case_index, const char *op, int rep, const char *state);

#endif
