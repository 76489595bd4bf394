/* The fields of a case, once: how spec.c reads them from the spec and how result.c writes them
 * back as the case's "spec" in the result document (schemas/spec.schema.json), from one table,
 * so that the two cannot drift apart. */
#include "engine/casefields.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pario/errors.h"

typedef enum { F_STR, F_INT, F_BOOL, F_U64, F_SMALL, F_ENUM, F_CUSTOM } kind;

enum {
  DATA = 1 << 0,     /* a field of the data workload */
  MD = 1 << 1,       /* a field of the metadata workload */
  REQUIRED = 1 << 2, /* required in every workload it belongs to */
  REQ_DATA = 1 << 3, /* required in the data workload only */
  NO_ECHO = 1 << 4,  /* read, not written back (the result records it elsewhere or not at all) */
};

typedef struct {
  const char *key;
  kind k;
  size_t off, len; /* where in pario_case; len: F_STR buffer size */
  unsigned flags;
  uint64_t dflt;                                  /* when the spec does not set it */
  const char *const *names;                       /* F_ENUM: values, indexed by the enum */
  const char *bad;                                /* F_ENUM: the one line for another value */
  int (*parse)(const pj_value *v, pario_case *c); /* F_CUSTOM (v NULL when absent) */
  void (*write)(pario_jw *j, const pario_case *c);
  int (*shown)(const pario_case *c); /* written back only when true (NULL: always) */
} field;

static const char *const workloads[] = {"data", "metadata", NULL};
static const char *const strategies[] = {"serial", "fpp", "shared", "nfiles", "pernode", NULL};
static const char *const patterns[] = {"segmented", "subarray", "random", "btio", NULL};
_Static_assert(sizeof(pario_strategy) == sizeof(int) && sizeof(pario_pattern_kind) == sizeof(int) &&
                   sizeof(pario_workload) == sizeof(int),
               "enum fields are read and written as int");

static int bad(const pario_case *c, const char *what) {
  return pario_err(PARIO_E_SPEC, "case %s: %s", c->name[0] ? c->name : "?", what);
}

/* ---- the fields that are more than one value ---- */
static int parse_ops(const pj_value *ops, pario_case *c) {
  const char *what = c->workload == PARIO_WL_METADATA
                         ? "ops must be a list of create, stat, open_close, read_small, remove"
                         : "ops must be a list of write, read, verify";
  if (!ops || ops->t != PJ_ARR || ops->n > PARIO_MAX_OPS) return bad(c, what);
  for (int k = 0; k < ops->n; k++) {
    int op = -1;
    for (int x = 0; x < PARIO_NOPS && ops->items[k].t == PJ_STR; x++)
      if (!strcmp(ops->items[k].s, pario_op_name(x))) op = x;
    if (op < 0 || (op > PARIO_OP_VERIFY) != (c->workload == PARIO_WL_METADATA)) return bad(c, what);
    c->ops[c->nops++] = (pario_op)op;
  }
  return 0;
}
static void write_ops(pario_jw *j, const pario_case *c) {
  pario_jw_arr(j, "ops");
  for (int k = 0; k < c->nops; k++) pario_jw_str(j, NULL, pario_op_name(c->ops[k]));
  pario_jw_arr_end(j);
}

static int parse_ldims(const pj_value *ld, pario_case *c) {
  if (!ld) return 0;
  if (ld->t != PJ_ARR || ld->n < 1 || ld->n > PARIO_MAX_DIMS) return bad(c, "ldims must be a list of 1 to 8 integers");
  c->pat.ndims = ld->n;
  for (int k = 0; k < ld->n; k++) {
    if (ld->items[k].t != PJ_NUM || !ld->items[k].is_int || ld->items[k].i < 1)
      return bad(c, "ldims must be positive integers");
    c->pat.ldims[k] = (uint64_t)ld->items[k].i;
  }
  return 0;
}
static void write_ldims(pario_jw *j, const pario_case *c) {
  pario_jw_arr(j, "ldims");
  for (int d = 0; d < c->pat.ndims; d++) pario_jw_uint(j, NULL, c->pat.ldims[d]);
  pario_jw_arr_end(j);
}

