/* What a backend's option table says about a case's "lib" settings (include/pario/options.h). */
#include "pario/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pario/errors.h"

const char *pario_opt_type_name(pario_opt_type t) {
  static const char *const names[] = {"size", "int", "float", "choice", "bool", "string", "dims"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static int same(const char *a, const char *b) {
  while (*a && *b && (*a | 32) == (*b | 32)) a++, b++;
  return !*a && !*b;
}

const pario_option *pario_option_find(const pario_option *opts, const char *name) {
  for (const pario_option *o = opts; o && o->name; o++)
    if (same(o->name, name)) return o;
  return NULL;
}

int pario_parse_size(const char *text, uint64_t *out) {
  char *end = NULL;
  if (!text || !*text || *text == '-') return -1;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (end == text || errno == ERANGE) return -1;
  int shift = 0;
  if (*end == 'k' || *end == 'K') shift = 10, end++;
  else if (*end == 'm' || *end == 'M') shift = 20, end++;
  else if (*end == 'g' || *end == 'G') shift = 30, end++;
  if (*end || (shift && v > (UINT64_MAX >> shift))) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

int pario_parse_dims(const char *text, int nd, uint64_t *out) {
  const char *s = text;
  for (int d = 0; d < nd; d++) {
    char *end = NULL;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || v == 0 || errno == ERANGE || (d < nd - 1 ? *end != ',' : *end != 0)) return -1;
    out[d] = v;
    s = end + 1;
  }
  return 0;
}

/* "a, b or c" */
static void join(const char *const *words, char *out, size_t len) {
  int n = 0;
  while (words && words[n]) n++;
  out[0] = 0;
  for (int k = 0; k < n; k++)
    snprintf(out + strlen(out), len - strlen(out), "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ", words[k]);
}

static int in_range(const pario_option *o, double v, const char *cname, const char *backend) {
  if (o->has_min && v < o->min)
    return pario_err(PARIO_E_SPEC, "case %s: %s %s must be at least %.15g", cname, backend, o->name, o->min);
  if (o->has_max && v > o->max)
    return pario_err(PARIO_E_SPEC, "case %s: %s %s must be at most %.15g", cname, backend, o->name, o->max);
  return 0;
}

static int check_value(const pario_case *cs, const char *backend, const pario_option *o, const char *v) {
  static const char *const bools[] = {"true", "false", NULL};
  char words[512];
  char *end = NULL;
  uint64_t u;
  uint64_t dims[PARIO_MAX_DIMS];
  switch (o->type) {
    case PARIO_OPT_SIZE:
      if (pario_parse_size(v, &u))
        return pario_err(PARIO_E_SPEC, "case %s: %s %s must be a size in bytes (e.g. 1048576 or 1m)", cs->name, backend,
                         o->name);
      return in_range(o, (double)u, cs->name, backend);
    case PARIO_OPT_INT: {
      errno = 0;
      long long x = strtoll(v, &end, 10);
      if (!*v || *end || errno == ERANGE)
        return pario_err(PARIO_E_SPEC, "case %s: %s %s must be an integer", cs->name, backend, o->name);
      return in_range(o, (double)x, cs->name, backend);
    }
    case PARIO_OPT_FLOAT: {
      double x = strtod(v, &end);
      if (!*v || *end) return pario_err(PARIO_E_SPEC, "case %s: %s %s must be a number", cs->name, backend, o->name);
      return in_range(o, x, cs->name, backend);
    }
    case PARIO_OPT_CHOICE:
    case PARIO_OPT_BOOL: {
      const char *const *c = o->type == PARIO_OPT_BOOL ? bools : o->choices;
      for (int k = 0; c && c[k]; k++)
        if (!strcmp(v, c[k])) return 0;
      join(c, words, sizeof words);
      return pario_err(PARIO_E_SPEC, "case %s: %s %s must be %s", cs->name, backend, o->name, words);
    }
    case PARIO_OPT_DIMS: {
      int nd = cs->pat.kind == PARIO_SUBARRAY ? cs->pat.ndims : 1;
      for (int k = 0; o->choices && o->choices[k]; k++)
        if (!strcmp(v, o->choices[k])) return 0;
      if (nd >= 1 && !pario_parse_dims(v, nd, dims)) return 0;
      const char *all[8] = {NULL};
      char counts[64];
      int n = 0;
      for (; o->choices && o->choices[n] && n < 6; n++) all[n] = o->choices[n];
      snprintf(counts, sizeof counts, "%d comma-separated element counts", nd);
      all[n] = counts;
      join(all, words, sizeof words);
      return pario_err(PARIO_E_SPEC, "case %s: %s %s must be %s", cs->name, backend, o->name, words);
    }
    case PARIO_OPT_STRING: return 0;
  }
  return pario_err(PARIO_E_SPEC, "case %s: %s %s has an unknown type", cs->name, backend, o->name);
}

int pario_options_check(const pario_case *cs, const char *backend, const pario_option *opts) {
  for (int k = 0; k < cs->nlib; k++) {
    const pario_option *o = pario_option_find(opts, cs->lib_key[k]);
    if (!o) {
      char list[1024] = "";
      for (const pario_option *p = opts; p && p->name; p++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", p->name);
      return pario_err(PARIO_E_SPEC, "case %s: backend %s has no lib setting \"%s\" (%s%s)", cs->name, backend,
                       cs->lib_key[k], list[0] ? "known: " : "it takes no lib settings", list);
    }
    if (o->flags & PARIO_OPT_LIBRARY_CHECKS) continue;
    int rc = check_value(cs, backend, o, cs->lib_val[k]);
    if (rc) return rc;
  }
  return 0;
}
