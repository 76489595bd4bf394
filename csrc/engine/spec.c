/* Parse the spec document into pario_run and re-check what the engine relies on.
 * The front end validates with friendlier messages; this is the last line of defence. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/spec.h"
#include "pario/backend.h"
#include "pario/options.h"
#include "pario/errors.h"
#include "pario/pattern.h"
#include "common/json_read.h"

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

static int get_u64(const pj_value *o, const char *key, uint64_t *out, uint64_t dflt) {
  const pj_value *v = pario_json_get(o, key);
  if (!v) { *out = dflt; return 0; }
  if (v->t != PJ_NUM || !v->is_int || v->i < 0)
    return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be a non-negative integer", key);
  *out = (uint64_t)v->i;
  return 0;
}

static int get_int(const pj_value *o, const char *key, int *out, int dflt) {
  const pj_value *v = pario_json_get(o, key);
  if (!v) { *out = dflt; return 0; }
  if (v->t == PJ_BOOL) { *out = (int)v->i; return 0; }
  if (v->t != PJ_NUM || !v->is_int || v->i < INT_MIN || v->i > INT_MAX)
    return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be an integer", key);
  *out = (int)v->i;
  return 0;
}

static int lookup(const char *s, const char *const *names, int n) {
  for (int k = 0; k < n; k++)
    if (!strcmp(s, names[k])) return k;
  return -1;
}

/* "lib": every setting must be one of the backend's options, with a value its table accepts;
 * then the backend checks what depends on several settings. */
static int check_lib(pario_case *c, const pario_backend *be) {
  int rc = pario_options_check(c, be->name, be->options);
  return rc ? rc : be->check ? be->check(c) : 0;
}

static int check_case(pario_case *c) {
  pario_pattern *p = &c->pat;
  const pario_backend *be = pario_backend_find(c->backend);
  if (!be) return bad(c->name, "unknown backend");
  if (be->missing) return pario_err(PARIO_E_NOTBUILT, "backend %s is not built: %s", be->name, be->missing);
  if (c->reps < 1) return bad(c->name, "reps must be >= 1");
  if (c->nops < 1) return bad(c->name, "ops is empty");
  if (p->kind == PARIO_SUBARRAY) {
    if (p->ndims < 1) return bad(c->name, "subarray needs ldims");
    if (c->view && (p->xfer == 0 || p->xfer % 8 || pario_pattern_member_bytes(p) % p->xfer))
      return bad(c->name, "xfer must be a multiple of 8 that divides the local block's bytes");
  } else {
    if (p->xfer < 8 || p->xfer % 8) return bad(c->name, "xfer must be a positive multiple of 8");
    if (p->block == 0 || p->block % p->xfer) return bad(c->name, "block must be a positive multiple of xfer");
    if (p->segments < 1) return bad(c->name, "segments must be >= 1");
  }
  uint64_t call = c->view ? p->xfer : pario_pattern_call_bytes(p);
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
  for (int k = 0; k < c->nops && c->reuse; k++)
    if (c->ops[k] == PARIO_OP_WRITE) return bad(c->name, "reuse reads existing files: no write");
  if (caps & PARIO_CAP_NODATA)
    for (int k = 0; k < c->nops; k++)
      if (c->ops[k] == PARIO_OP_VERIFY) return bad(c->name, "the null backend stores nothing to verify");
  for (int k = 0; k < c->nops; k++)
    if (c->ops[k] > PARIO_OP_VERIFY) return bad(c->name, "ops of a data case are write, read, verify");
  return check_lib(c, be);
}

static int parse_ops(const pj_value *o, pario_case *c) {
  const pj_value *ops = pario_json_get(o, "ops");
  const char *what = c->workload == PARIO_WL_METADATA ? "ops must be a list of create, stat, open_close, read_small, remove"
                                                      : "ops must be a list of write, read, verify";
  if (!ops || ops->t != PJ_ARR || ops->n > PARIO_MAX_OPS) return bad(c->name, what);
  for (int k = 0; k < ops->n; k++) {
    int op = -1;
    for (int x = 0; x < PARIO_NOPS && ops->items[k].t == PJ_STR; x++)
      if (!strcmp(ops->items[k].s, pario_op_name(x))) op = x;
    if (op < 0 || (op > PARIO_OP_VERIFY) != (c->workload == PARIO_WL_METADATA)) return bad(c->name, what);
    c->ops[c->nops++] = (pario_op)op;
  }
  return 0;
}