static int parse_points(const pj_value *v, pario_case *c) {
  if (!v) return 0;
  if (v->t != PJ_ARR || v->n != 3) return bad(c, "grid_points must be a list of 3 integers (x, y, z)");
  for (int k = 0; k < 3; k++) {
    if (v->items[k].t != PJ_NUM || !v->items[k].is_int || v->items[k].i < 1 || v->items[k].i > 0x7fffffff)
      return bad(c, "grid_points must be positive integers below 2^31");
    c->pat.points[k] = (uint64_t)v->items[k].i;
  }
  return 0;
}
static void write_points(pario_jw *j, const pario_case *c) {
  pario_jw_arr(j, "grid_points");
  for (int d = 0; d < 3; d++) pario_jw_uint(j, NULL, c->pat.points[d]);
  pario_jw_arr_end(j);
}

static int parse_lib(const pj_value *h, pario_case *c) {
  if (!h) return 0;
  if (h->t != PJ_OBJ || h->n > PARIO_MAX_LIB) return bad(c, "lib must be an object of at most 32 settings");
  for (int k = 0; k < h->n; k++) {
    const pj_value *v = &h->items[k];
    char num[64];
    const char *s = v->t == PJ_STR ? v->s : NULL;
    if (v->t == PJ_NUM && v->is_int) snprintf(num, sizeof num, "%lld", (long long)v->i), s = num;
    if (v->t == PJ_BOOL) s = v->i ? "true" : "false";
    if (!s || strlen(h->keys[k]) >= 64 || strlen(s) >= 256)
      return bad(c, "lib keys must be short names and values strings, integers or booleans (< 256 characters)");
    strcpy(c->lib_key[c->nlib], h->keys[k]);
    strcpy(c->lib_val[c->nlib], s);
    c->nlib++;
  }
  return 0;
}
static void write_lib(pario_jw *j, const pario_case *c) {
  pario_jw_obj(j, "lib");
  for (int k = 0; k < c->nlib; k++) pario_jw_str(j, c->lib_key[k], c->lib_val[k]);
  pario_jw_obj_end(j);
}

static int parse_hints(const pj_value *h, pario_case *c) {
  if (!h) return 0;
  if (h->t != PJ_OBJ || h->n > PARIO_MAX_HINTS) return bad(c, "hints must be an object of at most 64 strings");
  for (int k = 0; k < h->n; k++) {
    if (h->items[k].t != PJ_STR || strlen(h->keys[k]) >= 64 || strlen(h->items[k].s) >= 256)
      return bad(c, "hint keys and values must be strings (keys < 64, values < 256 characters)");
    strcpy(c->hint_key[c->nhints], h->keys[k]);
    strcpy(c->hint_val[c->nhints], h->items[k].s);
    c->nhints++;
  }
  return 0;
}

static int is_nfiles(const pario_case *c) { return c->strategy == PARIO_NFILES; }
static int is_subarray(const pario_case *c) { return c->pat.kind == PARIO_SUBARRAY; }
static int is_btio(const pario_case *c) { return c->pat.kind == PARIO_BTIO; }
static int has_blocks(const pario_case *c) { return c->pat.kind != PARIO_SUBARRAY && c->pat.kind != PARIO_BTIO; }
static int has_xfer(const pario_case *c) { return c->pat.kind != PARIO_BTIO; }
static int has_lib(const pario_case *c) { return c->nlib > 0; }
/* IOR's -Y -D -u -E -T: echoed only when set, so that other cases' records stay as they were */
static int has_fsync_each(const pario_case *c) { return c->fsync_per_write; }
static int has_deadline(const pario_case *c) { return c->deadline_us > 0; }
static int has_unique_dir(const pario_case *c) { return c->unique_dir; }
static int has_existing(const pario_case *c) { return c->use_existing; }
static int has_max_time(const pario_case *c) { return c->max_time_ms > 0; }

#define BOTH (DATA | MD)
#define STR(key_, member, flags_)                                                                           \
  {                                                                                                         \
    .key = key_, .k = F_STR, .off = offsetof(pario_case, member), .len = sizeof(((pario_case *)0)->member), \
    .flags = flags_                                                                                         \
  }
