/* Parse the spec document into pario_run and re-check what the engine relies on.
 * The front end validates with friendlier messages; this is the last line of defence. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_read.h"
#include "engine/casefields.h"
#include "engine/spec.h"
#include "pario/backend.h"
#include "pario/errors.h"
#include "pario/options.h"
#include "pario/pattern.h"

static int bad(const char *cname, const char *what) {
  return pario_err(PARIO_E_SPEC, "case %s: %s", cname ? cname : "?", what);
}

static int get_str(const pj_value *o, const char *key, char *out, size_t len, int required) {
  const pj_value *v = pario_json_get(o, key);
  if (!v) return required ? pario_err(PARIO_E_SPEC, "spec: missing \"%s\"", key) : 0;
  if (v->t != PJ_STR || strlen(v->s) >= len) return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be a string", key);
  strcpy(out, v->s);
  return 0;
}

/* "lib": every setting must be one of the backend's options, with a value its table accepts;
 * then the backend checks what depends on several settings. */
static int check_lib(pario_case *c, const pario_backend *be) {
  int rc = pario_options_check(c, be->name, be->options);
  return rc ? rc : be->check ? be->check(c) : 0;
}

/* NAS BTIO's shape: one shared file, each rank's cells through a file view (mpiio, pnetcdf); the
 * counts that need the number of ranks are checked when the group is made (groups.c). */
static int check_btio(const pario_case *c, const pario_backend *be) {
  const pario_pattern *p = &c->pat;
  if (strcmp(be->name, "mpiio") && strcmp(be->name, "pnetcdf"))
    return bad(c->name, "the btio pattern runs through the mpiio or pnetcdf backend");
  if (!p->points[0] || !p->points[1] || !p->points[2]) return bad(c->name, "btio needs grid_points");
  if (p->steps < 1) return bad(c->name, "btio needs steps >= 1");
  if (c->strategy != PARIO_SHARED || c->aggregate) return bad(c->name, "btio writes one shared file: strategy shared");
  if (!c->view) return bad(c->name, "btio describes each rank's cells with a file view: view must be true");
  if (c->reorder) return bad(c->name, "btio reads back each rank's own cells: reorder does not apply");
  if (c->odirect) return bad(c->name, "odirect does not apply to btio");
  return 0;
}

/* IOR's -Y -D -u -E: where they apply (README, IOR equivalents). */
static int check_ior_flags(const pario_case *c, const pario_backend *be) {
  int posix_or_mpiio = !strcmp(be->name, "posix") || !strcmp(be->name, "mpiio");
  if (c->fsync_per_write && !posix_or_mpiio)
    return bad(c->name, "fsync_per_write applies to the posix and mpiio backends (as IOR's -Y)");
  if (c->use_existing && !posix_or_mpiio)
    return bad(c->name, "use_existing applies to the posix and mpiio backends: the library layers create their files");
  if (c->use_existing && c->reuse) return bad(c->name, "use_existing writes; reuse reads a kept run: give one");
  if (c->unique_dir && c->strategy != PARIO_FPP) return bad(c->name, "unique_dir applies to file per process (fpp)");
  if ((c->deadline_us || c->fsync_per_write) && c->aggregate)
    return bad(c->name, "deadline_us and fsync_per_write need each rank to call the backend: no aggregate or serial");
  int writes = 0;
  for (int k = 0; k < c->nops; k++) {
    writes |= c->ops[k] == PARIO_OP_WRITE;
    if (c->deadline_us && !c->wearout && writes && c->ops[k] != PARIO_OP_WRITE)
      return bad(c->name,
                 "a read or verify after a stonewalled write needs wearout (every rank writes the same count)");
  }
  return 0;
}

