/* The result document (schemas/result.schema.json), rewritten atomically after every phase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_write.h"
#include "engine/casefields.h"
#include "engine/result.h"
#include "pario/errors.h"

/* The case as the engine ran it: the spec's fields (casefields.c, the table spec.c reads). */
static void case_spec(pario_jw *j, const pario_case *c) {
  pario_jw_obj(j, "spec");
  pario_case_fields_write(j, c);
  pario_jw_obj_end(j);
}

/* Library layers: the version, the requested settings and what the library reports it did. */
/* "requested": the case's settings; "effective" and "source": what the layer reported. */
static void asked_and_got(pario_jw *j, int n, const char (*key)[64], const char (*val)[256], const pario_info *eff) {
  pario_jw_obj(j, "requested");
  for (int k = 0; k < n; k++) pario_jw_str(j, key[k], val[k]);
  pario_jw_obj_end(j);
  if (eff && eff->source) {
    pario_jw_obj(j, "effective");
    for (int k = 0; k < eff->n; k++) pario_jw_str(j, eff->key[k], eff->val[k]);
    pario_jw_obj_end(j);
    pario_jw_str(j, "source", eff->source);
  }
}

static void lib(pario_jw *j, const pario_case *c, const pario_case_rec *r) {
  const pario_backend *be = pario_backend_find(c->backend);
  if (!be || !be->version) return;
  pario_jw_obj(j, "lib");
  pario_jw_str(j, "name", be->name);
  pario_jw_str(j, "version", be->version());
  asked_and_got(j, c->nlib, c->lib_key, c->lib_val, r->have_lib_effective ? &r->lib_effective : NULL);
  pario_jw_obj_end(j);
}

static void metadata(pario_jw *j, const pario_case *c, const pario_case_rec *r) {
  pario_jw_obj(j, "metadata");
  pario_jw_uint(j, "files_per_rep", r->md_files_per_rep);
  pario_jw_uint(j, "dirs_per_rep", r->md_dirs);
  pario_jw_uint(j, "created", r->md_created);
  pario_jw_uint(j, "removed", r->md_removed);
  pario_jw_uint(j, "left_behind", r->md_left);
  pario_jw_obj_end(j);
}

static void hints(pario_jw *j, const pario_case *c, const pario_case_rec *r) {
  pario_jw_obj(j, "hints");
  asked_and_got(j, c->nhints, c->hint_key, c->hint_val, r->have_effective ? &r->effective : NULL);
  pario_jw_obj_end(j);
}

static void column(pario_jw *j, const char *key, const double *v, int n) {
  pario_jw_arr(j, key);
  for (int r = 0; v && r < n; r++) pario_jw_dbl(j, NULL, v[r]);
  pario_jw_arr_end(j);
}

