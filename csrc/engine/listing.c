/* pario-engine --list (see listing.h): what the front end checks cases against before launching,
 * and where the tuner finds each backend's settings with their types and ranges. */
#include "engine/listing.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json_write.h"
#include "engine/spec.h"
#include "pario/backend.h"
#include "pario/case.h"
#include "pario/options.h"

/* Integral bounds as integers: a double printed with 9 digits would not round-trip 2^31 - 1. */
static void number(pario_jw *j, const char *key, int has, double v) {
  if (!has) pario_jw_null(j, key);
  else if (v == (double)(int64_t)v) pario_jw_int(j, key, (int64_t)v);
  else pario_jw_dbl(j, key, v);
}

static void option(pario_jw *j, const pario_option *o) {
  pario_jw_obj(j, NULL);
  pario_jw_str(j, "name", o->name);
  pario_jw_str(j, "type", pario_opt_type_name(o->type));
  number(j, "min", o->has_min, o->min);
  number(j, "max", o->has_max, o->max);
  pario_jw_arr(j, "choices");
  if (o->type == PARIO_OPT_BOOL) {
    pario_jw_str(j, NULL, "true");
    pario_jw_str(j, NULL, "false");
  }
  for (const char *const *c = o->choices; c && *c; c++) pario_jw_str(j, NULL, *c);
  pario_jw_arr_end(j);
  pario_jw_str(j, "default", o->dflt); /* null: the library's own choice */
  pario_jw_str(j, "help", o->help);
  /* who checks the value: the engine before anything runs, or the library at open */
  pario_jw_str(j, "checked_by", o->flags & PARIO_OPT_LIBRARY_CHECKS ? "library" : "engine");
  pario_jw_obj_end(j);
}

#define CHARS(type, member) ((int64_t)sizeof(((type *)0)->member) - 1)

/* What the spec check (spec.c, casefields.c) refuses, as numbers: the front end checks every case
 * against them before it launches anything, so that nothing is refused after mpirun started. */
static void limits(pario_jw *j) {
  pario_jw_obj(j, "limits");
  pario_jw_int(j, "name_chars", CHARS(pario_case, name));
  pario_jw_int(j, "backend_chars", CHARS(pario_case, backend));
  pario_jw_int(j, "hints", PARIO_MAX_HINTS);
  pario_jw_int(j, "hint_key_chars", CHARS(pario_case, hint_key[0]));
  pario_jw_int(j, "hint_value_chars", CHARS(pario_case, hint_val[0]));
  pario_jw_int(j, "lib_settings", PARIO_MAX_LIB);
  pario_jw_int(j, "lib_key_chars", CHARS(pario_case, lib_key[0]));
  pario_jw_int(j, "lib_value_chars", CHARS(pario_case, lib_val[0]));
  pario_jw_int(j, "dims", PARIO_MAX_DIMS);
  pario_jw_int(j, "int_max", INT_MAX);        /* reps, nfiles, reorder */
  pario_jw_int(j, "integer_max", INT64_MAX);  /* sizes, counts, seed: JSON integers are read as int64 */
  pario_jw_int(j, "call_bytes_max", INT_MAX); /* one transfer */
  pario_jw_int(j, "md_depth_max", PARIO_MD_MAX_DEPTH);
  pario_jw_int(j, "md_branching_max", PARIO_MD_MAX_BRANCHING);
  pario_jw_int(j, "md_files_max", (int64_t)PARIO_MD_MAX_FILES);
  pario_jw_int(j, "md_file_size_max", (int64_t)PARIO_MD_MAX_FILE_SIZE);
  pario_jw_int(j, "dir_chars", CHARS(pario_run, dir));
  pario_jw_int(j, "prefix_chars", CHARS(pario_run, prefix));
  pario_jw_obj_end(j);
}

int pario_list_backends(void) {
  static const char *const capnames[] = {"collective", "shared", "view", "odirect", "nonblocking", "hints", "nodata"};
  pario_jw j;
  pario_jw_init(&j);
  pario_jw_obj(&j, NULL);
  pario_jw_arr(&j, "backends");
  for (const pario_backend *const *b = pario_backend_all(); *b; b++) {
    pario_jw_obj(&j, NULL);
    pario_jw_str(&j, "name", (*b)->name);
    pario_jw_bool(&j, "built", !(*b)->missing);
    pario_jw_arr(&j, "caps");
    for (unsigned k = 0; k < sizeof capnames / sizeof capnames[0]; k++)
      if (pario_backend_caps(*b) & (1u << k)) pario_jw_str(&j, NULL, capnames[k]);
    pario_jw_arr_end(&j);
    if ((*b)->missing) pario_jw_str(&j, "missing", (*b)->missing);
    if (!(*b)->missing && (*b)->version) pario_jw_str(&j, "version", (*b)->version());
    pario_jw_arr(&j, "options");
    for (const pario_option *o = (*b)->options; o && o->name; o++) option(&j, o);
    pario_jw_arr_end(&j);
    /* the names alone, as the front end read them before "options" */
    pario_jw_arr(&j, "lib_keys");
    for (const pario_option *o = (*b)->options; o && o->name; o++) pario_jw_str(&j, NULL, o->name);
    pario_jw_arr_end(&j);
    pario_jw_obj_end(&j);
  }
  pario_jw_arr_end(&j);
  limits(&j);
  pario_jw_obj_end(&j);
  printf("%s\n", j.buf);
  pario_jw_free(&j);
  return 0;
}