#define VAL(key_, kind_, member, flags_, dflt_, ...) \
  { .key = key_, .k = kind_, .off = offsetof(pario_case, member), .flags = flags_, .dflt = dflt_, __VA_ARGS__ }
#define ENUM(key_, member, flags_, dflt_, names_, bad_) \
  VAL(key_, F_ENUM, member, flags_, dflt_, .names = names_, .bad = bad_)
#define CUSTOM(key_, flags_, ...) \
  { .key = key_, .k = F_CUSTOM, .flags = flags_, __VA_ARGS__ }
/* In the order the result writes them. */
static const field fields[] = {
    STR("name", name, BOTH | REQUIRED),
    ENUM("workload", workload, BOTH, PARIO_WL_DATA, workloads, "workload must be data or metadata"),
    STR("backend", backend, BOTH | REQ_DATA), /* metadata: posix */
    ENUM("strategy", strategy, DATA | REQUIRED, 0, strategies, "unknown strategy"),
    VAL("nfiles", F_INT, nfiles, DATA, 1, .shown = is_nfiles),
    VAL("aggregate", F_BOOL, aggregate, DATA, 0),
    ENUM("pattern", pat.kind, DATA | REQUIRED, 0, patterns, "unknown pattern"),
    VAL("xfer", F_U64, pat.xfer, DATA, 0, .shown = has_xfer),
    CUSTOM("ldims", DATA, .parse = parse_ldims, .write = write_ldims, .shown = is_subarray),
    VAL("block", F_U64, pat.block, DATA, 0, .shown = has_blocks),
    VAL("segments", F_U64, pat.segments, DATA, 1, .shown = has_blocks),
    CUSTOM("grid_points", DATA, .parse = parse_points, .write = write_points, .shown = is_btio),
    VAL("steps", F_U64, pat.steps, DATA, 1, .shown = is_btio),
    VAL("files_per_dir", F_U64, md.files_per_dir, MD, 0),
    VAL("file_size", F_U64, md.file_size, MD, 0),
    VAL("depth", F_SMALL, md.depth, MD, 0),
    VAL("branching", F_SMALL, md.branching, MD, 1),
    VAL("shared_dir", F_BOOL, md.shared_dir, MD, 1),
    STR("top_xattr", md.top_xattr, MD),
    CUSTOM("ops", BOTH, .parse = parse_ops, .write = write_ops),
    VAL("reps", F_INT, reps, BOTH, 1),
    VAL("collective", F_BOOL, collective, DATA, 0),
    VAL("view", F_BOOL, view, DATA, 0),
    VAL("fsync", F_BOOL, fsync, DATA, 0),
    VAL("fsync_per_write", F_BOOL, fsync_per_write, DATA, 0, .shown = has_fsync_each),
    VAL("deadline_us", F_U64, deadline_us, DATA, 0, .shown = has_deadline),
    VAL("wearout", F_BOOL, wearout, DATA, 0, .shown = has_deadline),
    VAL("unique_dir", F_BOOL, unique_dir, DATA, 0, .shown = has_unique_dir),
    VAL("use_existing", F_BOOL, use_existing, DATA, 0, .shown = has_existing),
    VAL("max_time_ms", F_U64, max_time_ms, DATA, 0, .shown = has_max_time),
    VAL("odirect", F_BOOL, odirect, DATA, 0),
    VAL("reorder", F_INT, reorder, DATA, 0),
    VAL("keep", F_BOOL, keep, DATA, 0),
    VAL("read_check", F_BOOL, read_check, DATA, 1),
    VAL("reuse", F_BOOL, reuse, DATA, 0),
    VAL("evict", F_INT, evict, DATA, 0),
    VAL("residency", F_BOOL, residency, DATA, 0),
    VAL("seed", F_U64, pat.seed, BOTH, 1),
    VAL("buffer_max", F_U64, buffer_max, DATA, PARIO_BUFFER_DEFAULT),
    CUSTOM("lib", DATA, .parse = parse_lib, .write = write_lib, .shown = has_lib),
    VAL("precreated", F_BOOL, precreated, DATA | NO_ECHO, 0),
    CUSTOM("hints", DATA | NO_ECHO, .parse = parse_hints), /* result.c writes them with the effective ones */
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static int *int_at(pario_case *c, const field *f) { return (int *)((char *)c + f->off); }
static uint64_t *u64_at(pario_case *c, const field *f) { return (uint64_t *)((char *)c + f->off); }
static int int_of(const pario_case *c, const field *f) { return *(const int *)((const char *)c + f->off); }
static uint64_t u64_of(const pario_case *c, const field *f) { return *(const uint64_t *)((const char *)c + f->off); }

static int parse_one(const pj_value *o, const field *f, pario_case *c) {
  const pj_value *v = pario_json_get(o, f->key);
  int required = (f->flags & REQUIRED) || ((f->flags & REQ_DATA) && c->workload == PARIO_WL_DATA);
  if (f->k == F_CUSTOM) return f->parse(v, c);
  if (!v) {
    if (required) return pario_err(PARIO_E_SPEC, "spec: missing \"%s\"", f->key);
    if (f->k == F_U64) *u64_at(c, f) = f->dflt;
    else if (f->k != F_STR) *int_at(c, f) = (int)f->dflt;
    return 0;
  }
  switch (f->k) {
    case F_STR:
    case F_ENUM:
      if (v->t != PJ_STR || (f->k == F_STR && strlen(v->s) >= f->len))
        return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be a string", f->key);
      if (f->k == F_STR) {
        strcpy((char *)c + f->off, v->s);
        return 0;
      }
      for (int k = 0; f->names[k]; k++) {
        if (strcmp(v->s, f->names[k])) continue;
        *int_at(c, f) = k;
        return 0;
      }
      return bad(c, f->bad);
    case F_INT:
    case F_BOOL:
      if (v->t == PJ_BOOL) {
        *int_at(c, f) = (int)v->i;
        return 0;
      }
      if (v->t != PJ_NUM || !v->is_int || v->i < INT_MIN || v->i > INT_MAX)
        return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be an integer", f->key);
      *int_at(c, f) = (int)v->i;
      return 0;
    case F_U64:
    case F_SMALL:
      if (v->t != PJ_NUM || !v->is_int || v->i < 0)
        return pario_err(PARIO_E_SPEC, "spec: \"%s\" must be a non-negative integer", f->key);
      if (f->k == F_U64) *u64_at(c, f) = (uint64_t)v->i;
      else *int_at(c, f) = v->i > INT_MAX ? INT_MAX : (int)v->i; /* out of any range the checks allow */
      return 0;
    case F_CUSTOM: break;
  }
  return 0;
}

int pario_case_fields_parse(const pj_value *o, pario_case *c) {
  memset(c, 0, sizeof *c);
  if (o->t != PJ_OBJ) return pario_err(PARIO_E_SPEC, "spec: every case must be an object");
  for (size_t k = 0; k < NFIELDS; k++) {
    const field *f = &fields[k];
    if (!(f->flags & (c->workload == PARIO_WL_METADATA ? MD : DATA))) continue;
    int rc = parse_one(o, f, c);
    if (rc) return rc;
  }
  return 0;
}

void pario_case_fields_write(pario_jw *j, const pario_case *c) {
  for (size_t k = 0; k < NFIELDS; k++) {
    const field *f = &fields[k];
    if (!(f->flags & (c->workload == PARIO_WL_METADATA ? MD : DATA)) || (f->flags & NO_ECHO)) continue;
    if (f->shown && !f->shown(c)) continue;
    switch (f->k) {
      case F_STR: pario_jw_str(j, f->key, (const char *)c + f->off); break;
      case F_ENUM: pario_jw_str(j, f->key, f->names[int_of(c, f)]); break;
      case F_INT:
      case F_SMALL: pario_jw_int(j, f->key, int_of(c, f)); break;
      case F_BOOL: pario_jw_bool(j, f->key, int_of(c, f)); break;
      case F_U64: pario_jw_uint(j, f->key, u64_of(c, f)); break;
      case F_CUSTOM: f->write(j, c); break;
    }
  }
}