static void phase(pario_jw *j, const pario_case *cs, const pario_phase_rec *p, int nranks) {
  int reads_checked = cs->read_check;
  double dt = p->t_end - p->t_start, dx = p->xfer_end - p->xfer_start, mib = (double)p->bytes / 1048576.0;
  pario_jw_obj(j, NULL);
  pario_jw_str(j, "op", pario_op_name(p->op));
  pario_jw_int(j, "rep", p->rep);
  pario_jw_uint(j, "bytes", p->bytes);
  pario_jw_uint(j, "ops", p->ops);
  pario_jw_dbl(j, "t_start", p->t_start);
  pario_jw_dbl(j, "open_to_close_s", dt);
  pario_jw_dbl(j, "xfer_s", dx);
  pario_jw_dbl(j, "bw_mib", dt > 0 ? mib / dt : 0);
  pario_jw_dbl(j, "xfer_bw_mib", dx > 0 ? mib / dx : 0);
  pario_jw_dbl(j, "iops", dx > 0 ? (double)p->ops / dx : 0);
  pario_jw_dbl(j, "first_done_s", p->first_done);
  pario_jw_dbl(j, "last_done_s", dt);
  pario_jw_dbl(j, "open_close_share", dt > 0 ? p->open_close_max / dt : 0);
  pario_jw_obj(j, "ranks");
  column(j, "open", p->r_open, nranks);
  column(j, "xfer", p->r_xfer, nranks);
  column(j, "sync", p->r_sync, nranks);
  column(j, "close", p->r_close, nranks);
  column(j, "done", p->r_done, nranks);
  column(j, "bytes", p->r_bytes, nranks);
  if (p->r_fs_written && p->r_fs_read) { /* at the file system's calls, below the I/O library */
    column(j, "fs_written", p->r_fs_written, nranks);
    column(j, "fs_read", p->r_fs_read, nranks);
  }
  pario_jw_obj_end(j);
  if (cs->fsync || cs->fsync_per_write) pario_jw_uint(j, "syncs", p->syncs);
  if (cs->deadline_us && p->rep >= 0 && p->op != PARIO_OP_VERIFY) { /* IOR's -D */
    pario_jw_obj(j, "stonewall");
    pario_jw_dbl(j, "deadline_s", (double)cs->deadline_us * 1e-6);
    pario_jw_uint(j, "ranks_stopped", p->stonewalled);
    pario_jw_bool(j, "wearout", cs->wearout);
    pario_jw_obj_end(j);
  }
  if (p->cache.measured || p->cache.evicted) {
    pario_jw_obj(j, "cache");
    pario_jw_str(j, "evicted", p->cache.evicted == 2 ? "system" : p->cache.evicted ? "files" : "none");
    if (p->cache.measured) {
      pario_jw_dbl(j, "resident", p->cache.pages ? (double)p->cache.resident / (double)p->cache.pages : 0.0);
      pario_jw_dbl(j, "resident_max_host", p->cache.resident_max);
      pario_jw_uint(j, "resident_pages", p->cache.resident);
      pario_jw_uint(j, "pages", p->cache.pages);
    }
    pario_jw_dbl(j, "seconds", p->cache.seconds);
    pario_jw_obj_end(j);
  }
  /* a timed read carries a verify object only when it was checked (read_check, the default) */
  if ((p->op == PARIO_OP_READ && reads_checked) || p->op == PARIO_OP_VERIFY || p->op == PARIO_OP_READSMALL) {
    char hex[32];
    pario_jw_obj(j, "verify");
    pario_jw_uint(j, "checked_bytes", p->checked_bytes);
    pario_jw_uint(j, "errors", p->errors);
    if (p->op == PARIO_OP_READ) pario_jw_dbl(j, "check_s", p->check_s);
    if (p->errors) {
      pario_jw_obj(j, "first_error");
      pario_jw_int(j, "rank", p->bad_rank);
      pario_jw_int(j, "file", p->bad_file);
      pario_jw_uint(j, "offset", p->bad_offset);
      snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)p->bad_expected);
      pario_jw_str(j, "expected", hex);
      snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)p->bad_got);
      pario_jw_str(j, "got", hex);
      pario_jw_obj_end(j);
    } else {
      pario_jw_null(j, "first_error");
    }
    pario_jw_obj_end(j);
  }
  pario_jw_obj_end(j);
}