static int check_case(pario_case *c) {
  pario_pattern *p = &c->pat;
  const pario_backend *be = pario_backend_find(c->backend);
  if (!be) return bad(c->name, "unknown backend");
  if (be->missing) return pario_err(PARIO_E_NOTBUILT, "backend %s is not built: %s", be->name, be->missing);
  if (c->reps < 1) return bad(c->name, "reps must be >= 1");
  if (c->nops < 1) return bad(c->name, "ops is empty");
  if (p->kind == PARIO_BTIO) {
    int rc = check_btio(c, be);
    if (rc) return rc;
  } else if (p->kind == PARIO_SUBARRAY) {
    if (p->ndims < 1) return bad(c->name, "subarray needs ldims");
    if (c->view && (p->xfer == 0 || p->xfer % 8 || pario_pattern_member_bytes(p) % p->xfer))
      return bad(c->name, "xfer must be a multiple of 8 that divides the local block's bytes");
  } else {
    if (p->xfer < 8 || p->xfer % 8) return bad(c->name, "xfer must be a positive multiple of 8");
    if (p->block == 0 || p->block % p->xfer) return bad(c->name, "block must be a positive multiple of xfer");
    if (p->segments < 1) return bad(c->name, "segments must be >= 1");
    if (p->segments > (uint64_t)INT64_MAX / p->block) return bad(c->name, "block x segments is beyond 2^63 bytes");
  }
  uint64_t call = p->kind == PARIO_BTIO ? 0 : c->view ? p->xfer : pario_pattern_call_bytes(p);
  if (call > INT_MAX) return bad(c->name, "a transfer must be under 2 GiB");
  unsigned caps = pario_backend_caps(be);
  if (c->collective && !(caps & PARIO_CAP_COLLECTIVE)) return bad(c->name, "collective needs a backend with collective calls");
  if (c->view && !(caps & PARIO_CAP_VIEW)) return bad(c->name, "view needs a backend with file views");
  if (c->view && p->kind == PARIO_RANDOM) return bad(c->name, "view does not apply to the random pattern");
  if (c->odirect && !(caps & PARIO_CAP_ODIRECT)) return bad(c->name, "odirect is not supported by this backend");
  if (c->odirect && call % 4096) return bad(c->name, "odirect needs transfers that are multiples of 4096 bytes");
  if (c->odirect && p->kind != PARIO_SUBARRAY && p->block % 4096)
    return bad(c->name, "odirect needs blocks that are multiples of 4096 bytes");
  if (c->aggregate && (c->collective || c->view)) return bad(c->name, "aggregate has one writer per file: no collective or view");
  if (c->nhints && !(caps & PARIO_CAP_HINTS)) return bad(c->name, "hints apply to MPI-IO backends only");
  if (c->evict < 0 || c->evict > 2) return bad(c->name, "evict must be 0 (none), 1 (the case's files) or 2 (also drop_caches)");
  if ((c->evict || c->residency) && (caps & PARIO_CAP_NODATA))
    return bad(c->name, "evict and residency need a backend that stores files");
  for (int k = 0; k < c->nops && c->reuse; k++)
    if (c->ops[k] == PARIO_OP_WRITE) return bad(c->name, "reuse reads existing files: no write");
  if (caps & PARIO_CAP_NODATA)
    for (int k = 0; k < c->nops; k++)
      if (c->ops[k] == PARIO_OP_VERIFY) return bad(c->name, "the null backend stores nothing to verify");
  for (int k = 0; k < c->nops; k++)
    if (c->ops[k] > PARIO_OP_VERIFY) return bad(c->name, "ops of a data case are write, read, verify");
  int rc = check_ior_flags(c, be);
  return rc ? rc : check_lib(c, be);
}

/* The metadata workload: POSIX calls on many small files (metadata.c). */
static int check_md(const pj_value *o, pario_case *c) {
  const pario_md *md = &c->md;
  if (!c->backend[0]) strcpy(c->backend, "posix");
  if (strcmp(c->backend, "posix")) return bad(c->name, "the metadata workload runs POSIX calls: backend must be posix");
  if (md->files_per_dir < 1) return bad(c->name, "metadata needs files_per_dir >= 1");
  if (md->depth > PARIO_MD_MAX_DEPTH || md->branching < 1 || md->branching > PARIO_MD_MAX_BRANCHING)
    return bad(c->name, "metadata needs depth 0..8 and branching 1..64");
  uint64_t leaves = 1;
  for (int d = 0; d < md->depth; d++) leaves *= (uint64_t)md->branching;
  if (md->files_per_dir > PARIO_MD_MAX_FILES || leaves * md->files_per_dir > PARIO_MD_MAX_FILES)
    return bad(c->name, "metadata tree too large (leaves x files_per_dir > 2^30)");
  if (md->file_size > PARIO_MD_MAX_FILE_SIZE) return bad(c->name, "metadata file_size must be at most 1 GiB");
  if (c->reps < 1) return bad(c->name, "reps must be >= 1");
  if (c->nops < 1) return bad(c->name, "ops is empty");
  for (int k = 1; k < c->nops; k++)
    if (c->ops[k] <= c->ops[k - 1]) return bad(c->name, "metadata ops must be in the order create, stat, open_close, read_small, remove, each once");
  if (pario_json_get(o, "keep") || pario_json_get(o, "lib") || pario_json_get(o, "hints"))
    return bad(c->name, "the metadata workload takes no keep, lib or hints (it removes every file it creates)");
  return 0;
}

