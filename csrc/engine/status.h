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
/* The rank's line `case op rep state bytes` at a phase edge; state "open" starts a new phase. */
void pario_status(int case_index, const char *op, int rep, const char *state);

/* Bytes moved so far inside a phase, for the front end's progress display. The transfer loop
 * calls pario_status_xfer(bytes so far) after each call: a decrement and a branch, until every
 * period_calls-th call (about one MiB, set by pario_status_calls from the call size) reads the
 * clock, and at most once per second the count is written into the status line. */
extern unsigned long pario_status_countdown;
void pario_status_calls(unsigned long long call_bytes);
void pario_status_moved(unsigned long long bytes);
/* The phase's final count, carried by the lines of its later states (sync, close, done). */
void pario_status_total(unsigned long long bytes);
static inline void pario_status_xfer(unsigned long long bytes) {
  if (--pario_status_countdown == 0) pario_status_moved(bytes);
}

#endif