static int parse_lib(const pj_value *o, pario_case *c) {
  const pj_value *h = pario_json_get(o, "lib");
  if (!h) return 0;
  if (h->t != PJ_OBJ || h->n > PARIO_MAX_LIB) return bad(c->name, "lib must be an object of at most 32 settings");
  for (int k = 0; k < h->n; k++) {
    const pj_value *v = &h->items[k];
    char num[64];
    const char *s = v->t == PJ_STR ? v->s : NULL;
    if (v->t == PJ_NUM && v->is_int) snprintf(num, sizeof num, "%lld", (long long)v->i), s = num;
    if (v->t == PJ_BOOL) s = v->i ? "true" : "false";
    if (!s || strlen(h->keys[k]) >= 64 || strlen(s) >= 256)
      return bad(c->name, "lib keys must be short names and values strings, integers or booleans (< 256 characters)");
    strcpy(c->lib_key[c->nlib], h->keys[k]);
    strcpy(c->lib_val[c->nlib], s);
    c->nlib++;
  }
  return 0;
}

/* The metadata workload: POSIX calls on many small files (metadata.c). */
static int parse_md(const pj_value *o, pario_case *c) {
  int rc;
  uint64_t fpd = 0, fsz = 0, depth = 0, br = 1;
  if ((rc = get_u64(o, "files_per_dir", &fpd, 0)) || (rc = get_u64(o, "file_size", &fsz, 0)) ||
      (rc = get_u64(o, "depth", &depth, 0)) || (rc = get_u64(o, "branching", &br, 1)) ||
      (rc = get_int(o, "shared_dir", &c->md.shared_dir, 1)) || (rc = get_int(o, "reps", &c->reps, 1)) ||
      (rc = get_u64(o, "seed", &c->pat.seed, 1)))
    return rc;
  if (!c->backend[0]) strcpy(c->backend, "posix");
  if (strcmp(c->backend, "posix")) return bad(c->name, "the metadata workload runs POSIX calls: backend must be posix");
  if (fpd < 1) return bad(c->name, "metadata needs files_per_dir >= 1");
  if (depth > 8 || br < 1 || br > 64) return bad(c->name, "metadata needs depth 0..8 and branching 1..64");
  uint64_t leaves = 1;
  for (uint64_t d = 0; d < depth; d++) leaves *= br;
  if (leaves * fpd > ((uint64_t)1 << 30)) return bad(c->name, "metadata tree too large (leaves x files_per_dir > 2^30)");
  if (fsz > ((uint64_t)1 << 30)) return bad(c->name, "metadata file_size must be at most 1 GiB");
  c->md.files_per_dir = fpd;
  c->md.file_size = fsz;
  c->md.depth = (int)depth;
  c->md.branching = (int)br;
  if ((rc = parse_ops(o, c))) return rc;
  if (c->reps < 1) return bad(c->name, "reps must be >= 1");
  if (c->nops < 1) return bad(c->name, "ops is empty");
  for (int k = 1; k < c->nops; k++)
    if (c->ops[k] <= c->ops[k - 1]) return bad(c->name, "metadata ops must be in the order create, stat, open_close, read_small, remove, each once");
  if (pario_json_get(o, "keep") || pario_json_get(o, "lib") || pario_json_get(o, "hints"))
    return bad(c->name, "the metadata workload takes no keep, lib or hints (it removes every file it creates)");
  return 0;
}

