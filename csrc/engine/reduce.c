/* One timed phase reduced onto rank 0, and errors agreed by every rank (see reduce.h). */
#include "engine/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/status.h"
#include "pario/errors.h"

int pario_agree(int rc, const pario_world *w) {
  struct {
    int rc, rank;
  } in = {rc, w->rank}, out;
  MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  if (out.rc == 0) return 0;
  char msg[1024] = {0};
  if (w->rank == out.rank) snprintf(msg, sizeof msg, "rank %d: %s", w->rank, pario_err_msg());
  MPI_Bcast(msg, sizeof msg, MPI_CHAR, out.rank, MPI_COMM_WORLD);
  return pario_err(out.rc, "%s", msg);
}

enum { COLS = (int)(sizeof((pario_outcome *)0)->t / sizeof(double)) };

static double *dup_col(const double *all, int n, int col, double base) {
  double *v = malloc(sizeof *v * (size_t)n);
  if (v)
    for (int r = 0; r < n; r++) v[r] = all[r * COLS + col] - base;
  return v;
}

static void reduce(const pario_world *w, pario_op op, int rep, const pario_outcome *o, pario_case_rec *rec) {
  int n = w->nranks, me = w->rank;
  double *all = me == 0 ? malloc(sizeof *all * COLS * (size_t)n) : NULL;
  uint64_t sums[6] = {o->bytes, o->ops, o->checked, o->errors, o->syncs, o->stonewalled}, tot[6];
  uint64_t bad[5] = {o->errors ? (uint64_t)me : UINT64_MAX, o->bad_off, o->bad_exp, o->bad_got, o->bad_file}, first[5];
  MPI_Gather(o->t, COLS, MPI_DOUBLE, all, COLS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(sums, tot, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double check_s = 0;
  MPI_Reduce(&o->check_s, &check_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* the lowest failing rank's first error: reduce the rank, then fetch its details */
  uint64_t low;
  MPI_Allreduce(&bad[0], &low, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  memcpy(first, bad, sizeof bad);
  if (low != UINT64_MAX) MPI_Bcast(first, 5, MPI_UINT64_T, (int)low, MPI_COMM_WORLD);
  if (me != 0) return;
  if (rec->nphases == rec->cap) {
    rec->cap = rec->cap ? rec->cap * 2 : 8;
    rec->phases = realloc(rec->phases, sizeof *rec->phases * (size_t)rec->cap);
  }
  pario_phase_rec *p = &rec->phases[rec->nphases++];
  memset(p, 0, sizeof *p);
  p->op = op;
  p->rep = rep;
  p->bytes = tot[0];
  p->ops = tot[1];
  p->checked_bytes = tot[2];
  p->errors = tot[3];
  p->syncs = tot[4];
  p->stonewalled = tot[5];
  p->check_s = check_s;
  p->bad_rank = low == UINT64_MAX ? -1 : (int)low;
  p->bad_offset = first[1];
  p->bad_expected = first[2];
  p->bad_got = first[3];
  p->bad_file = (int)first[4];
  p->t_start = p->xfer_start = 1e300;
  p->t_end = p->xfer_end = -1e300;
  int any_io = 0;
  int counted = 1;
  for (int r = 0; r < n; r++) {
    any_io |= all[r * COLS + 5] > 0;
    counted &= all[r * COLS + 8] > 0;
  }
  double first_done = 1e300;
  for (int r = 0; r < n; r++) {
    const double *t = all + r * COLS;
    if (t[0] < p->t_start) p->t_start = t[0];
    if (t[1] < p->xfer_start) p->xfer_start = t[1];
    if (t[2] > p->xfer_end) p->xfer_end = t[2];
    if (t[4] > p->t_end) p->t_end = t[4];
    if ((!any_io || t[5] > 0) && t[4] < first_done) first_done = t[4]; /* among ranks that moved data */
    double oc = (t[1] - t[0]) + (t[4] - t[3]);
    if (oc > p->open_close_max) p->open_close_max = oc;
  }
  p->first_done = first_done - p->t_start;
  p->r_open = malloc(sizeof(double) * (size_t)n);
  p->r_xfer = malloc(sizeof(double) * (size_t)n);
  p->r_sync = malloc(sizeof(double) * (size_t)n);
  p->r_close = malloc(sizeof(double) * (size_t)n);
  p->r_done = dup_col(all, n, 4, p->t_start);
  p->r_bytes = dup_col(all, n, 5, 0);
  if (counted) {
    p->r_fs_written = dup_col(all, n, 6, 0);
    p->r_fs_read = dup_col(all, n, 7, 0);
  }
  for (int r = 0; r < n && p->r_open && p->r_xfer && p->r_sync && p->r_close; r++) {
    const double *t = all + r * COLS;
    p->r_open[r] = t[1] - t[0];
    p->r_xfer[r] = t[2] - t[1];
    p->r_sync[r] = t[3] - t[2];
    p->r_close[r] = t[4] - t[3];
  }
  free(all);
}

void pario_phase_finish(const pario_world *w, int ci, const pario_case *cs, pario_op op, int rep,
                        const pario_outcome *o, const pario_cache_fig *cache, pario_case_rec *rec, pario_hooks *h) {
  reduce(w, op, rep, o, rec);
  if (w->rank == 0 && cache) rec->phases[rec->nphases - 1].cache = *cache;
  h->step++;
  if (h->phase_done) h->phase_done(h->arg);
  if (w->rank != 0) return;
  const pario_phase_rec *p = &rec->phases[rec->nphases - 1];
  double dt = p->t_end - p->t_start, dx = p->xfer_end - p->xfer_start;
  pario_progress_phase(ci, cs->name, pario_op_name(p->op), p->rep, h->step, h->steps,
                       dt > 0 ? (double)p->bytes / 1048576.0 / dt : 0.0, dx > 0 ? (double)p->ops / dx : 0.0,
                       (unsigned long long)p->errors);
}

static void phase_rec_free(pario_phase_rec *p) {
  free(p->r_open);
  free(p->r_xfer);
  free(p->r_sync);
  free(p->r_close);
  free(p->r_done);
  free(p->r_bytes);
  free(p->r_fs_written);
  free(p->r_fs_read);
}

void pario_case_rec_free(pario_case_rec *rec) {
  for (int p = 0; p < rec->nphases; p++) phase_rec_free(&rec->phases[p]);
  free(rec->phases);
  rec->phases = NULL;
  rec->nphases = rec->cap = 0;
}