static void one_case(pario_jw *j, const pario_case *c, const pario_case_rec *r, int nranks) {
  pario_jw_obj(j, NULL);
  pario_jw_str(j, "name", c->name);
  pario_jw_int(j, "index", r->index);
  case_spec(j, c);
  pario_jw_int(j, "files", r->files);
  pario_jw_uint(j, "file_bytes", r->file_bytes);
  pario_jw_uint(j, "bytes_per_rank", r->bytes_per_rank);
  pario_jw_uint(j, "total_bytes", r->total_bytes);
  pario_jw_uint(j, "ops_per_rank", r->ops_per_rank);
  pario_jw_uint(j, "xfer", r->call_bytes);
  pario_jw_int(j, "reorder_shift", r->reorder_shift);
  pario_jw_bool(j, "verify_exact", r->verify_exact);
  if (c->pat.kind == PARIO_SUBARRAY) {
    pario_jw_arr(j, "grid");
    for (int d = 0; d < c->pat.ndims; d++) pario_jw_int(j, NULL, r->grid[d]);
    pario_jw_arr_end(j);
  }
  if (c->pat.kind == PARIO_BTIO) pario_jw_int(j, "btio_cells", r->grid[0]);
  if (c->workload == PARIO_WL_METADATA) metadata(j, c, r);
  else hints(j, c, r);
  lib(j, c, r);
  if (r->fs_layout_means) { /* the layout the file got, read from the file system after the write */
    pario_jw_obj(j, "fs_layout");
    pario_jw_str(j, "value", r->fs_layout);
    pario_jw_str(j, "means", r->fs_layout_means);
    pario_jw_obj_end(j);
  }
  if (c->max_time_ms) { /* IOR's -T: how many repetitions ran, and whether the limit stopped the rest */
    pario_jw_obj(j, "max_time");
    pario_jw_dbl(j, "minutes", (double)c->max_time_ms / 60000.0);
    pario_jw_int(j, "reps_run", r->reps_run);
    pario_jw_bool(j, "stopped", r->time_up);
    pario_jw_obj_end(j);
  }
  pario_jw_arr(j, "phases");
  for (int k = 0; k < r->nphases; k++) phase(j, c, &r->phases[k], nranks);
  pario_jw_arr_end(j);
  pario_jw_obj_end(j);
}

int pario_result_save(const pario_result *res, const char *path) {
  pario_jw j;
  pario_jw_init(&j);
  pario_jw_obj(&j, NULL);
  pario_jw_str(&j, "schema", "pario.result/1");
  pario_jw_str(&j, "status", res->status);
  if (res->err_code) {
    pario_jw_obj(&j, "error");
    pario_jw_str(&j, "code", pario_err_tag(res->err_code));
    pario_jw_str(&j, "message", res->err_msg);
    if (res->err_rank >= 0) pario_jw_int(&j, "rank", res->err_rank);
    if (res->err_case >= 0) pario_jw_int(&j, "case", res->err_case);
    pario_jw_obj_end(&j);
  } else {
    pario_jw_null(&j, "error");
  }
  pario_jw_str(&j, "run_id", res->run ? res->run->run_id : "");
  pario_jw_str(&j, "started", res->started);
  pario_jw_obj(&j, "engine");
  pario_jw_str(&j, "version", PARIO_VERSION);
  pario_jw_obj_end(&j);
  pario_jw_obj(&j, "libraries"); /* every I/O library this engine is built with, and its version */
  for (const pario_backend *const *b = pario_backend_all(); *b; b++)
    if (!(*b)->missing && (*b)->version) pario_jw_str(&j, (*b)->name, (*b)->version());
  pario_jw_obj_end(&j);
  pario_jw_obj(&j, "mpi");
  pario_jw_str(&j, "library", res->mpi_library);
  pario_jw_str(&j, "standard", res->mpi_standard);
  if (res->world) {
    pario_jw_int(&j, "ranks", res->world->nranks);
    pario_jw_arr(&j, "hosts");
    for (int h = 0; h < res->world->nhosts; h++) {
      pario_jw_obj(&j, NULL);
      pario_jw_str(&j, "name", res->world->host_names[h]);
      pario_jw_int(&j, "ranks", res->world->host_counts[h]);
      pario_jw_obj_end(&j);
    }
    pario_jw_arr_end(&j);
    if (res->placement) pario_placement_write(&j, res->placement, res->world);
  }
  pario_jw_dbl(&j, "clock_offset_max_s", res->clock_offset_max);
  pario_jw_obj_end(&j);
  pario_jw_arr(&j, "cases");
  for (int k = 0; k < res->ncases; k++)
    one_case(&j, &res->run->cases[res->cases[k].index], &res->cases[k], res->world ? res->world->nranks : 0);
  pario_jw_arr_end(&j);
  pario_jw_obj_end(&j);
  int rc = pario_jw_save(&j, path);
  pario_jw_free(&j);
  return rc;
}