static int parse_case(const pj_value *o, pario_case *c) {
  static const char *const strategies[] = {"serial", "fpp", "shared", "nfiles", "pernode"};
  static const char *const patterns[] = {"segmented", "subarray", "random"};
  char tmp[64] = "";
  int rc, k;
  memset(c, 0, sizeof *c);
  if (o->t != PJ_OBJ) return pario_err(PARIO_E_SPEC, "spec: every case must be an object");
  if ((rc = get_str(o, "name", c->name, sizeof c->name, 1))) return rc;
  if ((rc = get_str(o, "workload", tmp, sizeof tmp, 0))) return rc;
  if (tmp[0] && strcmp(tmp, "data") && strcmp(tmp, "metadata")) return bad(c->name, "workload must be data or metadata");
  c->workload = !strcmp(tmp, "metadata") ? PARIO_WL_METADATA : PARIO_WL_DATA;
  if ((rc = get_str(o, "backend", c->backend, sizeof c->backend, c->workload == PARIO_WL_DATA))) return rc;
  if (c->workload == PARIO_WL_METADATA) return parse_md(o, c);
  if ((rc = get_str(o, "strategy", tmp, sizeof tmp, 1))) return rc;
  if ((k = lookup(tmp, strategies, 5)) < 0) return bad(c->name, "unknown strategy");
  c->strategy = (pario_strategy)k;
  if ((rc = get_str(o, "pattern", tmp, sizeof tmp, 1))) return rc;
  if ((k = lookup(tmp, patterns, 3)) < 0) return bad(c->name, "unknown pattern");
  c->pat.kind = (pario_pattern_kind)k;
  if ((rc = get_int(o, "nfiles", &c->nfiles, 1)) || (rc = get_int(o, "aggregate", &c->aggregate, 0)) ||
      (rc = get_int(o, "reps", &c->reps, 1)) || (rc = get_int(o, "collective", &c->collective, 0)) ||
      (rc = get_int(o, "view", &c->view, 0)) || (rc = get_int(o, "fsync", &c->fsync, 0)) ||
      (rc = get_int(o, "odirect", &c->odirect, 0)) || (rc = get_int(o, "keep", &c->keep, 0)) ||
      (rc = get_int(o, "reorder", &c->reorder, 0)) || (rc = get_int(o, "reuse", &c->reuse, 0)) ||
      (rc = get_int(o, "precreated", &c->precreated, 0)) ||
      (rc = get_u64(o, "xfer", &c->pat.xfer, 0)) || (rc = get_u64(o, "block", &c->pat.block, 0)) ||
      (rc = get_u64(o, "segments", &c->pat.segments, 1)) || (rc = get_u64(o, "seed", &c->pat.seed, 1)) ||
      (rc = get_u64(o, "buffer_max", &c->buffer_max, PARIO_BUFFER_DEFAULT)))
    return rc;
  if (c->strategy == PARIO_SERIAL) c->aggregate = 1;
  const pj_value *ld = pario_json_get(o, "ldims");
  if (ld) {
    if (ld->t != PJ_ARR || ld->n < 1 || ld->n > PARIO_MAX_DIMS) return bad(c->name, "ldims must be a list of 1 to 8 integers");
    c->pat.ndims = ld->n;
    for (k = 0; k < ld->n; k++) {
      if (ld->items[k].t != PJ_NUM || !ld->items[k].is_int || ld->items[k].i < 1) return bad(c->name, "ldims must be positive integers");
      c->pat.ldims[k] = (uint64_t)ld->items[k].i;
    }
  }
  if ((rc = parse_ops(o, c)) || (rc = parse_lib(o, c))) return rc;
  const pj_value *h = pario_json_get(o, "hints");
  if (h) {
    if (h->t != PJ_OBJ || h->n > PARIO_MAX_HINTS) return bad(c->name, "hints must be an object of at most 64 strings");
    for (k = 0; k < h->n; k++) {
      if (h->items[k].t != PJ_STR || strlen(h->keys[k]) >= 64 || strlen(h->items[k].s) >= 256)
        return bad(c->name, "hint keys and values must be strings (keys < 64, values < 256 characters)");
      strcpy(c->hint_key[c->nhints], h->keys[k]);
      strcpy(c->hint_val[c->nhints], h->items[k].s);
      c->nhints++;
    }
  }
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
             (rc = get_str(doc, "status_dir", run->status_dir, sizeof run->status_dir, 0))) {
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