/* "guard": {"pid", "start", "boot", "dir", "rmdir"}: optional, for the orphan guard (guard.h). */
static int parse_guard(const pj_value *doc, pario_run *run, const char *path) {
  const pj_value *gd = pario_json_get(doc, "guard");
  if (!gd) return 0;
  const pj_value *pid = pario_json_get(gd, "pid"), *start = pario_json_get(gd, "start");
  const pj_value *rm = pario_json_get(gd, "rmdir");
  if (gd->t != PJ_OBJ || !pid || pid->t != PJ_NUM || !pid->is_int || pid->i <= 0 || !start || start->t != PJ_NUM ||
      !start->is_int || start->i < 0 || (rm && rm->t != PJ_BOOL))
    return pario_err(PARIO_E_SPEC, "spec %s: \"guard\" needs a positive integer pid and an integer start", path);
  run->guard_pid = (long)pid->i;
  run->guard_start = (unsigned long long)start->i;
  run->guard_rmdir = rm && rm->i;
  int rc = get_str(gd, "boot", run->guard_boot, sizeof run->guard_boot, 1);
  return rc ? rc : get_str(gd, "dir", run->guard_dir, sizeof run->guard_dir, 1);
}

static int parse_case(const pj_value *o, pario_case *c) {
  int rc = pario_case_fields_parse(o, c);
  if (rc) return rc;
  if (c->workload == PARIO_WL_METADATA) return check_md(o, c);
  if (c->strategy == PARIO_SERIAL) c->aggregate = 1;
  return check_case(c);
}

int pario_spec_parse(const char *text, const char *path, pario_run *run) {
  memset(run, 0, sizeof *run);
  char err[256];
  pj_value *doc = pario_json_parse(text, err, sizeof err);
  if (!doc) return pario_err(PARIO_E_SPEC, "spec %s is not valid JSON: %s", path, err);
  int rc = 0;
  const pj_value *schema = pario_json_get(doc, "schema");
  const pj_value *cases = pario_json_get(doc, "cases");
  if (!schema || schema->t != PJ_STR || strcmp(schema->s, "pario.spec/1")) {
    rc = pario_err(PARIO_E_SPEC, "spec %s: \"schema\" must be \"pario.spec/1\"", path);
  } else if ((rc = get_str(doc, "run_id", run->run_id, sizeof run->run_id, 1)) ||
             (rc = get_str(doc, "dir", run->dir, sizeof run->dir, 1)) ||
             (rc = get_str(doc, "prefix", run->prefix, sizeof run->prefix, 1)) ||
             (rc = get_str(doc, "status_dir", run->status_dir, sizeof run->status_dir, 0)) ||
             (rc = parse_guard(doc, run, path))) {
  } else if (!cases || cases->t != PJ_ARR || cases->n < 1) {
    rc = pario_err(PARIO_E_SPEC, "spec %s: \"cases\" must be a non-empty list", path);
  } else if (!(run->cases = calloc((size_t)cases->n, sizeof *run->cases))) {
    rc = pario_err(PARIO_E_NOMEM, "out of memory");
  } else {
    for (int k = 0; k < cases->n && !rc; k++) {
      rc = parse_case(&cases->items[k], &run->cases[k]);
      run->ncases = k + 1;
    }
  }
  pario_json_free(doc);
  return rc;
}

void pario_spec_free(pario_run *run) {
  free(run->cases);
  memset(run, 0, sizeof *run);
}
