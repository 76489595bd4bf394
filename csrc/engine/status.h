/* Progress lines (stdout, rank 0) and per-rank status files for the front end's watchdog
 * (schemas/README.md, sections 2 and 3). */
#ifndef PARIO_ENGINE_STATUS_H
#define PARIO_ENGINE_STATUS_H

/* One "@pario {...}" line on stdout. */
void pario_progress(const char *json);
/* The phase line of a finished phase (rank 0): bandwidth, IOPS, errors, step of steps. */
void pario_progress_phase(int ci, const char *name, const char *op, int rep, int step, int steps, double bw_mib,
                          double iops, unsigned long long errors);
void pario_status_open(const char *status_dir, int rank);
void pario_status(int case_index, const char *op, int rep, const char *state);

#endif
