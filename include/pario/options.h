/* A backend's library settings (the case's "lib" object) as data: one table per backend, in the
 * backend's own file, like fio's struct fio_option and IOR's option_help. From the table come
 * the engine's check of every value (csrc/backends/options.c, run by the spec check before
 * anything opens), the keys the front end accepts and `pario-engine --list`'s "options".
 *
 *   static const pario_option options[] = {
 *       {.name = "alignment", .type = PARIO_OPT_SIZE, PARIO_OPT_MIN(1), .dflt = "1",
 *        .help = "H5Pset_alignment: objects of at least align_threshold bytes start at a multiple"},
 *       {0}};
 *
 * Checks that involve several settings (align_threshold needs alignment) stay in the backend's
 * check(). */
#ifndef PARIO_OPTIONS_H
#define PARIO_OPTIONS_H

#include <stdint.h>

#include "pario/case.h"

typedef enum {
  PARIO_OPT_SIZE,   /* bytes: a non-negative integer with an optional k/m/g (binary) suffix */
  PARIO_OPT_INT,    /* an integer */
  PARIO_OPT_FLOAT,  /* a number */
  PARIO_OPT_CHOICE, /* one of choices */
  PARIO_OPT_BOOL,   /* true or false */
  PARIO_OPT_STRING, /* any text */
  PARIO_OPT_DIMS,   /* one of choices (words such as "block"), or one positive integer per
                       dimension of the case's array, comma-separated */
} pario_opt_type;

enum {
  /* the library checks the value when the file is opened (ADIOS2 parameters: units such as
     "128Mb" and spellings the engine would not know); the engine checks the name only */
  PARIO_OPT_LIBRARY_CHECKS = 1 << 0,
};

typedef struct {
  const char *name; /* key in "lib", matched without regard to case (ADIOS2 ignores it) */
  pario_opt_type type;
  int has_min, has_max;
  double min, max;            /* inclusive range of SIZE, INT and FLOAT values */
  const char *const *choices; /* CHOICE: the values; DIMS: the words; NULL-terminated */
  const char *dflt;           /* what applies when the case does not set it; NULL: the library's
                                 own choice, which varies (given in help when known) */
  const char *help;           /* one line */
  unsigned flags;
} pario_option;

#define PARIO_OPT_MIN(x) .has_min = 1, .min = (x)
#define PARIO_OPT_MAX(x) .has_max = 1, .max = (x)

/* Names of the types as --list prints them: "size", "int", ... */
const char *pario_opt_type_name(pario_opt_type t);
/* The option of opts (terminated by an entry without name) called name, without regard to case. */
const pario_option *pario_option_find(const pario_option *opts, const char *name);
/* Every "lib" setting of cs must be an option of opts with a valid value. 0 or PARIO_E_SPEC, with
 * one line naming the case, the backend, the setting and what it takes. */
int pario_options_check(const pario_case *cs, const char *backend, const pario_option *opts);

/* Parse a size (non-negative integer, optional k/m/g binary suffix); 0, or -1 if invalid. */
int pario_parse_size(const char *text, uint64_t *out);
/* Parse nd comma-separated positive integers; 0, or -1 if invalid. */
int pario_parse_dims(const char *text, int nd, uint64_t *out);

#endif
